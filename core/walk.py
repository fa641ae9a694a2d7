"""The text files of a workspace, read from outside the sandbox for grading: a bounded iterative walk.

An agent can shape its workspace against the grader (a 1,100-level tree, 60,000 files, a FIFO, a
symlink to a host file); this walk never recurses, never follows a link, opens regular files only
(O_NONBLOCK, so a FIFO cannot block it) and stops at fixed depth, entry and byte bounds.
"""

from __future__ import annotations

import contextlib
import os
import stat

MAX_DEPTH = 64
MAX_ENTRIES = 100_000
MAX_FILE_BYTES = 4 * 2**20
MAX_TOTAL_BYTES = 128 * 2**20
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def _read(folder: int, name: str, limit: int) -> bytes | None:
    try:
        fd = os.open(name, _FILE, dir_fd=folder)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        os.set_blocking(fd, True)
        chunks, size = [], 0
        while size < limit and (chunk := os.read(fd, min(1 << 20, limit - size))):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def text_files(root: os.PathLike | str, skip_top: frozenset[str] = frozenset()) -> dict[str, str]:
    """relative path -> text of the regular files under root (top-level names in skip_top left out)."""
    files: dict[str, str] = {}
    budget, entries = MAX_TOTAL_BYTES, 0
    try:
        top = os.open(root, _DIR)
    except OSError:
        return files
    stack: list[tuple[int, str, int]] = [(top, "", 0)]
    try:
        while stack:
            fd, prefix, depth = stack.pop()
            try:
                with os.scandir(fd) as scan:
                    names = []
                    for entry in scan:
                        entries += 1
                        if entries > MAX_ENTRIES:
                            break
                        if not prefix and entry.name in skip_top:
                            continue
                        names.append((entry.name, entry.is_dir(follow_symlinks=False)))
                for name, is_dir in sorted(names):
                    if is_dir:
                        if depth + 1 < MAX_DEPTH:
                            with contextlib.suppress(OSError):
                                stack.append((os.open(name, _DIR, dir_fd=fd), f"{prefix}{name}/", depth + 1))
                    elif budget > 0 and (data := _read(fd, name, min(MAX_FILE_BYTES, budget))) is not None:
                        budget -= len(data)
                        files[prefix + name] = data.decode("utf-8", "replace")
            finally:
                os.close(fd)
    finally:
        for fd, _, _ in stack:
            os.close(fd)
    return dict(sorted(files.items()))
