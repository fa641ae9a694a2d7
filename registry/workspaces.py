"""Episode workspaces: a fresh copy of an environment's seed, patched to a task's initial state.

All workspaces of one registry process live under one run folder named after the process
(`<tmp>/envcraft/run-<pid>-<token>`), so a later start can find and remove the folders of a
registry that died without cleaning up.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import uuid
from pathlib import Path

from envcraft.core.state import APP_STATE, InitialState

# Fingerprints of workspaces this process made, taken right after a pure seed copy:
# relative path -> (is_dir, inode, ctime_ns). Any change to an entry (content, mode, rename,
# replace) moves its ctime, which no user can set, so a reset only restores what changed.
_PRINTS: dict[Path, tuple[Path, dict[str, tuple[bool, int, int]]]] = {}


def _scan(root: Path) -> dict[str, tuple[bool, int, int]]:
    found = {}
    stack = [(root, "")]
    while stack:
        folder, prefix = stack.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                info = entry.stat(follow_symlinks=False)
                is_dir = entry.is_dir(follow_symlinks=False)
                rel = prefix + entry.name
                found[rel] = (is_dir, info.st_ino, info.st_ctime_ns)
                if is_dir:
                    stack.append((Path(entry.path), rel + "/"))
    return found


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def _restore(seed: Path, workspace: Path, clean: dict[str, tuple[bool, int, int]]) -> None:
    """Put back every entry whose fingerprint moved, drop every entry the seed does not have."""
    now = _scan(workspace)
    changed = sorted({rel for rel, sig in now.items() if clean.get(rel) != sig} | (clean.keys() - now.keys()), key=len)
    done: list[str] = []
    for rel in changed:
        if any(rel.startswith(parent + "/") for parent in done):
            continue  # restored with its folder
        target, source = workspace / rel, seed / rel
        _remove(target)
        if source.is_dir():
            shutil.copytree(source, target, symlinks=True)
        elif source.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        done.append(rel)


def forget(workspace: Path) -> None:
    _PRINTS.pop(workspace, None)


def materialize(seed: Path, workspace: Path, initial: InitialState | None = None) -> None:
    """Make `workspace` hold exactly the seed plus the initial-state patch (also used to reset).

    A workspace this process made before is restored in place, entry by entry; any other is
    copied whole.
    """
    known = _PRINTS.get(workspace)
    if known and known[0] == seed and workspace.is_dir():
        _restore(seed, workspace, known[1])
    else:
        if workspace.exists() or workspace.is_symlink():
            _remove(workspace)
        shutil.copytree(seed, workspace, symlinks=True)
    _PRINTS[workspace] = (seed, _scan(workspace))
    if initial is None:
        return
    for rel, content in initial.files.items():
        target = (workspace / rel).resolve()
        if workspace.resolve() not in target.parents:
            raise ValueError(f"initial file {rel!r} lies outside the workspace: use a relative path")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, "utf-8")
    if initial.rows or initial.updates:
        state_path = workspace / APP_STATE
        tables = json.loads(state_path.read_text("utf-8"))
        for table, rows in initial.rows.items():
            tables.setdefault(table, []).extend(rows)
        for table, changes in initial.updates.items():
            by_id = {row.get("id"): row for row in tables.get(table, [])}
            for row_id, fields in changes.items():
                if row_id not in by_id:
                    raise ValueError(f"initial update names {table}/{row_id}, which the seed does not have")
                by_id[row_id].update(fields)
        state_path.write_text(json.dumps(tables, indent=1, sort_keys=True), "utf-8")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class WorkspaceRoot:
    """The run folder of this process and its warm pool of fresh workspaces.

    `checkout` hands out a workspace that already holds a fresh copy of the seed (copied ahead of
    time by `prewarm` or when an earlier episode checked its workspace back in), so acquiring an
    episode costs no copy. `checkin` rebuilds the workspace from the seed before it can be handed
    out again: nothing an episode did survives into the next one. Reusing paths also lets a
    launcher reuse a server already built for that path.
    """

    def __init__(self, base: Path | None = None, max_idle: int = 64):
        self.base = Path(base or Path(tempfile.gettempdir()) / "envcraft")
        self.base.mkdir(parents=True, exist_ok=True)
        self.reap()
        self.path = self.base / f"run-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.path.mkdir()
        self.max_idle = max_idle
        self._ready: dict[Path, list[Path]] = {}  # seed -> fresh workspaces

    def reap(self) -> list[Path]:
        """Remove run folders whose registry process is gone (killed without cleaning up), and empty shell cgroups."""
        from envcraft.registry.reaper import reap_cgroups

        reap_cgroups()
        removed = []
        for run in self.base.glob("run-*"):
            try:
                pid = int(run.name.split("-")[1])
            except (IndexError, ValueError):
                continue
            if not _alive(pid):
                shutil.rmtree(run, ignore_errors=True)
                removed.append(run)
        return removed

    def create(self, env: str) -> Path:
        """A new, empty workspace path (not pooled)."""
        return self.path / f"{env}-{uuid.uuid4().hex[:10]}"

    def prewarm(self, env: str, seed: Path, count: int) -> None:
        ready = self._ready.setdefault(seed, [])
        while len(ready) < min(count, self.max_idle):
            workspace = self.create(env)
            materialize(seed, workspace)
            ready.append(workspace)

    def checkout(self, env: str, seed: Path, initial: InitialState | None = None) -> Path:
        """A workspace holding the seed plus `initial`, from the pool when one is ready."""
        ready = self._ready.get(seed)
        if ready:
            workspace = ready.pop()
            if initial is not None and (initial.files or initial.rows or initial.updates):
                materialize(seed, workspace, initial)
            return workspace
        workspace = self.create(env)
        materialize(seed, workspace, initial)
        return workspace

    def checkin(self, seed: Path, workspace: Path) -> bool:
        """Rebuild the workspace from the seed and pool it; returns False if it was removed instead."""
        ready = self._ready.setdefault(seed, [])
        if len(ready) >= self.max_idle or not self.path.exists():
            shutil.rmtree(workspace, ignore_errors=True)
            forget(workspace)
            return False
        materialize(seed, workspace)
        ready.append(workspace)
        return True

    def idle(self, seed: Path) -> int:
        return len(self._ready.get(seed, []))

    def close(self) -> None:
        self._ready.clear()
        for workspace in [w for w in _PRINTS if self.path in w.parents]:
            forget(workspace)
        shutil.rmtree(self.path, ignore_errors=True)
