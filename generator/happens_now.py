"""The `happens_now` check kind, in one place: an operation that records an event (check in, arrive, serve,
finish, mark a no-show) refuses when the event is not now, within the window its blueprint states as a
`time_window` policy whose check is a `happens_now`.

The window is counted in days on the app's clock (its TODAY): the write is allowed from `early_days` before
the day of the event's `field` to `late_days` after its end (its `end` field, else the same day; no
`late_days`: any time after). A check-in is on the day (0, 0); an outcome may be recorded up to
events.LATE_DAYS late; an engagement that runs from a start date with no end (a tutoring pair) ends any time
after it starts. Stated as a policy, the rule is in what the agent reads and in the refusal; the seed keeps
rows where their statuses say they are (seed_timeline.py) and today's work inside each window.

    missing(bp) -> [policy data] the default guard of each recording transition its blueprint does not guard
    code(pre, lit) -> "not_now(_new.get('start'), _new.get('end'), TODAY, 0, 3, 'start')"
    fact(pre, row, today) -> Fact | None
    moments(bp, entity, pre, row, hold) -> {field: value} that puts the event inside (hold) or outside the window
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from envcraft.generator.blueprint import Blueprint, Entity, Operation, Precondition
from envcraft.generator.events import ENDED, LATE_DAYS, ONGOING, end_field, event_field, planned, records_event
from envcraft_runtime.rules import Fact, not_now, shifted

DAY = 24 * 60
BREAK_DAYS = 30  # how far ahead the audit puts an event to show the guard refusing


def _words(name: str) -> str:
    return name.replace("_", " ")


def _rule(bp: Blueprint, op: Operation, start: str, end: str | None, late: int | None) -> str:
    entity = bp.entity(op.entity)
    starts = next((p.values for p in op.preconditions if p.kind == "status_in" and p.field == entity.status_field),
                  [v for v in entity.field(entity.status_field).values if v in planned(bp, entity)])
    wait = f"leave it {_words(starts[0])}" if starts else "leave it as it is"
    what, status = _words(entity.name), _words(op.to_status)
    article = "An" if what[0] in "aeiou" else "A"
    if op.to_status in ONGOING:
        return f"{article} {what} is marked {status} only on the day of its {_words(start)}; before that day {wait}."
    if late is None:
        return f"{article} {what} is marked {status} only once the day of its {_words(start)} has come; before then {wait}."
    multi_day = end and entity.field(end).type == "date"
    until = f"{late} days after its {_words(end)}" if multi_day else f"{late} days after it"
    return f"{article} {what} is marked {status} from the day of its {_words(start)} until {until}; before that day {wait}."


def missing(bp: Blueprint) -> list[dict[str, Any]]:
    """The default guard policy (as YAML data) of each operation that records an event and has none: what its
    blueprint should state (a test fails while one is missing)."""
    out, ids = [], {p.id for p in bp.policies}
    for op in bp.operations:
        if not records_event(bp, op) or any(p.kind == "happens_now" for p in op.preconditions):
            continue
        entity = bp.entity(op.entity)
        start = event_field(bp, entity)
        end = end_field(bp, entity, start) if op.to_status not in ONGOING else None
        late = 0 if op.to_status in ONGOING else LATE_DAYS
        if op.to_status in ENDED and end is None and entity.field(start).type == "date":
            late = None  # an engagement from a start date (a placement, a tutoring pair) ends when it ends
        pid, n = f"{op.name[:34]}_when", 1
        while pid in ids:
            n += 1
            pid = f"{op.name[:32]}_when{n}"
        ids.add(pid)
        check: dict[str, Any] = {"kind": "happens_now", "field": start}
        check |= {"end": end} if end else {}
        check |= {"late_days": late} if late is not None else {}
        out.append({"id": pid, "category": "time_window", "rule": _rule(bp, op, start, end, late),
                    "operations": [op.name], "check": check})
    return out


def code(pre: Precondition, lit: Callable[[object], str]) -> str:
    """The expression app.py evaluates to the blocking fact (or None), on the row as it would be (`_new`)."""
    end = f"_new.get({lit(pre.end)})" if pre.end else "None"
    return (f"not_now(_new.get({lit(pre.field)}), {end}, TODAY, {pre.early_days or 0!r}, {pre.late_days!r}, "
            f"{lit(pre.field)})")


def fact(pre: Precondition, row: dict[str, Any], today: str) -> Fact | None:
    """What app.py's check would say of this row on `today`."""
    return not_now(row.get(pre.field), row.get(pre.end) if pre.end else None, today, pre.early_days or 0,
                   pre.late_days, pre.field)


def moments(bp: Blueprint, entity: Entity, pre: Precondition, row: dict[str, Any], hold: bool) -> dict[str, Any]:
    """The event's start (and end) moved, as a whole, to today (hold) or BREAK_DAYS ahead (break); {} when the
    row has no time to move."""
    begin = row.get(pre.field)
    if not isinstance(begin, str) or len(begin) < 10:
        return {}
    today = date.fromisoformat(bp.today)
    target = today if hold else today + timedelta(days=BREAK_DAYS + (pre.early_days or 0))
    days = (target - date.fromisoformat(begin[:10])).days
    out = {pre.field: shifted(begin, days * DAY)}
    end = pre.end or end_field(bp, entity, pre.field)
    if end and isinstance(row.get(end), str):
        out[end] = shifted(row[end], days * DAY)
    return out


__all__ = ["code", "fact", "missing", "moments"]
