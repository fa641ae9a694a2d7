"""Containment where no cgroup can be made: bwrap commands run as an unprivileged host uid.

Without a cgroup the only bound on a fork bomb is RLIMIT_NPROC, and the kernel exempts root from
it (the sandbox's uid 0 is the host's). So a server running as root gives each episode a host uid
of its own from a range no account uses, and every command of the episode starts as root inside
its namespaces only long enough for `setpriv` to become that uid (no capability, no bounding set,
no new privileges); RLIMIT_NPROC then binds the episode's processes together. The pid namespace
of the command (a new bwrap per command: the cold path) ends whatever it left when it returns,
and everything that uid still runs is killed as well.

The uid must be able to write the workspace: before each command the workspace is handed over to
it (entries not yet its own are chowned, never following a symlink; `.app/` stays the server's and
is mounted read-only anyway). Commands of one episode run one at a time in this mode, so no agent
process runs while that walk does.
"""

from __future__ import annotations

import itertools
import os
import shutil
import threading
from pathlib import Path

from .store import APP_DIR

UID_BASE = 1_990_000_000  # far above any account's uid; one per episode below
UID_SPAN = 1 << 22
HANDOVER_MAX_ENTRIES = 50_000
HANDOVER_MAX_DEPTH = 48

_counter = itertools.count()
_lock = threading.Lock()


def available() -> bool:
    """This process can start commands under another uid (it is root and has setpriv)."""
    return os.geteuid() == 0 and shutil.which("setpriv") is not None


def episode_uid() -> int:
    """A uid for one episode, distinct from this process's other episodes (and, by pid, likely from other processes')."""
    with _lock:
        index = next(_counter)
    return UID_BASE + ((os.getpid() % 1024) * 4096 + index % 4096) % UID_SPAN


def hand_over(workspace: Path, uid: int) -> None:
    """Make every entry of the workspace (but the app state) the uid's own, bounded in entries and depth."""
    seen = 0
    stack = [(str(workspace), 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            if os.lstat(folder).st_uid != uid:
                os.chown(folder, uid, uid, follow_symlinks=False)
            with os.scandir(folder) as entries:
                for entry in entries:
                    seen += 1
                    if seen > HANDOVER_MAX_ENTRIES or (depth == 0 and entry.name == APP_DIR):
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        if depth < HANDOVER_MAX_DEPTH:
                            stack.append((entry.path, depth + 1))
                    elif entry.stat(follow_symlinks=False).st_uid != uid:
                        os.chown(entry.path, uid, uid, follow_symlinks=False)
        except OSError:
            continue  # an entry past PATH_MAX or gone: what the uid made itself is its own already


def drop_to(uid: int, argv: list[str]) -> list[str]:
    """`argv` run as `uid` with nothing left of root."""
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
            "--no-new-privs", *argv]
