"""Shared helpers for the office task builders (build_office_tasks.py, office_tasks_b.py).

Ids below refer to the seed in servers/office/seed/.app/state.json: 40 mails (next sent mail is msg-0041),
21 events (next is evt-0022), 12 to-dos (next is todo-0013), 15 contacts. Tasks whose `initial` adds rows
shift these by the number of rows added.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from envcraft.core.tasks import Check, Task, ToolCall  # noqa: E402
from envcraft.core.state import InitialState  # noqa: E402

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


def file_has(path: str, *contains: str, note: str = "", weight: float = 1.0) -> Check:
    return Check(kind="file_contains", path=path, contains=list(contains), note=note, weight=weight)


def answer(*contains: str, note: str = "", weight: float = 1.0) -> Check:
    return Check(kind="answer", contains=list(contains), note=note, weight=weight)


def unchanged(*allow: str) -> Check:
    """Guard against collateral damage: every table and file not listed stays exactly as it was."""
    return Check(kind="unchanged", role="guard", allow=list(allow), note="no collateral changes")


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
