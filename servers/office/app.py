"""Office domain: mail, calendar, contacts and to-dos of Northwind Studio, a small design team.

Every operation takes the app's tables first, then the caller's arguments; `@read` operations
never change the tables, `@write` ones are saved only if they return without a ToolFailure.
Standard library only: the same code serves the MCP tools and the `office` CLI verbs. The tools
every app has (read_policies, list_changes) and each parameter's description come from the runtime
and tools.json (envcraft_runtime.derived); the rules read_policies lists are in policies.json.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from envcraft_runtime import Tables, ToolFailure, find_row, next_id, read, write
from envcraft_runtime.derived import app_operations
from envcraft_runtime.records import Page, page_note
from envcraft_runtime.rules import PolicyRefusal, load_policies

TODAY = "2026-12-01"
ME = "alex.morgan@northwind.studio"
FOLDERS = ("inbox", "sent", "archive", "trash")
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$")
RULES = {rule.id: rule.rule for rule in load_policies(__file__)}  # policies.json: what read_policies lists


@dataclass
class Contact:
    id: str
    name: str
    email: str
    team: str
    role: str
    phone: str


@dataclass
class MailSummary:
    id: str
    folder: str
    sender: str
    subject: str
    date: str
    read: bool


@dataclass
class MailPage(Page):
    """A page of messages from a search, newest first: `note` says how to get the rest."""

    results: list[MailSummary]


@dataclass
class Mail:
    id: str
    folder: str
    sender: str
    to: list[str]
    cc: list[str]
    subject: str
    body: str
    date: str
    read: bool
    in_reply_to: str | None


@dataclass
class Event:
    id: str
    title: str
    start: str
    end: str
    attendees: list[str]
    location: str
    status: str


@dataclass
class Todo:
    id: str
    title: str
    owner: str
    due: str
    status: str


def _mail(row: dict) -> Mail:
    return Mail(**{k: row.get(k) for k in Mail.__dataclass_fields__})


def _event(row: dict) -> Event:
    return Event(**{k: row[k] for k in Event.__dataclass_fields__})


def _parse_time(value: str, field: str) -> datetime:
    try:
        return datetime.strptime(value, "%Y-%m-%dT%H:%M")
    except (TypeError, ValueError):
        raise ToolFailure(
            f"{field} '{value}' is not a time like '2026-12-03T14:30' (YYYY-MM-DDTHH:MM, 24-hour)"
        ) from None


def _parse_day(value: str, field: str) -> date:
    try:
        return date.fromisoformat(value)
    except (TypeError, ValueError):
        raise ToolFailure(f"{field} '{value}' is not a date like '2026-12-03' (YYYY-MM-DD)") from None


def _check_addresses(addresses: list[str], field: str) -> None:
    if not addresses and field == "to":
        raise ToolFailure("'to' is empty: give at least one recipient email address (contacts_search finds them)")
    for address in addresses:
        if not EMAIL.match(address or ""):
            raise ToolFailure(f"'{address}' in {field} is not an email address: look it up with contacts_search")


# ---------------------------------------------------------------- contacts


@read
def contacts_search(tables: Tables, query: str) -> list[Contact]:
    """Find people by name, email, team or role (case-insensitive substring)."""
    needle = query.lower().strip()
    return [
        Contact(**row)
        for row in tables["contacts"]
        if not needle or any(needle in str(row[f]).lower() for f in ("name", "email", "team", "role"))
    ]


# ---------------------------------------------------------------- mail


@read
def mail_search(
    tables: Tables,
    query: str = "",
    folder: str = "inbox",
    sender: str = "",
    unread_only: bool = False,
    limit: int = 20,
    offset: int = 0,
) -> MailPage:
    """Search a mail folder (inbox, sent, archive, trash, or 'all'); query matches subject and body. Newest first;
    returns at most `limit` messages from `offset`, the total, and a note saying how to get the rest."""
    if folder != "all" and folder not in FOLDERS:
        raise ToolFailure(f"folder '{folder}' does not exist: use one of {', '.join(FOLDERS)} or 'all'")
    if limit < 1 or offset < 0:
        raise ToolFailure(f"limit {limit}, offset {offset}: ask for at least 1 message, from offset 0 or more")
    needle, who = query.lower().strip(), sender.lower().strip()
    rows = [
        row
        for row in tables["mail"]
        if (folder == "all" or row["folder"] == folder)
        and (not needle or needle in row["subject"].lower() or needle in row["body"].lower())
        and (not who or who in row["sender"].lower())
        and (not unread_only or not row["read"])
    ]
    rows.sort(key=lambda row: (row["date"], row["id"]), reverse=True)
    shown = rows[offset : offset + limit]
    return MailPage(
        results=[MailSummary(**{k: row[k] for k in MailSummary.__dataclass_fields__}) for row in shown],
        total=len(rows),
        offset=offset,
        note=page_note(len(shown), len(rows), offset),
    )


@read
def mail_read(tables: Tables, message_id: str) -> Mail:
    """Read one message in full by its id (from mail_search)."""
    return _mail(find_row(tables, "mail", "id", message_id, "message", "search with mail_search to get message ids"))


@write
def mail_send(
    tables: Tables, to: list[str], subject: str, body: str, cc: list[str] | None = None, in_reply_to: str | None = None
) -> Mail:
    """Send an email from alex.morgan@northwind.studio; set in_reply_to to a message id to reply in its thread."""
    cc = cc or []
    _check_addresses(to, "to")
    _check_addresses(cc, "cc")
    if not subject.strip():
        raise ToolFailure("subject is empty: give the email a subject line")
    if in_reply_to is not None:
        find_row(tables, "mail", "id", in_reply_to, "message", "in_reply_to must be an id from mail_search")
    row = {
        "id": next_id(tables, "mail", "msg"),
        "folder": "sent",
        "sender": ME,
        "to": to,
        "cc": cc,
        "subject": subject,
        "body": body,
        "date": f"{TODAY}T09:00",
        "read": True,
        "in_reply_to": in_reply_to,
    }
    tables["mail"].append(row)
    return _mail(row)


@write
def mail_move(tables: Tables, message_id: str, folder: str) -> Mail:
    """Move a message to another folder (inbox, archive, trash)."""
    if folder not in ("inbox", "archive", "trash"):
        raise ToolFailure(f"cannot move mail to '{folder}': use inbox, archive or trash")
    row = find_row(tables, "mail", "id", message_id, "message", "search with mail_search to get message ids")
    if row["folder"] == "sent":
        raise PolicyRefusal("sent_mail_stays", RULES["sent_mail_stays"], f"{message_id} is in sent", row["folder"])
    row["folder"] = folder
    return _mail(row)


# ---------------------------------------------------------------- calendar


def _busy(tables: Tables, attendees: list[str], start: datetime, end: datetime, skip: str = "") -> list[str]:
    clashes = []
    for row in tables["events"]:
        if row["status"] != "confirmed" or row["id"] == skip:
            continue
        if _parse_time(row["start"], "start") < end and start < _parse_time(row["end"], "end"):
            clashes += [f"{a} ({row['id']} '{row['title']}')" for a in attendees if a in row["attendees"]]
    return clashes


@read
def calendar_list(tables: Tables, date_from: str, date_to: str, attendee: str = "") -> list[Event]:
    """Confirmed and cancelled events that start between date_from and date_to (inclusive, YYYY-MM-DD)."""
    first, last = _parse_day(date_from, "date_from"), _parse_day(date_to, "date_to")
    if last < first:
        raise ToolFailure("date_to is before date_from: swap them")
    rows = [
        row
        for row in tables["events"]
        if first <= _parse_time(row["start"], "start").date() <= last and (not attendee or attendee in row["attendees"])
    ]
    return [_event(row) for row in sorted(rows, key=lambda r: (r["start"], r["id"]))]


@read
def calendar_free_slots(tables: Tables, day: str, duration_minutes: int, attendees: list[str]) -> list[str]:
    """Start times (YYYY-MM-DDTHH:MM) between 09:00 and 17:00 on `day` when every attendee is free."""
    _parse_day(day, "day")
    if not 15 <= duration_minutes <= 480:
        raise ToolFailure("duration_minutes must be between 15 and 480")
    _check_addresses(attendees, "attendees")
    slots, start = [], datetime.strptime(f"{day}T09:00", "%Y-%m-%dT%H:%M")
    while start + timedelta(minutes=duration_minutes) <= start.replace(hour=17, minute=0):
        if not _busy(tables, attendees, start, start + timedelta(minutes=duration_minutes)):
            slots.append(start.strftime("%Y-%m-%dT%H:%M"))
        start += timedelta(minutes=30)
    return slots


@write
def calendar_create(
    tables: Tables, title: str, start: str, end: str, attendees: list[str], location: str = ""
) -> Event:
    """Create a confirmed event; fails if an attendee is already busy then (see calendar_free_slots)."""
    begin, finish = _parse_time(start, "start"), _parse_time(end, "end")
    if finish <= begin:
        raise ToolFailure("end is not after start: give an end time later than the start")
    if not title.strip():
        raise ToolFailure("title is empty: name the event")
    _check_addresses(attendees, "attendees")
    clashes = _busy(tables, attendees, begin, finish)
    if clashes:
        raise PolicyRefusal(
            "no_double_booking",
            RULES["no_double_booking"],
            f"busy at that time: {', '.join(clashes)}; pick a slot from calendar_free_slots",
            clashes,
        )
    row = {
        "id": next_id(tables, "events", "evt"),
        "title": title,
        "start": start,
        "end": end,
        "attendees": attendees,
        "location": location,
        "status": "confirmed",
    }
    tables["events"].append(row)
    return _event(row)


@write
def calendar_cancel(tables: Tables, event_id: str) -> Event:
    """Cancel an event by id (from calendar_list)."""
    row = find_row(tables, "events", "id", event_id, "event", "list events with calendar_list to get ids")
    if row["status"] == "cancelled":
        raise ToolFailure(f"{event_id} is already cancelled")
    row["status"] = "cancelled"
    return _event(row)


# ---------------------------------------------------------------- to-dos


@read
def todo_list(tables: Tables, owner: str = "", status: str = "open") -> list[Todo]:
    """To-dos filtered by owner email and status (open, done or all)."""
    if status not in ("open", "done", "all"):
        raise ToolFailure(f"status '{status}' is unknown: use open, done or all")
    return [
        Todo(**row)
        for row in tables["todos"]
        if (not owner or row["owner"] == owner) and (status == "all" or row["status"] == status)
    ]


@write
def todo_add(tables: Tables, title: str, owner: str, due: str) -> Todo:
    """Add an open to-do for a teammate (owner is an email), due YYYY-MM-DD."""
    _parse_day(due, "due")
    _check_addresses([owner], "owner")
    if not title.strip():
        raise ToolFailure("title is empty: say what needs doing")
    row = {"id": next_id(tables, "todos", "todo"), "title": title, "owner": owner, "due": due, "status": "open"}
    tables["todos"].append(row)
    return Todo(**row)


@write
def todo_complete(tables: Tables, todo_id: str) -> Todo:
    """Mark a to-do done by id (from todo_list)."""
    row = find_row(tables, "todos", "id", todo_id, "to-do", "list them with todo_list to get ids")
    if row["status"] == "done":
        raise ToolFailure(f"{todo_id} is already done")
    row["status"] = "done"
    return Todo(**row)


OPERATIONS = app_operations(
    globals(),
    [
        contacts_search,
        mail_search,
        mail_read,
        mail_send,
        mail_move,
        calendar_list,
        calendar_free_slots,
        calendar_create,
        calendar_cancel,
        todo_list,
        todo_add,
        todo_complete,
    ],
)
