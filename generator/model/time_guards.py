"""The time guard a blueprint states for each operation that records an event (generator/model/events.py says which):
a `time_window` policy whose check is a `happens_now` (generator/rules/happens_now.py). A check-in is on the
day of the event; an outcome may be recorded from that day to events.LATE_DAYS after its end; the end of an
engagement that runs from a start date only (a tutoring pair) any time after it starts. The rule's text says
what to do meanwhile (leave it in the status it waits in). An operation that records a deadline going by
(events.records_lapse: lapse a licence once it expired) is allowed only from the day after the deadline.

    missing(bp) -> [policy data] the default guard of each recording transition its blueprint does not guard
"""

from __future__ import annotations

from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Operation
from envcraft.generator.model.events import (
    ENDED,
    LATE_DAYS,
    ONGOING,
    deadline_field,
    end_field,
    event_field,
    planned,
    records_event,
    records_lapse,
)
from envcraft.generator.rules.happens_now import KIND, check, guards
from envcraft.generator.rules.registry import source_states


def _words(name: str) -> str:
    return name.replace("_", " ")


def _rule(bp: Blueprint, op: Operation, start: str, end: str | None, late: int | None) -> str:
    entity = bp.entity(op.entity)
    starts = source_states(entity, op) or [v for v in entity.field(entity.status_field).values
                                            if v in planned(bp, entity)]
    wait = f"leave it {_words(starts[0])}" if starts else "leave it as it is"
    what, status = _words(entity.name), _words(op.to_status)
    article = _article(what)
    if op.to_status in ONGOING:
        return f"{article} {what} is marked {status} only on the day of its {_words(start)}; before that day {wait}."
    if late is None:
        return f"{article} {what} is marked {status} only once the day of its {_words(start)} has come; before then {wait}."
    multi_day = end and entity.field(end).type == "date"
    until = f"{late} days after its {_words(end)}" if multi_day else f"{late} days after it"
    return f"{article} {what} is marked {status} from the day of its {_words(start)} until {until}; before that day {wait}."


_DEADLINE_WORDS = {"expires": "expiry date", "expires_on": "expiry date", "expiry": "expiry date",
                   "respond_by": "respond-by date", "return_by": "return-by date", "due": "due date",
                   "valid_until": "last valid day"}


def _article(words: str) -> str:
    return "An" if words[0] in "aeiou" and not words.startswith(("uni", "use", "usu", "one")) else "A"


def _lapse_rule(bp: Blueprint, op: Operation, deadline: str) -> str:
    entity = bp.entity(op.entity)
    starts = source_states(entity, op)
    wait = f"leave it {_words(starts[0])}" if starts else "leave it as it is"
    what, day = _words(entity.name), _DEADLINE_WORDS.get(deadline, _words(deadline))
    return f"{_article(what)} {what} is marked {_words(op.to_status)} only after its {day} has passed; until then {wait}."


def missing(bp: Blueprint) -> list[dict[str, Any]]:
    """The default guard policy (as YAML data) of each operation that records an event and has none: what its
    blueprint should state (a test fails while one is missing)."""
    out, ids = [], {p.id for p in bp.policies}
    for op in bp.operations:
        if records_lapse(bp, op) and not guards(op):
            deadline = deadline_field(bp.entity(op.entity))
            out.append({"id": _free_id(f"{op.name[:34]}_when", ids), "category": KIND.category,
                        "rule": _lapse_rule(bp, op, deadline),
                        "operations": [op.name], "check": {"kind": KIND.name, "field": deadline, "early_days": -1}})
        if not records_event(bp, op) or guards(op):
            continue
        entity = bp.entity(op.entity)
        start = event_field(bp, entity)
        end = end_field(bp, entity, start) if op.to_status not in ONGOING else None
        late = 0 if op.to_status in ONGOING else LATE_DAYS
        if op.to_status in ENDED and end is None and entity.field(start).type == "date":
            late = None  # an engagement from a start date (a placement, a tutoring pair) ends when it ends
        pid = _free_id(f"{op.name[:34]}_when", ids)
        out.append({"id": pid, "category": KIND.category, "rule": _rule(bp, op, start, end, late),
                    "operations": [op.name], "check": check(start, end, late)})
    return out


__all__ = ["missing"]


def _free_id(pid: str, ids: set[str]) -> str:
    """`pid`, or it with a number after it when a policy holds it already; taken into `ids`."""
    base, n = pid, 1
    while pid in ids:
        n += 1
        pid = f"{base[:-5][:32]}_when{n}"
    ids.add(pid)
    return pid
