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
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

APP_STATE = Path(".app") / "state.json"


class InitialState(BaseModel):
    """Changes applied to the environment's seed before the episode starts: a task's S0."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    files: dict[str, str] = Field(default_factory=dict)  # path -> content, added or replaced
    rows: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)  # table -> rows appended
    updates: dict[str, dict[str, dict[str, Any]]] = Field(default_factory=dict)  # table -> row id -> fields


def materialize(seed: Path, workspace: Path, initial: InitialState | None = None) -> None:
    """Make `workspace` hold exactly the seed plus the initial-state patch (also used to reset)."""
    if workspace.exists():
        shutil.rmtree(workspace)
    shutil.copytree(seed, workspace, symlinks=True)
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
        from registry.reaper import reap_cgroups

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
            return False
        materialize(seed, workspace)
        ready.append(workspace)
        return True

    def idle(self, seed: Path) -> int:
        return len(self._ready.get(seed, []))

    def close(self) -> None:
        self._ready.clear()
        shutil.rmtree(self.path, ignore_errors=True)
