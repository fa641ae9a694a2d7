"""Workspace files: what the file tools may touch is one directory and nothing outside it."""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator
from pathlib import Path

from .failures import ToolFailure
from .store import APP_DIR

MAX_READ_CHARS = 100_000
MAX_WRITE_BYTES = 2_000_000
MAX_MATCHES = 200


class Workspace:
    """A directory the agent may read and write, and nothing outside it."""

    def __init__(self, root: Path | str):
        self.root = Path(root).resolve()

    def resolve(self, path: str) -> Path:
        """Map an agent-supplied relative path to a real path inside the workspace."""
        if not isinstance(path, str) or not path.strip():
            raise ToolFailure("path is empty: give a path relative to the workspace, e.g. 'notes/todo.md'")
        if "\x00" in path:
            raise ToolFailure("path contains a NUL byte: give a plain relative path")
        if path.startswith(("/", "~")):
            raise ToolFailure(f"'{path}' is absolute: paths are relative to the workspace root, e.g. 'docs/plan.md'")
        parts = [p for p in Path(path).parts if p not in ("", ".")]
        if ".." in parts:
            raise ToolFailure(f"'{path}' leaves the workspace ('..' is not allowed): use a path inside it")
        current = self.root
        for part in parts:
            current = current / part
            if current.is_symlink():
                raise ToolFailure(f"'{path}' goes through a symlink, which file tools do not follow")
        return current

    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix() or "."

    def read(self, path: str, offset: int = 0, limit: int = 2000) -> str:
        target = self.resolve(path)
        if target.is_dir():
            raise ToolFailure(f"'{path}' is a directory: use list_dir to see what it holds")
        if not target.is_file():
            raise ToolFailure(f"'{path}' does not exist: use list_dir or find_files to locate the file")
        data = target.read_bytes()
        if b"\x00" in data[:4096]:
            raise ToolFailure(f"'{path}' is a binary file ({len(data)} bytes) and cannot be shown as text")
        lines = data.decode("utf-8", errors="replace").splitlines(keepends=True)
        chosen = "".join(lines[max(offset, 0) : max(offset, 0) + max(limit, 1)])
        if len(chosen) > MAX_READ_CHARS:
            chosen = chosen[:MAX_READ_CHARS] + f"\n[... cut at {MAX_READ_CHARS} characters: read less with offset/limit]"
        return chosen

    def write(self, path: str, content: str) -> int:
        target = self.resolve(path)
        data = content.encode("utf-8")
        if len(data) > MAX_WRITE_BYTES:
            raise ToolFailure(f"content is {len(data)} bytes; the limit is {MAX_WRITE_BYTES}: write a smaller file")
        if target.is_dir():
            raise ToolFailure(f"'{path}' is a directory: choose a file name inside it")
        self._guard_app_dir(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        return len(data)

    def edit(self, path: str, old: str, new: str, replace_all: bool = False) -> int:
        text = self.read(path, 0, 10**9)
        count = text.count(old) if old else 0
        if count == 0:
            raise ToolFailure(f"the text to replace was not found in '{path}': read the file and copy it exactly")
        if count > 1 and not replace_all:
            raise ToolFailure(f"the text occurs {count} times in '{path}': add context to make it unique, or set replace_all")
        self.write(path, text.replace(old, new) if replace_all else text.replace(old, new, 1))
        return count if replace_all else 1

    def list(self, path: str = ".") -> list[str]:
        target = self.resolve(path)
        if not target.is_dir():
            raise ToolFailure(f"'{path}' is not a directory: use list_dir on a folder, or read_file on a file")
        entries = []
        for child in sorted(target.iterdir()):
            if child.name == APP_DIR and target == self.root:
                continue
            entries.append(child.name + "/" if child.is_dir() and not child.is_symlink() else child.name)
        return entries

    def walk(self, path: str = ".") -> Iterator[Path]:
        """Files under path, sorted, skipping the app state and symlinks."""
        start = self.resolve(path)
        for folder, dirs, files in os.walk(start):
            dirs[:] = sorted(d for d in dirs if not (Path(folder) == self.root and d == APP_DIR))
            for name in sorted(files):
                candidate = Path(folder) / name
                if not candidate.is_symlink():
                    yield candidate

    def find(self, pattern: str, path: str = ".") -> list[str]:
        found = [self.relative(p) for p in self.walk(path) if fnmatch.fnmatch(self.relative(p), pattern) or fnmatch.fnmatch(p.name, pattern)]
        return found[:MAX_MATCHES]

    def grep(self, pattern: str, path: str = ".", glob: str = "*") -> list[str]:
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            raise ToolFailure(f"'{pattern}' is not a valid regular expression ({exc}): escape special characters")
        matches = []
        for file in self.walk(path):
            if not fnmatch.fnmatch(file.name, glob):
                continue
            try:
                text = file.read_text("utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            for number, line in enumerate(text.splitlines(), 1):
                if regex.search(line):
                    matches.append(f"{self.relative(file)}:{number}:{line[:300]}")
                    if len(matches) >= MAX_MATCHES:
                        return matches
        return matches

    def _guard_app_dir(self, target: Path) -> None:
        if (self.root / APP_DIR) in target.parents:
            raise ToolFailure("the app's own data under .app/ changes only through the domain tools or CLI verbs")
