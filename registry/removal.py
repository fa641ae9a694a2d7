"""Removing what an episode left behind, whatever it made: without recursion, bounded in time.

An agent controls what its workspace holds, so removal must survive any shape of tree: a
10,000-level chain of folders (`shutil.rmtree` recurses and dies with RecursionError; paths
outgrow PATH_MAX), folders without read or write permission, FIFOs, sockets and symlinks (never
followed). Every step is relative to an open directory descriptor with O_NOFOLLOW, and only one
descriptor is open at a time, whatever the depth; going back up, the parent is found again
through '..' and checked against the device and inode it had on the way down, so a folder moved
meanwhile stops the removal rather than leading it elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from envcraft.registry import quota

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class RemovalIncomplete(Exception):
    """Removal stopped at its time budget or on an entry it could not remove; what is left is named."""


@dataclass
class _Level:
    """One folder on the current path: who it is, and the subfolders it still holds."""

    identity: tuple[int, int]  # (st_dev, st_ino)
    name: str  # its name in the parent ("" for the top)
    pending: list[str] = field(default_factory=list)


def _open_dir(name: str, dir_fd: int | None) -> int:
    try:
        return os.open(name, DIR_FLAGS, dir_fd=dir_fd)
    except PermissionError:  # a folder the agent made unreadable: we own it, so open it up
        os.chmod(name, 0o700, dir_fd=dir_fd, follow_symlinks=False)
        return os.open(name, DIR_FLAGS, dir_fd=dir_fd)


def _unlink(name: str, dir_fd: int) -> None:
    try:
        os.unlink(name, dir_fd=dir_fd)
    except PermissionError:  # a folder without write permission
        os.fchmod(dir_fd, 0o700)
        os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass


def _rmdir(name: str, dir_fd: int) -> None:
    try:
        os.rmdir(name, dir_fd=dir_fd)
    except PermissionError:
        os.fchmod(dir_fd, 0o700)
        os.rmdir(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass


def clear(path: Path | str, *, keep: frozenset[str] = frozenset(), seconds: float = 30.0) -> None:
    """Remove everything inside `path` except the top-level names in `keep`; `path` itself stays.

    Raises RemovalIncomplete if the time budget runs out or an entry resists removal.
    """
    quota.unmount_under(path, below_only=True)  # workspaces below may be tmpfs mounts of their own
    deadline = time.monotonic() + seconds
    fd = _open_dir(str(path), None)
    stack = [_Level(_identity(fd), "")]
    try:
        _scan(fd, stack[0], keep)
        while True:
            if time.monotonic() > deadline:
                raise RemovalIncomplete(f"{path}: not empty after {seconds:.0f}s; the rest is left for a later pass")
            level = stack[-1]
            if level.pending:  # down into the next subfolder
                name = level.pending.pop()
                try:
                    child = _open_dir(name, fd)
                except FileNotFoundError:
                    continue
                except NotADirectoryError:  # replaced by a file or symlink since the scan
                    _unlink(name, fd)
                    continue
                os.close(fd)
                fd = child
                stack.append(_Level(_identity(fd), name))
                _scan(fd, stack[-1])
                continue
            if len(stack) == 1:
                return
            parent = os.open("..", DIR_FLAGS, dir_fd=fd)  # back up, to the folder we came from
            stack.pop()
            if _identity(parent) != stack[-1].identity:
                os.close(parent)
                raise RemovalIncomplete(f"{path}: a folder was moved during removal; stopped rather than follow it")
            os.close(fd)
            fd = parent
            _rmdir(level.name, fd)
    except OSError as exc:
        raise RemovalIncomplete(f"{path}: could not remove everything ({exc})") from exc
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)


def _scan(fd: int, level: _Level, keep: frozenset[str] = frozenset()) -> None:
    """Unlink every entry of this folder that is not a folder; remember the subfolders."""
    try:
        entries = list(os.scandir(fd))
    except PermissionError:  # a folder the agent made unreadable
        os.fchmod(fd, 0o700)
        entries = list(os.scandir(fd))
    for entry in entries:
        if entry.name in keep:
            continue
        if entry.is_dir(follow_symlinks=False):
            level.pending.append(entry.name)
        else:
            _unlink(entry.name, fd)


def _identity(fd: int) -> tuple[int, int]:
    info = os.fstat(fd)
    return info.st_dev, info.st_ino


def remove(path: Path | str, *, seconds: float = 30.0) -> None:
    """Remove `path`, a folder tree or any other entry, without following symlinks. Missing is fine."""
    path = str(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(info.st_mode):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        return
    quota.unmount_under(path)  # a workspace may be a tmpfs of its own
    clear(path, seconds=seconds)
    try:
        os.rmdir(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise RemovalIncomplete(f"{path}: {exc}") from exc
