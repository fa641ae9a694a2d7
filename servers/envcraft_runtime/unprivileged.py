"""Every bwrap command of a root server runs as an unprivileged host uid of its episode's own.

The kernel keeps several budgets per host user, not per namespace: epoll watches
(fs.epoll.max_user_watches, no exemption even for root), pipe buffer pages (fs.pipe-user-pages-*),
POSIX message queue bytes (RLIMIT_MSGQUEUE, charged up the user-namespace tree to whoever made the
namespace), pending signals, inotify instances, RLIMIT_NPROC (which root is exempt from). A sandbox
whose uid 0 is host root (bwrap started by a root server) charges all of them to host root: one
episode could use up what every root process on the host, the gateway included, shares. So a root
server gives each episode a host uid of its own, from a range no account uses, and the sandbox is
set up as root (bwrap needs root to bind paths under /root or a 0700 temp folder) with no user
namespace, then `setpriv` becomes that uid (no capability, no bounding set, no new privileges)
before anything of the agent's runs: the warm runner (warm.py), or each cold command. The
sandbox's own namespaces (pid, net, ipc, mount, uts, cgroup) belong to the host's user namespace,
so nothing is charged past the episode's uid. Commands see that uid (`id -u`), not 0. The runner joins each
command's cgroup leaf through a descriptor the server (root) opened: cgroup v1 and v2 check the opener's
credentials (v2 since Linux 5.16; an older v2 kernel refuses the uid, and warm commands then fail to start).

The uid must be able to write the workspace: before each command the workspace is handed over to
it (entries not yet its own are chowned). The walk opens each folder relative to its parent with
O_NOFOLLOW and chowns names relative to that descriptor without following them, so a command
running meanwhile (warm commands may run in parallel) cannot swap a symlink in and have host files
chowned. `.app/` stays the server's and is mounted read-only anyway. The server (root) reads,
grades, resets and deletes whatever the uid owns.

Two live episodes never share a uid, across every server process of the host: an episode claims its uid with an
exclusive lock on a file named for it in a root-only folder (/run/envcraft-episode-uids), held until the episode's
shell closes (its leftovers killed first) or its process ends, and the next claim takes the lowest free one.

A server that is not root starts bwrap as its own uid, which makes a user namespace: the budgets
are that uid's, never host root's. A root server without setpriv runs commands as before, charged
to host root (`envcraft doctor` says so).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
import threading
import time
import weakref
from pathlib import Path

from . import settings
from .store import APP_DIR

UID_BASE = 1_990_000_000  # far above any account's uid; one per episode below
UID_SPAN = 1 << 22
HANDOVER_MAX_ENTRIES = 50_000
HANDOVER_MAX_DEPTH = 48
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC

CLAIMS_ENV = "ENVCRAFT_EPISODE_UID_CLAIMS"  # the folder of claims (default: /run/envcraft-episode-uids)
_FILE_FLAGS = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC

_held: set[tuple[int, int]] = set()  # (claims folder inode, index) this process holds: skipped without a system call
_lock = threading.RLock()  # reentrant: a dropped claim may be finalized by a collection during a claim


def available() -> bool:
    """This process can start commands under another uid (it is root and has setpriv)."""
    return os.geteuid() == 0 and shutil.which("setpriv") is not None


class EpisodeUid:
    """A host uid one live episode holds: no other live episode, of this process or of any other server on the
    host, is given it until release() (or until this process ends: the kernel drops its locks)."""

    def __init__(self, held: tuple[int, int], fd: int):
        self.uid = UID_BASE + held[1]
        self._finalizer = weakref.finalize(self, _free, held, fd)  # an episode dropped unclosed frees it too

    def release(self) -> None:
        self._finalizer()


def _free(held: tuple[int, int], fd: int) -> None:
    with _lock:
        os.close(fd)  # the lock goes with the descriptor; the file stays for the next claim (no unlink race)
        _held.discard(held)


def _claims_folder() -> int:
    """The claims folder, opened without following links; made 0700 by this (root) process, refused if anyone
    else owns it (another user could otherwise hold every claim, or read who holds what)."""
    path = settings.current().uid_claims or ("/run/envcraft-episode-uids" if os.path.isdir("/run")
                                          else os.path.join(tempfile.gettempdir(), "envcraft-episode-uids"))
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o700)
    fd = os.open(path, _DIR_FLAGS)
    info = os.fstat(fd)
    if info.st_uid != os.geteuid() or info.st_mode & 0o022:
        os.close(fd)
        raise PermissionError(f"{path} is not this server's own folder (owner {info.st_uid}, mode {info.st_mode:o})")
    return fd


def claim_episode_uid() -> EpisodeUid:
    """The lowest episode uid no live episode holds, claimed by an exclusive lock on its file in the claims folder.
    A claim held by another process is seen as a lock that cannot be taken; one of this process is not tried."""
    with _lock:
        folder = _claims_folder()
        inode = os.fstat(folder).st_ino
        try:
            for index in range(UID_SPAN):
                if (inode, index) in _held:
                    continue
                fd = os.open(str(index), _FILE_FLAGS, 0o600, dir_fd=folder)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                    continue
                _held.add((inode, index))
                return EpisodeUid((inode, index), fd)
        finally:
            os.close(folder)
    raise OSError(f"all {UID_SPAN} episode uids are held")


class Listed:
    """What one episode's walks found: folder (dev, inode) -> (ctime, subfolder names) of a folder listed in full.
    A folder whose ctime is unchanged has had no entry added, removed or renamed since (only the server makes
    entries the uid does not own, and a new entry changes its folder's ctime), so the next walk only descends
    into its subfolders: a workspace of 20,000 files costs a few hundred system calls per command, not 40,000."""

    MAX = 100_000

    def __init__(self) -> None:
        self.folders: dict[tuple[int, int], tuple[int, list[str]]] = {}


# A ctime this recent may be shared, at the clock's coarse granularity, by a change made just after it was read:
# such a folder is listed again next time.
_SETTLED_NS = 100_000_000


def hand_over(workspace: Path, uid: int, listed: Listed | None = None) -> None:
    """Make every entry of the workspace (but the app state) the uid's own, bounded in entries and depth.
    Depth first, holding one descriptor per level (never one per folder seen)."""
    try:
        top = os.open(workspace, _DIR_FLAGS)
    except OSError:
        return
    if listed is not None and len(listed.folders) > Listed.MAX:
        listed.folders.clear()
    budget = [HANDOVER_MAX_ENTRIES]
    stack = [(top, _claim(top, uid, budget, listed, top=True))]
    while stack:
        fd, folders = stack[-1]
        if not folders or len(stack) > HANDOVER_MAX_DEPTH:
            os.close(fd)
            stack.pop()
            continue
        try:
            child = os.open(folders.pop(), _DIR_FLAGS, dir_fd=fd)  # a symlink swapped in fails here (O_NOFOLLOW)
        except OSError:
            continue
        stack.append((child, _claim(child, uid, budget, listed)))


def _claim(fd: int, uid: int, budget: list[int], listed: Listed | None, top: bool = False) -> list[str]:
    """Chown the folder open at `fd` and its other entries to `uid`; the names of its subfolders, to visit."""
    folders: list[str] = []
    with contextlib.suppress(OSError):
        info = os.fstat(fd)
        if info.st_uid != uid:
            os.fchown(fd, uid, uid)
            info = os.fstat(fd)  # the chown changed its ctime
        key = (info.st_dev, info.st_ino)
        if listed is not None and (known := listed.folders.get(key)) and known[0] == info.st_ctime_ns:
            return list(known[1])
        complete = True
        with os.scandir(fd) as entries:
            for entry in entries:
                budget[0] -= 1
                if budget[0] < 0:
                    complete = False
                    break
                if top and entry.name == APP_DIR:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.name)
                    continue
                found = entry.stat(follow_symlinks=False)
                if found.st_uid != uid and found.st_nlink == 1:  # a hard link's other name may be anywhere on this file system
                    try:
                        os.chown(entry.name, uid, uid, dir_fd=fd, follow_symlinks=False)
                    except OSError:  # gone or replaced meanwhile: its folder's ctime changed, the next walk sees it
                        complete = False
        if listed is not None and complete and info.st_ctime_ns < time.time_ns() - _SETTLED_NS:
            listed.folders[key] = (info.st_ctime_ns, list(folders))
    return folders


def drop_to(uid: int, argv: list[str]) -> list[str]:
    """`argv` run as `uid` with nothing left of root."""
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
            "--no-new-privs", *argv]
