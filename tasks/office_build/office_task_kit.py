"""Shared helpers for the office task builders (build_office_tasks.py, office_tasks_b.py).

Ids below refer to the seed in servers/office/seed/.app/state.json: 40 mails (next sent mail is msg-0041),
21 events (next is evt-0022), 12 to-dos (next is todo-0013), 15 contacts. Tasks whose `initial` adds rows
shift these by the number of rows added.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]  # the repository (this folder is tasks/office_build/)
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from envcraft.core.state import InitialState  # noqa: E402
from envcraft.core.tasks import Check, Task, ToolCall  # noqa: E402

ENV = "office"
NW = "@northwind.studio"
ME = "alex.morgan" + NW
PRIYA, MARCO, JONAS, SAMIRA, AISHA = (f"{n}{NW}" for n in ("priya.shah", "marco.bellini", "jonas.weber", "samira.haddad",
                                                             "aisha.rahman"))
DANIEL, TOM, HANNAH, SOFIA, LENA = (f"{n}{NW}" for n in ("daniel.okafor", "tom.brennan", "hannah.lee", "sofia.marquez",
                                                          "lena.fischer"))
RACHEL, BEN, SAM, OLIVIA = ("rachel.kim@harborcoffee.com", "ben.carter@lumenhealth.io", "sam.patel@verdebikes.com",
                            "olivia.grant@printworks.co")
PHISH = "it-support@northwind-studio.co"
TODAY = "2026-12-01"
SEND_TIME = f"{TODAY}T09:00"  # mail_send stamps every sent mail with this date


def C(text: str) -> dict[str, str]:
    """Match operator: the field contains `text` (case-insensitive)."""
    return {"$contains": text}


def HAS(item: Any) -> dict[str, Any]:
    """Match operator: the list field has `item`."""
    return {"$has": item}


def IN(*values: Any) -> dict[str, list[Any]]:
    """Match operator: the field is one of `values`."""
    return {"$in": list(values)}


def call(tool: str, turn: int = 0, **arguments: Any) -> ToolCall:
    return ToolCall(tool=tool, arguments=arguments, turn=turn)


def finish(answer: str = "", turn: int = 0) -> ToolCall:
    return call("finish", turn, answer=answer)


def shell(command: str, turn: int = 0) -> ToolCall:
    return call("run_shell", turn, command=command)


def record(table: str, note: str = "", weight: float = 1.0, count: int | None = None, role: str = "goal",
           **match: Any) -> Check:
    return Check(kind="record", table=table, match=match, note=note, weight=weight, count=count, role=role)


def sent(note: str = "", weight: float = 1.0, **match: Any) -> Check:
    """A mail Alex sent during the episode (folder sent, stamped SEND_TIME) matching `match`."""
    match.setdefault("date", SEND_TIME)
    return record("mail", note=note, weight=weight, folder="sent", **match)


def event(note: str = "", weight: float = 1.0, role: str = "goal", **match: Any) -> Check:
    """A confirmed event matching `match`."""
    return record("events", note=note, weight=weight, role=role, status="confirmed", **match)


def none(table: str, note: str = "", role: str = "guard", **match: Any) -> Check:
    """No row matches: a guard by default (a decoy must stay untouched)."""
    return Check(kind="no_record", table=table, match=match, note=note, role=role)


def keep(table: str, note: str = "", **match: Any) -> Check:
    """Guard: a row that must still match at the end (e.g. a decoy event stays confirmed)."""
    return record(table, note=note, role="guard", **match)


def file_has(path: str, *contains: str, note: str = "", weight: float = 1.0, lacks: tuple[str, ...] = (),
             rivals: tuple[str, ...] = (), context: tuple[str, ...] = (),
             aliases: dict[str, list[str]] | None = None) -> Check:
    return Check(kind="file_contains", path=path, contains=list(contains), lacks=list(lacks), note=note,
                 weight=weight, rivals=list(rivals), context=list(context), aliases=aliases or {})


def answer(*contains: str, note: str = "", weight: float = 1.0) -> Check:
    return Check(kind="answer", contains=list(contains), note=note, weight=weight)


def unchanged(*allow: str) -> Check:
    """Guard against collateral damage, naming the tables and files the task may change. `row_level` turns it
    into the row-level guard the task ships with (only the rows and fields the gold changes, exactly the rows
    it creates); the names here are the author's intent, which the gold's effect must stay within."""
    return Check(kind="unchanged", role="guard", allow=list(allow), note="no collateral changes")


def _effect(before: dict[str, list[dict]], after: dict[str, list[dict]]) -> tuple[dict, dict]:
    """(table -> id -> fields changed, "*" if deleted; table -> rows created) from two snapshots' tables."""
    rows: dict[str, dict[str, list[str]]] = {}
    grow: dict[str, int] = {}
    for table in sorted(set(before) | set(after)):
        old = {r["id"]: r for r in before.get(table, [])}
        new = {r["id"]: r for r in after.get(table, [])}
        for row_id, row in old.items():
            if row_id not in new:
                rows.setdefault(table, {})[row_id] = ["*"]
            elif new[row_id] != row:
                rows.setdefault(table, {})[row_id] = sorted(k for k in set(row) | set(new[row_id])
                                                            if row.get(k) != new[row_id].get(k))
        if len(set(new) - set(old)):
            grow[table] = len(set(new) - set(old))
    return rows, grow


