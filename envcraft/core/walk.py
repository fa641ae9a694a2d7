"""The text files of a workspace, read from outside the sandbox for grading: a bounded iterative walk.

An agent can shape its workspace against the grader (a 1,100-level tree, 60,000 files, 20,000 sibling folders,
a FIFO, a symlink to a host file); this walk never recurses, never follows a link, opens regular files only
(O_NONBLOCK, so a FIFO cannot block it) and stops at fixed depth, entry and byte bounds. It holds at most
MAX_DEPTH + 2 descriptors whatever the tree's width: the folders still to visit are kept as names, and only the
chain of folders from the root to the one being read is open (each reopened component by component, O_NOFOLLOW,
relative to its parent), so a wide tree cannot exhaust the process's descriptors.
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


class _Chain:
    """The open folders from the root down to the one being read: entering a folder closes what is not on its
    path and opens the rest, one component at a time, never through a link."""

    def __init__(self, top: int):
        self.names: list[str] = []
        self.fds = [top]

    def enter(self, names: tuple[str, ...]) -> int:
        shared = 0
        while shared < min(len(names), len(self.names)) and names[shared] == self.names[shared]:
            shared += 1
        while len(self.names) > shared:
            self.names.pop()
            os.close(self.fds.pop())
        for name in names[shared:]:
            self.fds.append(os.open(name, _DIR, dir_fd=self.fds[-1]))  # OSError: it changed or went; skipped
            self.names.append(name)
        return self.fds[-1]

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds, self.names = [], []


def text_files(root: os.PathLike | str, skip_top: frozenset[str] = frozenset()) -> dict[str, str]:
    """relative path -> text of the regular files under root (top-level names in skip_top left out)."""
    files: dict[str, str] = {}
    budget, entries = MAX_TOTAL_BYTES, 0
    try:
        chain = _Chain(os.open(root, _DIR))
    except OSError:
        return files
    stack: list[tuple[str, ...]] = [()]  # folders still to read, as names from the root: no descriptor each
    try:
        while stack and entries <= MAX_ENTRIES:
            names = stack.pop()
            try:
                fd = chain.enter(names)
            except OSError:
                continue
            prefix = "".join(f"{name}/" for name in names)
            found = []
            with contextlib.suppress(OSError), os.scandir(fd) as scan:
                for entry in scan:
                    entries += 1
                    if entries > MAX_ENTRIES:
                        break
                    if not names and entry.name in skip_top:
                        continue
                    found.append((entry.name, entry.is_dir(follow_symlinks=False)))
            folders = []
            for name, is_dir in sorted(found):
                if is_dir:
                    if len(names) + 1 < MAX_DEPTH:
                        folders.append((*names, name))
                elif budget > 0 and (data := _read(fd, name, min(MAX_FILE_BYTES, budget))) is not None:
                    budget -= len(data)
                    files[prefix + name] = data.decode("utf-8", "replace")
            stack.extend(reversed(folders))  # depth first, in name order
    finally:
        chain.close()
    return dict(sorted(files.items()))
