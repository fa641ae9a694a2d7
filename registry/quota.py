"""Workspace disk and inode quotas: every workspace is a small tmpfs of its own.

A tmpfs mount takes well under a millisecond, is enforced by the kernel for every writer (file
tools, the bwrap shell, a Docker container binding the folder) and caps bytes (`size=`) and files
(`nr_inodes=`) separately; a full workspace fails writes with ENOSPC, which the file tools turn
into an error saying the workspace is full. Its pages are memory, charged to the episode's cgroup
when the shell writes them, so the per-episode memory cap bounds them too. Where mounting is not
allowed (not root), workspaces are plain folders and `envcraft doctor` says there is no quota.

On by default for workspaces in the registry's own run folders (<tmp>/envcraft/run-*: every
`envcraft run`, `serve`, gateway and bench), which only the registry removes, unmounting first
(registry/removal.py; at exit; a dead registry's by the next start's reap). A caller that puts a
WorkspaceRoot in a folder of its own may remove that folder with `shutil.rmtree`, which cannot
remove a mount point: there the quota is on only with ENVCRAFT_WORKSPACE_QUOTA=1, and the caller
closes the root first (`with WorkspaceRoot(folder) as root:`, as the audit does).
ENVCRAFT_WORKSPACE_QUOTA=0 turns it off everywhere.

Every mount this process made is lazily unmounted at exit and before its folder is removed; the
workspace mounts of a registry killed outright, wherever they are, by the next start
(registry/workspaces.py, unmount_dead_runs).
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import os
import tempfile
import threading
from pathlib import Path

from envcraft.registry.settings import Settings

MS_NOSUID, MS_NODEV = 2, 4
MNT_DETACH = 2

_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
_mounted: set[str] = set()
_lock = threading.Lock()
_refused: str | None = None


def _registry_base() -> str:
    return os.path.realpath(os.path.join(tempfile.gettempdir(), "envcraft"))


def enabled(path: Path | str | None = None, settings: Settings | None = None) -> bool:
    """Whether a workspace at `path` gets a quota (None: whether the registry's own workspaces do)."""
    setting = (settings or Settings.from_env()).workspace_quota
    if _refused is not None or setting == "0":
        return False
    return setting == "1" or path is None or os.path.realpath(str(path)).startswith(_registry_base() + os.sep)


def describe(settings: Settings | None = None) -> str:
    settings = settings or Settings.from_env()
    if settings.workspace_quota == "0":
        return "off (ENVCRAFT_WORKSPACE_QUOTA=0)"
    if _refused:
        return f"none: cannot mount a tmpfs per workspace ({_refused})"
    where = "every workspace" if settings.workspace_quota == "1" else \
        f"every workspace under {_registry_base()} (ENVCRAFT_WORKSPACE_QUOTA=1: under any folder)"
    return f"{settings.workspace_mb} MB and {settings.workspace_files} files per workspace (tmpfs), for {where}"


def mount(path: Path, *, force: bool = False, settings: Settings | None = None) -> bool:
    """Make `path` (a new, empty folder) a tmpfs of the workspace's size; False where that is not possible
    or not wanted (see enabled(); `force` skips the where-check, not the env switch)."""
    global _refused
    settings = settings or Settings.from_env()
    if not (enabled(path, settings) or (force and enabled(None, settings))):
        return False
    path.mkdir(parents=True, exist_ok=True)
    options = f"size={settings.workspace_mb}m,nr_inodes={settings.workspace_files},mode=0755".encode()
    if _libc.mount(b"tmpfs", str(path).encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options) != 0:
        _refused = os.strerror(ctypes.get_errno())
        return False
    with _lock:
        _mounted.add(str(path))
    return True


def probe() -> bool:
    """Can this process give a workspace its quota? (Mounts one on a scratch folder and removes it.)"""
    with tempfile.TemporaryDirectory(prefix="envcraft-quota-probe-") as folder:
        made = mount(Path(folder) / "ws", force=True)
        unmount_under(folder)
    return made


def _unescape(field: str) -> str:
    return field.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")


def mount_points(fstype: str | None = None) -> list[str]:
    """Every mount point of this mount namespace (of one filesystem type, if given)."""
    try:
        with open("/proc/self/mountinfo") as f:
            rows = [line.split() for line in f]
    except OSError:
        return []
    # Fields: id, parent, dev, root, mount point, options, optional fields..., "-", fstype, source, ...
    return [_unescape(row[4]) for row in rows if fstype is None or row[row.index("-") + 1] == fstype]


def unmount(point: str) -> None:
    _libc.umount2(point.encode(), MNT_DETACH)
    with _lock:
        _mounted.discard(point)


def unmount_under(path: Path | str, *, below_only: bool = False) -> None:
    """Detach every mount at (unless below_only) or below `path`, deepest first, so the folder can be removed."""
    prefix = os.path.realpath(str(path))
    points = mount_points()
    for point in sorted((p for p in points if (p == prefix and not below_only) or p.startswith(prefix + "/")), key=len, reverse=True):
        unmount(point)


@atexit.register
def _unmount_all() -> None:
    with _lock:
        points = sorted(_mounted, key=len, reverse=True)
        _mounted.clear()
    for point in points:
        _libc.umount2(point.encode(), MNT_DETACH)
