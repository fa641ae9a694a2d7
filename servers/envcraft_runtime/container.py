"""Inside a Docker container: the trusted server and the agent's commands under different uids.

The Docker launcher (registry/docker_launcher.py) starts the container as root holding only
CAP_SETUID, CAP_SETGID and CAP_KILL, with no-new-privileges, and runs

    python3 -c 'import sys; from envcraft_runtime.container import main; main(sys.argv[1:])' \
        /opt/env/server.py --workspace /workspace

which splits in two at once, so that after the first milliseconds no process in the container
is root:

- PID 1 becomes `nobody` with no capabilities: it reaps orphans, forwards termination signals to
  the server and exits with it;
- the server runs as the server uid of the container's uid block (primary group the same number,
  supplementary WORKSPACE_GID) and keeps CAP_SETUID/CAP_SETGID/CAP_KILL only, to start each agent
  command under a uid of its own and end it.

An agent command runs as one of the block's command uids (group WORKSPACE_GID), one uid per command
in flight; execve leaves it no capability, and RLIMIT_NPROC binds it (it is not root). When the
command returns, everything that uid still runs is killed (`kill(-1)` sent as that uid), so a
daemonized process (setsid, double fork) does not outlive its command.

Without a user namespace these uids are host uids, and the kernel counts per host uid: RLIMIT_NPROC
(processes), pending signals, POSIX message queue bytes, inotify instances. Were two containers to
share a uid, a fork bomb in one would leave the other's commands unable to fork. So every live
container gets a uid block no other live container holds (UidBlock; the launcher claims it in the
engine, registry/docker_uids.py, and passes it in ENVCRAFT_UID_BASE, checked here before anything
runs). The workspace gid is shared: a gid carries no kernel accounting, and each container sees
only its own workspace.

The app state `.app/` is owned by the server uid and group, not group-writable, and mounted on its
own (a mount point cannot be renamed or removed): commands read it but cannot write it, and change
app state only through the operation socket, as under bwrap. The rest of the workspace belongs to
the workspace group (setgid folders, umask 002), so the server's file tools and every command can
write it. The launcher sets this ownership from the host before the container starts.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import functools
import os
import runpy
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterator

from . import settings
from .failures import ToolFailure

WORKSPACE_GID = 10000
COMMAND_SLOTS = 32  # commands in flight per container
UID_BLOCK_ENV = "ENVCRAFT_UID_BASE"
UID_BLOCK_SIZE = 64  # the server uid, then COMMAND_SLOTS command uids
UID_BLOCKS_FIRST = 1_900_000_000  # far above any account (and below unprivileged.py's episode uids)
UID_BLOCKS = 4096  # live containers at most, per engine
NOBODY = 65534
SERVER_TMP = "/run/envcraft"  # a tmpfs of the server's own; the operation socket lives there

_CAP_KILL, _CAP_SETGID, _CAP_SETUID = 5, 6, 7
_PR_SET_NAME, _PR_SET_KEEPCAPS = 15, 8
READY_NAME = b"envcraft-ready"  # the server's process name once it is built (the warm pool waits for it)
_CAPABILITY_VERSION_3 = 0x20080522


@dataclasses.dataclass(frozen=True)
class UidBlock:
    """The host uids one container runs as: its server's, then one per command in flight."""

    index: int

    def __post_init__(self) -> None:
        if not 0 <= self.index < UID_BLOCKS:
            raise ValueError(f"uid block {self.index} is outside 0..{UID_BLOCKS - 1}")

    @property
    def base(self) -> int:
        return UID_BLOCKS_FIRST + self.index * UID_BLOCK_SIZE

    @property
    def server(self) -> int:
        """The server's uid, and its primary gid (which owns `.app/`)."""
        return self.base

    @property
    def commands(self) -> range:
        return range(self.base + 1, self.base + 1 + COMMAND_SLOTS)

    @property
    def uids(self) -> range:
        return range(self.base, self.base + UID_BLOCK_SIZE)

    @classmethod
    def parse(cls, text: str | None) -> UidBlock:
        """The block whose first uid is `text` (ENVCRAFT_UID_BASE), refusing anything else."""
        try:
            base = int(text or "")
        except ValueError:
            base = -1
        offset = base - UID_BLOCKS_FIRST
        if offset < 0 or offset % UID_BLOCK_SIZE or offset // UID_BLOCK_SIZE >= UID_BLOCKS:
            raise ValueError(f"{UID_BLOCK_ENV}={text!r}: the container's first uid must be {UID_BLOCKS_FIRST} + "
                             f"k * {UID_BLOCK_SIZE} for k < {UID_BLOCKS}, one no other live container holds "
                             "(the Docker launcher sets it)")
        return cls(offset // UID_BLOCK_SIZE)

    @classmethod
    def of_this_container(cls) -> UidBlock:
        return cls.parse(settings.current().uid_base)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _set_capabilities(mask: int) -> None:
    """Effective and permitted capabilities become exactly `mask` (only ever lowered); none inheritable."""
    data = (_CapData * 2)(_CapData(mask, mask, 0), _CapData(0, 0, 0))
    if _libc().capset(ctypes.byref(_CapHeader(_CAPABILITY_VERSION_3, 0)), data) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"capset: {os.strerror(error)}")


