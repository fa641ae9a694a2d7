"""The seccomp filter bwrap loads into every sandbox (`--seccomp FD`): calls that reach past its namespaces fail (EPERM).

Two kernel facilities count or keep things per host user, not per namespace, and a sandbox's user may be host
root (a root server without setpriv: unprivileged.py) or a uid the next episode in the same workspace gets too:
kernel keyrings (a command added a key to host root's user-session keyring; it stayed there after the sandbox ended,
a channel to the next episode and state on the host) and inotify/fanotify instances (charged up the user-namespace
tree to host root: one command holding 128 left the server, every other episode and the host's root daemons unable
to make one). Container runtimes refuse the keyring calls for the same reason (Docker's default profile); nothing a
task needs uses either (`tail -f` falls back to polling). A classic BPF program, built here so
the runtime needs no library: native and 32-bit compat numbers per architecture; one not listed is not filtered.
"""

from __future__ import annotations

import errno
import os
import struct

_LD_ABS, _JEQ, _AND, _RET = 0x20, 0x15, 0x54, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ|K, BPF_ALU|AND|K, BPF_RET|K
_NR, _ARCH = 0, 4  # offsets in struct seccomp_data
_ALLOW, _ERRNO = 0x7FFF0000, 0x00050000
_X32_BIT = 0x40000000
# AUDIT_ARCH_* -> (add_key, request_key, keyctl, inotify_init, inotify_init1, fanotify_init), x32 bit masked first
REFUSED = {
    0xC000003E: ((248, 249, 250, 253, 294, 300), True),   # x86_64 (and x32)
    0x40000003: ((286, 287, 288, 291, 332, 338), False),  # i386
    0xC00000B7: ((217, 218, 219, 26, 262), False),        # aarch64 (no inotify_init)
    0x40000028: ((309, 310, 311, 316, 360, 367), False),  # arm
}


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def program() -> bytes:
    """The filter as bwrap reads it: struct sock_filter instructions, back to back."""
    out = [_op(_LD_ABS, _ARCH)]
    for arch, (calls, x32) in REFUSED.items():
        block = [_op(_LD_ABS, _NR)] + ([_op(_AND, 0xFFFFFFFF & ~_X32_BIT)] if x32 else [])
        block += [_op(_JEQ, nr, jt=len(calls) - i) for i, nr in enumerate(calls)]  # jump to the EPERM below
        block += [_op(_RET, _ALLOW), _op(_RET, _ERRNO | errno.EPERM)]
        out += [_op(_JEQ, arch, jt=0, jf=len(block)), *block]
    out.append(_op(_RET, _ALLOW))
    return b"".join(out)


def filter_file() -> int:
    """A memory file holding the program, at offset 0, for `bwrap --seccomp FD` (bwrap reads and closes it)."""
    fd = os.memfd_create("envcraft-seccomp", os.MFD_CLOEXEC)
    os.write(fd, program())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
