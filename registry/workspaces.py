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
    """The run folder of this process; `close()` removes it, `reap()` removes dead runs' folders."""

    def __init__(self, base: Path | None = None):
        self.base = Path(base or Path(tempfile.gettempdir()) / "envcraft")
        self.base.mkdir(parents=True, exist_ok=True)
        self.reap()
        self.path = self.base / f"run-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.path.mkdir()

    def reap(self) -> list[Path]:
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
        return self.path / f"{env}-{uuid.uuid4().hex[:10]}"

    def close(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
