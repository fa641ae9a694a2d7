"""What an episode changed: the difference between the initial and final state of one environment.

Recorded on each rollout so a report can show it beside the checks; rows are matched by their `id`. The
change history (HISTORY_TABLE) is left out: it repeats the table changes shown here.
"""

from __future__ import annotations

from typing import Any, Protocol

from envcraft.core.state import HISTORY_TABLE
from pydantic import BaseModel, ConfigDict, Field

TEXT_LIMIT = 2000  # characters of a changed file kept in the diff
FILES_LISTED = 100  # paths per kind (added, removed, changed): an agent can make 100,000 files, a rollout keeps a sample


class State(Protocol):
    """What the diff reads of a snapshot (grading.Snapshot)."""

    tables: dict[str, list[dict[str, Any]]]
    files: dict[str, str]
    answer: Any


class RowChange(BaseModel):
    model_config = ConfigDict(frozen=True)
    id: str
    before: dict[str, Any]  # only the fields that changed
    after: dict[str, Any]


class TableDiff(BaseModel):
    model_config = ConfigDict(frozen=True)
    added: list[dict[str, Any]] = Field(default_factory=list)
    removed: list[dict[str, Any]] = Field(default_factory=list)
    changed: list[RowChange] = Field(default_factory=list)


class StateDiff(BaseModel):
    model_config = ConfigDict(frozen=True)
    tables: dict[str, TableDiff] = Field(default_factory=dict)
    files_added: dict[str, str] = Field(default_factory=dict)  # path -> text (cut at TEXT_LIMIT)
    files_removed: list[str] = Field(default_factory=list)
    files_changed: dict[str, str] = Field(default_factory=dict)  # path -> new text (cut at TEXT_LIMIT)
    files_unlisted: int = 0  # paths past FILES_LISTED per kind, counted, not listed
    answer: str | None = None

    @property
    def empty(self) -> bool:
        return not (self.tables or self.files_added or self.files_removed or self.files_changed or self.files_unlisted
                    or self.answer)


def _key(row: dict[str, Any], index: int) -> str:
    return str(row.get("id", f"#{index}"))


def _table(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> TableDiff | None:
    old = {_key(r, i): r for i, r in enumerate(before)}
    new = {_key(r, i): r for i, r in enumerate(after)}
    changed = []
    for key in sorted(old.keys() & new.keys()):
        fields = sorted(f for f in old[key].keys() | new[key].keys() if old[key].get(f) != new[key].get(f))
        if fields:
            changed.append(RowChange(id=key, before={f: old[key].get(f) for f in fields},
                                     after={f: new[key].get(f) for f in fields}))
    diff = TableDiff(added=[new[k] for k in sorted(new.keys() - old.keys())],
                     removed=[old[k] for k in sorted(old.keys() - new.keys())], changed=changed)
    return diff if diff.added or diff.removed or diff.changed else None


def state_diff(initial: State, final: State) -> StateDiff:
    tables = {}
    for name in sorted((set(initial.tables) | set(final.tables)) - {HISTORY_TABLE}):
        if (table := _table(initial.tables.get(name, []), final.tables.get(name, []))) is not None:
            tables[name] = table
    files_before, files_after = initial.files, final.files
    added = sorted(files_after.keys() - files_before.keys())
    removed = sorted(files_before.keys() - files_after.keys())
    changed = [p for p in sorted(files_before.keys() & files_after.keys()) if files_before[p] != files_after[p]]
    unlisted = sum(max(len(paths) - FILES_LISTED, 0) for paths in (added, removed, changed))
    return StateDiff(
        tables=tables,
        files_added={p: files_after[p][:TEXT_LIMIT] for p in added[:FILES_LISTED]},
        files_removed=removed[:FILES_LISTED],
        files_changed={p: files_after[p][:TEXT_LIMIT] for p in changed[:FILES_LISTED]},
        files_unlisted=unlisted,
        answer=final.answer if final.answer != initial.answer else None)