async def _row_level(task: Task, root: Any) -> Task:
    from envcraft.core.grading import Snapshot
    from envcraft.core.state import HISTORY_TABLE
    from envcraft.registry import catalog
    from envcraft.registry.launch import InProcessLauncher, launch

    async with launch(catalog.get(ENV), InProcessLauncher(), root, task.initial) as instance:
        start = Snapshot.of(instance.workspace)
        for step in task.gold:
            await instance.client.call_tool(step.tool, step.arguments)
        end = Snapshot.of(instance.workspace)
    # the change log grows with every write, allowed ones too; grading never compares it (core/collateral.py)
    rows, grow = _effect(*({k: v for k, v in s.tables.items() if k != HISTORY_TABLE} for s in (start, end)))
    intent = next(c for c in task.checks if c.kind == "unchanged")
    beyond = (set(rows) | set(grow)) - set(intent.allow)
    assert not beyond, f"{task.id}: the gold changes {sorted(beyond)}, which unchanged() does not name"
    files = [p for p in intent.allow if p not in start.tables and p not in end.tables]
    guard = Check(kind="collateral", role="guard", rows=rows, grow=grow, allow=files, note="no collateral changes")
    return task.model_copy(update={"checks": [guard if c is intent else c for c in task.checks]})


def row_level(tasks: list[Task]) -> list[Task]:
    """Each task's `unchanged` guard made row-level from what its gold does on a fresh office instance."""
    import tempfile

    import anyio
    from envcraft.registry.workspaces import WorkspaceRoot

    async def run() -> list[Task]:
        with tempfile.TemporaryDirectory() as folder:
            root = WorkspaceRoot(Path(folder))
            try:
                return [await _row_level(task, root) for task in tasks]
            finally:
                root.close()

    return anyio.run(run)


def task(number: int, turns: str | list[str], checks: list[Check], gold: list[ToolCall], archetype: str,
         difficulty: str, tags: list[str], split: str = "train", initial: InitialState | None = None) -> Task:
    return Task(id=f"office-{number:03d}", envs=[ENV], turns=[turns] if isinstance(turns, str) else turns,
                initial=initial or InitialState(), checks=checks, gold=gold, archetype=archetype,
                difficulty=difficulty, split=split, tags=tags)


def inbox_mail(id: str, sender: str, subject: str, body: str, date: str, to: list[str] | None = None,
               cc: list[str] | None = None, read: bool = False, in_reply_to: str | None = None,
               folder: str = "inbox") -> dict[str, Any]:
    """A mail row for a task's `initial` patch (fields exactly as the Mail dataclass)."""
    return {"id": id, "folder": folder, "sender": sender, "to": to or [ME], "cc": cc or [], "subject": subject,
            "body": body, "date": date, "read": read, "in_reply_to": in_reply_to}