def _prctl(option: int, value: int) -> None:
    if _libc().prctl(option, value, 0, 0, 0) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"prctl: {os.strerror(error)}")


def become_server(block: UidBlock) -> None:
    """Root -> the block's server uid, keeping CAP_SETUID, CAP_SETGID and CAP_KILL (to end a
    command's process group at its time limit), and nothing else."""
    _prctl(_PR_SET_KEEPCAPS, 1)
    os.setgroups([WORKSPACE_GID])
    os.setresgid(block.server, block.server, block.server)
    os.setresuid(block.server, block.server, block.server)
    _set_capabilities((1 << _CAP_SETUID) | (1 << _CAP_SETGID) | (1 << _CAP_KILL))
    _prctl(_PR_SET_KEEPCAPS, 0)


def become_command_user(uid: int) -> None:
    """In a command's child between fork and exec: its own uid, the workspace group, no capability."""
    os.setgroups([WORKSPACE_GID])
    os.setresgid(WORKSPACE_GID, WORKSPACE_GID, WORKSPACE_GID)
    os.setresuid(uid, uid, uid)
    _set_capabilities(0)


def kill_everything_of(uid: int, rounds: int = 50) -> None:
    """Kill every process `uid` runs, daemons included: a forked helper becomes `uid` and sends
    kill(-1, SIGKILL), which reaches exactly the processes of that uid; repeated until none is left."""
    helper = os.fork()
    if helper == 0:  # the child calls nothing but system calls, then leaves without cleanup
        code = 1
        try:
            os.setresgid(WORKSPACE_GID, WORKSPACE_GID, WORKSPACE_GID)
            os.setresuid(uid, uid, uid)
            _set_capabilities(0)  # without CAP_KILL, kill(-1) reaches that uid's processes only
            for _ in range(rounds):
                try:
                    os.kill(-1, signal.SIGKILL)
                except ProcessLookupError:
                    code = 0
                    break
                time.sleep(0.002)  # what was killed is reaped by PID 1 meanwhile
        finally:
            os._exit(code)
    os.waitpid(helper, 0)


def processes_of(uid: int) -> list[int]:
    """Host pids whose real, effective or saved uid is `uid` (zombies excluded: they run nothing and hold nothing)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status") as f:
                fields = dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)
        except (OSError, ValueError):
            continue
        if fields.get("State", "").strip().startswith("Z"):
            continue
        if str(uid) in fields.get("Uid", "").split()[:3]:
            found.append(int(name))
    return found


class CommandUsers:
    """The uids agent commands run as: one per command in flight, swept clean when it returns."""

    def __init__(self, uids: range):
        self._slots = len(uids)
        self._free = list(reversed(uids))
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def lease(self) -> Iterator[int]:
        with self._lock:
            if not self._free:
                raise ToolFailure(f"{self._slots} commands are already running in this workspace: "
                                  "wait for one to finish")
            uid = self._free.pop()
        try:
            yield uid
        finally:
            kill_everything_of(uid)
            with self._lock:
                self._free.append(uid)


@functools.cache
def command_users() -> CommandUsers:
    """The command uids of this container's block (only the container's server asks)."""
    return CommandUsers(UidBlock.of_this_container().commands)


def _reap_as_pid_one(server: int) -> None:
    """PID 1 as `nobody`: reap every orphan, pass termination on to the server, exit with it."""
    for fd in (0, 1):  # the MCP stream is the server's alone
        os.dup2(os.open(os.devnull, os.O_RDWR), fd)
    os.setgroups([])
    os.setresgid(NOBODY, NOBODY, NOBODY)
    os.setresuid(NOBODY, NOBODY, NOBODY)  # root -> non-root: every capability is gone
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda received, _frame: os.kill(server, received))
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            os._exit(0)
        except InterruptedError:
            continue
        if pid == server:
            os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        raise SystemExit("usage: envcraft_runtime.container.main([SERVER.PY, ARGS...])")
    if os.getuid() != 0:
        raise SystemExit("envcraft_runtime.container splits privileges at the start of a container: "
                         "it must start as root (with CAP_SETUID, CAP_SETGID and CAP_KILL only)")
    try:
        block = UidBlock.of_this_container()  # checked before anything runs
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    server = os.fork()
    if server != 0:
        _reap_as_pid_one(server)
    become_server(block)
    os.umask(0o002)
    # Passed in, not written into the environment: this process's servers run commands in the container itself,
    # and its temporary files go where the server uid may write.
    settings.configure(settings.current().replace(sandbox="container"))
    tempfile.tempdir = SERVER_TMP
    script = os.path.abspath(argv[0])
    sys.argv = [script, *argv[1:]]
    sys.path.insert(0, os.path.dirname(script))
    # Build the server before answering anything, then say so (the warm pool waits for the name):
    # every server in servers/ has build_server(workspace); anything else runs as its own main.
    server = runpy.run_path(script, run_name="envcraft_server")
    if "build_server" in server and "--workspace" in argv and "--http" not in argv:
        built = server["build_server"](argv[argv.index("--workspace") + 1])
        _libc().prctl(_PR_SET_NAME, ctypes.c_char_p(READY_NAME), 0, 0, 0)
        built.run()
    else:
        _libc().prctl(_PR_SET_NAME, ctypes.c_char_p(READY_NAME), 0, 0, 0)
        runpy.run_path(script, run_name="__main__")
