"""A task's initial state S0 and the workspace layout every part of the farm agrees on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

APP_DIR = ".app"  # the app state inside a workspace (the runtime, envcraft_runtime, owns its layout)
APP_STATE = Path(APP_DIR) / "state.json"
HISTORY_TABLE = "_history"  # the app's change log (envcraft_runtime.history): a record of writes, not a thing a
# task changes, so grading and diffs leave it out (an extra write still shows in the domain table it touched)


class InitialState(BaseModel):
    """Changes applied to the environment's seed before the episode starts: a task's S0."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    files: dict[str, str] = Field(default_factory=dict)  # path -> content, added or replaced
    rows: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)  # table -> rows appended
    updates: dict[str, dict[str, dict[str, Any]]] = Field(default_factory=dict)  # table -> row id -> fields

__all__ = ["APP_DIR", "APP_STATE", "HISTORY_TABLE", "InitialState"]
