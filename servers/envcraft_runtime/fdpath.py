"""Paths resolved one component at a time from an open directory, never by name from the root.

A name-based check (`is_symlink()` on a path) and a later open of the same path are two steps an
agent's shell can race with a rename (RENAME_EXCHANGE swaps a folder and a symlink atomically).
Here each component is opened relative to its parent's descriptor with O_NOFOLLOW, so what is
checked is what is used: a symlink anywhere fails the open, whatever it pointed to a moment ago.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import PurePosixPath

from .failures import ToolFailure

MAX_PATH_CHARS = 4096
MAX_NAME_BYTES = 255
MAX_DEPTH = 64  # file tools go no deeper than this; the shell may, the walks stop here

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO cannot hang the open

Identity = tuple[int, int]  # (st_dev, st_ino)


def parts_of(path: str) -> list[str]:
    """An agent-supplied relative path as its components, or a ToolFailure saying how to fix it."""
    if not isinstance(path, str) or not path.strip():
        raise ToolFailure("path is empty: give a path relative to the workspace, e.g. 'notes/todo.md'")
    if len(path) > MAX_PATH_CHARS:
        raise ToolFailure(f"path is {len(path)} characters; the limit is {MAX_PATH_CHARS}: use a shorter path")
    if "\x00" in path:
        raise ToolFailure("path contains a NUL byte: give a plain relative path")
    if path.startswith(("/", "~")):
        raise ToolFailure(f"'{path[:200]}' is absolute: paths are relative to the workspace root, e.g. 'docs/plan.md'")
    parts = [p for p in PurePosixPath(path).parts if p not in ("", ".")]
    if ".." in parts:
        raise ToolFailure(f"'{path[:200]}' leaves the workspace ('..' is not allowed): use a path inside it")
    if len(parts) > MAX_DEPTH:
        raise ToolFailure(f"'{path[:80]}...' is {len(parts)} folders deep; file tools go at most {MAX_DEPTH} deep")
    for part in parts:
        if len(part.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
            raise ToolFailure(f"a name in '{path[:80]}...' is longer than {MAX_NAME_BYTES} bytes: use a shorter name")
    return parts


def identity(st: os.stat_result) -> Identity:
    return (st.st_dev, st.st_ino)


def refuse_not_regular(st: os.stat_result, shown: str) -> None:
    if stat.S_ISDIR(st.st_mode):
        raise ToolFailure(f"'{shown}' is a directory: use list_dir to see what it holds")
    if not stat.S_ISREG(st.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode) else "a device"
        raise ToolFailure(f"'{shown}' is {kind}, not a regular file: file tools read and write regular files only")


def walk_error(exc: OSError, shown: str) -> ToolFailure:
    if exc.errno in (errno.ELOOP, errno.EMLINK):
        return ToolFailure(f"'{shown}' goes through a symlink, which file tools do not follow")
    if exc.errno == errno.ENOTDIR:
        return ToolFailure(f"'{shown}' goes through something that is not a folder (a file or a symlink)")
    if exc.errno == errno.ENOENT:
        return ToolFailure(f"'{shown}' does not exist: use list_dir or find_files to locate it")
    if exc.errno == errno.ENOSPC or exc.errno == errno.EDQUOT:
        return ToolFailure("the workspace is full (its disk or file-count quota is used up): delete files you no longer need")
    return ToolFailure(f"'{shown}' cannot be opened ({os.strerror(exc.errno or 0)})")


@contextlib.contextmanager
def open_dir(root_fd: int, parts: list[str], shown: str, create: bool = False,
             forbidden: Identity | None = None) -> Iterator[int]:
    """A descriptor of the folder `parts` under root_fd (made on the way if `create`).

    `forbidden`: a folder no component may be (the app state): checked on each opened descriptor,
    so a rename between steps cannot slip past it.
    """
    fd = os.dup(root_fd)
    try:
        try:
            for part in parts:
                try:
                    child = os.open(part, DIR_FLAGS, dir_fd=fd)
                except FileNotFoundError:
                    if not create:
                        raise
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(part, 0o755, dir_fd=fd)
                    child = os.open(part, DIR_FLAGS, dir_fd=fd)  # O_NOFOLLOW again: a swapped-in link fails here
                os.close(fd)
                fd = child
                if forbidden is not None and identity(os.fstat(fd)) == forbidden:
                    raise ToolFailure("the app's own data under .app/ changes only through the domain tools or CLI verbs")
        except OSError as exc:
            raise walk_error(exc, shown) from None
        yield fd
    finally:
        os.close(fd)
