"""The change history of an app: every successful write leaves one entry per changed field (who, when,
which operation, old -> new), and `change_page` reads it back, newest first, in pages (an app's
`list_changes` tool).

The history is a table of the app state (`_history`), so reset, snapshots and grading see it like any
other table; the graders leave it out of their comparisons (envcraft.core.state.HISTORY_TABLE): a
correct write's own entries are never collateral damage, and an extra write still shows in the domain
table it touched. No tool writes it: entries are made here, by the runtime, after an operation
returns, and `.app/` is read-only to files and the shell.

Time comes from the environment's clock, not the wall clock, so a replay writes the same bytes: the
session opens at `TODAY`T09:00 and each write operation moves the clock on one minute.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from .failures import ToolFailure
from .records import Page, page_note
from .store import Tables, next_id

HISTORY = "_history"  # the table; the leading underscore keeps it apart from every entity's table
AGENT = "assistant"  # who made a change done through the tools
OPENS = "09:00"  # when the session's clock starts on the environment's today
PREFIX = "chg"
EPOCH = "2026-12-01"  # the day of an app that names no TODAY

Value = str | int | float | bool | list | None
Rows = dict[str, dict[Any, dict[str, Any]]]


@dataclass
class Change:
    """One field of one record changed by one operation."""

    id: str
    at: str  # YYYY-MM-DDTHH:MM, the environment's clock
    by: str  # who made it: a colleague's name, or "assistant" for changes made through these tools
    operation: str  # the tool (or the person's action) that made it
    table: str
    row_id: str
    field: str  # "*" when the whole record was created or deleted
    old: Value  # None when the record was created, "existed" when it was deleted
    new: Value  # "created" or "deleted" for a whole record


@dataclass
class ChangePage(Page):
    """A page of the change history, newest first: `note` says how to get the rest."""

    results: list[Change]
    total: int  # entries that match
    offset: int
    note: str  # e.g. "20 of 57 shown; pass offset=20 for the rest"


def before_write(tables: Tables) -> Rows:
    """What a write may change, kept to compare against: a shallow copy of every row, by table and id.
    Shallow is enough because operations replace a row's values and never change a list in place (the
    compiler's operations assign, office's build new rows); it keeps a write's added cost small."""
    return {table: {row.get("id"): row.copy() for row in rows} for table, rows in tables.items() if table != HISTORY}


def _clock(history: list[dict[str, Any]], today: str) -> str:
    """The time of the next write: a minute after the last one made through the tools, or the opening time."""
    last = next((entry["at"] for entry in reversed(history) if entry.get("by") == AGENT), None)
    if last is None:
        return f"{today}T{OPENS}"
    return (datetime.fromisoformat(last) + timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M")


def after_write(tables: Tables, before: Rows, operation: str, today: str) -> int:
    """Append an entry for every field the write changed (created and deleted rows as one entry each);
    returns how many. Nothing changed, nothing logged."""
    found: list[tuple[str, str, str, Value, Value]] = []
    for table, rows in tables.items():
        if table == HISTORY:
            continue
        old_rows = before.get(table, {})
        seen = set()
        for row in rows:
            row_id = row.get("id")
            seen.add(row_id)
            old = old_rows.get(row_id)
            if old is None:
                found.append((table, str(row_id), "*", None, "created"))
            elif old != row:
                found += [(table, str(row_id), key, old.get(key), row.get(key))
                          for key in sorted(old.keys() | row.keys()) if old.get(key) != row.get(key)]
        found += [(table, str(row_id), "*", "existed", "deleted") for row_id in old_rows if row_id not in seen]
    if not found:
        return 0
    history = tables.setdefault(HISTORY, [])
    at = _clock(history, today)
    number = int(next_id(tables, HISTORY, PREFIX).rsplit("-", 1)[1])
    for offset, (table, row_id, field, old, new) in enumerate(found):
        history.append({"id": f"{PREFIX}-{number + offset:04d}", "at": at, "by": AGENT, "operation": operation,
                        "table": table, "row_id": row_id, "field": field, "old": old, "new": new})
    return len(found)


def change_page(tables: Tables, table: str | None, row_id: str | None, limit: int, offset: int) -> ChangePage:
    """The history, newest first, of one table or one record if given."""
    if limit < 1:
        raise ToolFailure(f"limit {limit} is too small: ask for at least 1 entry")
    if offset < 0:
        raise ToolFailure(f"offset {offset} is negative: start at 0")
    entries = [e for e in tables.get(HISTORY, [])
               if (table is None or e.get("table") == table) and (row_id is None or e.get("row_id") == row_id)]
    entries.sort(key=lambda e: (str(e.get("at")), str(e.get("id"))), reverse=True)
    shown = entries[offset:offset + limit]
    return ChangePage(results=[Change(**{k: e.get(k) for k in Change.__dataclass_fields__}) for e in shown],
                      total=len(entries), offset=offset, note=page_note(len(shown), len(entries), offset))


__all__ = ["AGENT", "EPOCH", "HISTORY", "Change", "ChangePage", "after_write", "before_write", "change_page"]
