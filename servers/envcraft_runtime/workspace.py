"""Workspace files: what the file tools may touch is one directory and nothing outside it.

Every access walks from the workspace's own descriptor one component at a time (fdpath.py), so a
symlink swapped in by the agent's shell between a check and a use is never followed. Only regular
files are read or written (a FIFO cannot hang a worker), writes land through a temporary file
renamed into place (never half-written, never through a link), and the app state under `.app/`
is recognised by its inode on the walk itself, not by a name checked beforehand. Walks are
iterative and bounded in depth, entries and time; searches are bounded in bytes.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import os
import re
import stat
import time
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from .failures import ToolFailure
from .fdpath import (
    DIR_FLAGS,
    MAX_DEPTH,
    READ_FLAGS,
    Identity,
    identity,
    open_dir,
    parts_of,
    refuse_not_regular,
    walk_error,
)
from .regex import compile_linear, search_lines
from .store import APP_DIR

MAX_READ_CHARS = 100_000
MAX_WRITE_BYTES = 2_000_000
MAX_MATCHES = 200
MAX_LIST_ENTRIES = 1_000
MAX_GLOB_CHARS = 256
WALK_MAX_ENTRIES = 50_000
WALK_SECONDS = 5.0
GREP_MAX_BYTES = 32 * 2**20  # read per grep call, over all files
GREP_LINE_CHARS = 300  # shown per matching line
FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


class _Budget:
    """Entries and seconds a walk may spend; when spent, it stops and says why."""

    def __init__(self, entries: int = WALK_MAX_ENTRIES, seconds: float = WALK_SECONDS):
        self.entries, self.deadline = entries, time.monotonic() + seconds
        self.stopped: str | None = None

    def spend(self) -> bool:
        self.entries -= 1
        if self.entries < 0:
            self.stopped = f"stopped after {WALK_MAX_ENTRIES} entries"
        elif time.monotonic() > self.deadline:
            self.stopped = f"stopped after {WALK_SECONDS:.0f}s"
        return self.stopped is None

    def note(self, found: list[str]) -> list[str]:
        if self.stopped:
            found.append(f"[search {self.stopped}: give a narrower path or pattern]")
        return found


def _iter_lines(stream: BinaryIO, cap: int) -> Iterator[bytes]:
    """Lines (each cut at `cap` bytes, the rest of an overlong line skipped): memory stays bounded."""
    while True:
        line = stream.readline(cap)
        if not line:
            return
        if len(line) == cap and not line.endswith(b"\n"):
            while (rest := stream.readline(cap)) and not rest.endswith(b"\n"):
                pass
        yield line


def _full(exc: OSError) -> ToolFailure:
    return ToolFailure("the workspace is full (its disk or file-count quota is used up): delete files you no longer "
                       f"need, then try again ({os.strerror(exc.errno or 0)})")


class Workspace:
    """A directory the agent may read and write, and nothing outside it."""

    def __init__(self, root: Path | str):
        self.root = Path(root).resolve()

    # ------------------------------------------------------------ descriptors

    @contextlib.contextmanager
    def _root_fd(self) -> Iterator[int]:
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            yield fd
        finally:
            os.close(fd)

    @staticmethod
    def _app_identity(root_fd: int) -> Identity | None:
        try:
            return identity(os.stat(APP_DIR, dir_fd=root_fd, follow_symlinks=False))
        except OSError:
            return None

    @contextlib.contextmanager
    def _open_file(self, path: str) -> Iterator[tuple[BinaryIO, os.stat_result]]:
        """A regular file of the workspace opened for reading, never through a link, never a FIFO."""
        parts = parts_of(path)
        with self._root_fd() as root, open_dir(root, parts[:-1], path) as parent:
            try:
                fd = os.open(parts[-1], READ_FLAGS, dir_fd=parent)
            except OSError as exc:
                raise walk_error(exc, path) from None
            with os.fdopen(fd, "rb") as stream:
                st = os.fstat(fd)
                refuse_not_regular(st, path)
                os.set_blocking(fd, True)
                yield stream, st

    # ------------------------------------------------------------ tools

    def read(self, path: str, offset: int = 0, limit: int = 2000) -> str:
        offset, limit = max(int(offset), 0), max(int(limit), 1)
        with self._open_file(path) as (stream, st):
            if b"\x00" in stream.read(4096):
                raise ToolFailure(f"'{path}' is a binary file ({st.st_size} bytes) and cannot be shown as text")
            stream.seek(0)
            chosen, size = [], 0
            for number, line in enumerate(_iter_lines(stream, MAX_READ_CHARS * 4 + 1)):
                if number < offset:
                    continue
                if number >= offset + limit or size > MAX_READ_CHARS:
                    break
                chosen.append(line)
                size += len(line)
        text = b"".join(chosen).decode("utf-8", errors="replace")
        if len(text) > MAX_READ_CHARS:
            text = text[:MAX_READ_CHARS] + f"\n[... cut at {MAX_READ_CHARS} characters: read less with offset/limit]"
        return text

    def _read_whole(self, path: str) -> str:
        """The whole text of a file, for an edit: never cut (a cut file written back would lose its tail)."""
        with self._open_file(path) as (stream, st):
            data = stream.read(MAX_WRITE_BYTES + 1)
        if len(data) > MAX_WRITE_BYTES:
            raise ToolFailure(f"'{path}' is {st.st_size} bytes; edit_file edits files up to {MAX_WRITE_BYTES} bytes: "
                              "use the shell (e.g. sed) or write_file for a file this large")
        if b"\x00" in data[:4096]:
            raise ToolFailure(f"'{path}' is a binary file and cannot be edited as text")
        return data.decode("utf-8", errors="replace")

    def write(self, path: str, content: str) -> int:
        data = content.encode("utf-8")
        if len(data) > MAX_WRITE_BYTES:
            raise ToolFailure(f"content is {len(data)} bytes; the limit is {MAX_WRITE_BYTES}: write a smaller file")
        parts = parts_of(path)
        with self._root_fd() as root:
            app = self._app_identity(root)
            if parts == [APP_DIR] or (parts and parts[0] == APP_DIR):
                raise ToolFailure("the app's own data under .app/ changes only through the domain tools or CLI verbs")
            with open_dir(root, parts[:-1], path, create=True, forbidden=app) as parent:
                self._replace(parent, parts[-1], data, path)
        return len(data)

    @staticmethod
    def _replace(parent: int, name: str, data: bytes, shown: str) -> None:
        """Write a temporary file beside `name` and rename it over: the name never points to a half-written
        file, and whatever `name` was (a link swapped in, a hard link) is replaced, never written through."""
        mode = 0o644
        try:
            st = os.stat(name, dir_fd=parent, follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                raise ToolFailure(f"'{shown}' is a directory: choose a file name inside it")
            if not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
                refuse_not_regular(st, shown)
            if stat.S_ISREG(st.st_mode):
                mode = st.st_mode & 0o777
        except FileNotFoundError:
            pass
        temp = f".{name[:100]}.{uuid.uuid4().hex[:8]}.envcraft-tmp"
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=parent)
        except OSError as exc:
            raise (_full(exc) if exc.errno in FULL else walk_error(exc, shown)) from None
        try:
            with os.fdopen(fd, "wb") as stream:
                stream.write(data)
            os.rename(temp, name, src_dir_fd=parent, dst_dir_fd=parent)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=parent)
            if exc.errno in FULL:
                raise _full(exc) from None
            if exc.errno in (errno.EISDIR, errno.ENOTEMPTY, errno.EEXIST):
                raise ToolFailure(f"'{shown}' is a directory: choose a file name inside it") from None
            raise walk_error(exc, shown) from None

    def edit(self, path: str, old: str, new: str, replace_all: bool = False) -> int:
        text = self._read_whole(path)
        count = text.count(old) if old else 0
        if count == 0:
            raise ToolFailure(f"the text to replace was not found in '{path}': read the file and copy it exactly")
        if count > 1 and not replace_all:
            raise ToolFailure(f"the text occurs {count} times in '{path}': add context to make it unique, or set replace_all")
        self.write(path, text.replace(old, new) if replace_all else text.replace(old, new, 1))
        return count if replace_all else 1

    def list(self, path: str = ".") -> list[str]:
        parts = [] if path in (".", "./", "") else parts_of(path)
        budget = _Budget()
        entries: list[str] = []
        with self._root_fd() as root, open_dir(root, parts, path) as folder, os.scandir(folder) as scan:
            for entry in scan:
                if not budget.spend():
                    break
                if entry.name == APP_DIR and not parts:
                    continue
                entries.append(entry.name + "/" if entry.is_dir(follow_symlinks=False) else entry.name)
        entries.sort()
        if len(entries) > MAX_LIST_ENTRIES:
            more = len(entries) - MAX_LIST_ENTRIES
            entries = entries[:MAX_LIST_ENTRIES] + [f"[... {more} more entries: use find_files with a pattern]"]
        return budget.note(entries)

    def _walk(self, root: int, parts: list[str], shown: str, budget: _Budget) -> Iterator[tuple[int, str, str]]:
        """(folder descriptor, file name, relative path) for the regular files under `parts`, sorted,
        depth first; skips the app state and links. At most MAX_DEPTH folders are open at once."""
        with open_dir(root, parts, shown) as top:
            frames: list[tuple[int, str, list[str]]] = []  # (fd, relative path, sub-folders still to visit)

            def enter(fd: int, rel: str, depth: int) -> Iterator[tuple[int, str, str]]:
                files, dirs = [], []
                with os.scandir(fd) as scan:
                    for entry in scan:
                        if not budget.spend():
                            break
                        if entry.is_dir(follow_symlinks=False):
                            if not (rel == "" and entry.name == APP_DIR) and depth < MAX_DEPTH:
                                dirs.append(entry.name)
                        elif entry.is_file(follow_symlinks=False):
                            files.append(entry.name)
                frames.append((fd, rel, sorted(dirs, reverse=True)))
                for name in sorted(files):
                    yield fd, name, f"{rel}/{name}" if rel else name

            try:
                yield from enter(os.dup(top), "/".join(parts), len(parts))
                while frames and budget.stopped is None:
                    fd, rel, todo = frames[-1]
                    if not todo:
                        os.close(frames.pop()[0])
                        continue
                    name = todo.pop()
                    try:
                        child = os.open(name, DIR_FLAGS, dir_fd=fd)
                    except OSError:  # swapped for a link, removed, unreadable: not ours to follow
                        continue
                    yield from enter(child, f"{rel}/{name}" if rel else name, len(frames) + len(parts))
            finally:
                for fd, _, _ in frames:
                    os.close(fd)

    def find(self, pattern: str, path: str = ".") -> list[str]:
        if len(pattern) > MAX_GLOB_CHARS:
            raise ToolFailure(f"the pattern is {len(pattern)} characters; the limit is {MAX_GLOB_CHARS}: use a shorter glob")
        match = re.compile(fnmatch.translate(pattern)).match  # compiled once; fnmatch's own cache keeps nothing
        parts = [] if path in (".", "./", "") else parts_of(path)
        budget, found = _Budget(), []
        with self._root_fd() as root:
            for _, name, rel in self._walk(root, parts, path, budget):
                if match(rel) or match(name):
                    found.append(rel)
                    if len(found) >= MAX_MATCHES:
                        break
        return budget.note(found)

    def grep(self, pattern: str, path: str = ".", glob: str = "*") -> list[str]:
        """Matches of `pattern` in the file `path`, or in the files under the folder `path` whose name fits `glob`."""
        if len(glob) > MAX_GLOB_CHARS:
            raise ToolFailure(f"the glob is {len(glob)} characters; the limit is {MAX_GLOB_CHARS}: use a shorter one")
        engine = compile_linear(pattern)
        wanted = re.compile(fnmatch.translate(glob)).match
        parts = [] if path in (".", "./", "") else parts_of(path)
        budget = _Budget()
        with self._root_fd() as root:
            if parts and self._is_file(root, parts, path):
                with open_dir(root, parts[:-1], path) as parent:
                    return self._search(engine, [(parent, parts[-1], "/".join(parts))], budget)
            files = ((fd, name, rel) for fd, name, rel in self._walk(root, parts, path, budget) if wanted(name))
            return self._search(engine, files, budget)

    @classmethod
    def _search(cls, engine: object, files: Iterable[tuple[int, str, str]], budget: _Budget) -> list[str]:
        matches: list[str] = []
        left = GREP_MAX_BYTES
        for fd, name, rel in files:
            lines = cls._text_lines(fd, name, left)
            if lines is None:
                continue
            left -= sum(len(line) + 1 for line in lines)
            for number in search_lines(engine, lines, budget.deadline):
                matches.append(f"{rel}:{number + 1}:{lines[number][:GREP_LINE_CHARS]}")
                if len(matches) >= MAX_MATCHES:
                    return matches
            if left <= 0 or time.monotonic() > budget.deadline:
                budget.stopped = budget.stopped or f"stopped after reading {GREP_MAX_BYTES // 2**20} MB or {WALK_SECONDS:.0f}s"
                break
        return budget.note(matches)

    @staticmethod
    def _is_file(root: int, parts: list[str], shown: str) -> bool:
        """Whether `parts` names a file rather than a folder (FIFOs and the like are refused)."""
        with open_dir(root, parts[:-1], shown) as parent:
            try:
                st = os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
            except OSError as exc:
                raise walk_error(exc, shown) from None
        if stat.S_ISDIR(st.st_mode):
            return False
        refuse_not_regular(st, shown)
        return True

    @staticmethod
    def _text_lines(folder: int, name: str, left: int) -> list[str] | None:
        """The lines of a regular text file (None for anything else), reading at most `left` bytes."""
        try:
            fd = os.open(name, READ_FLAGS, dir_fd=folder)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as stream:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            os.set_blocking(fd, True)
            data = stream.read(max(left, 0))
        if b"\x00" in data[:4096]:
            return None
        return data.decode("utf-8", errors="replace").splitlines()
