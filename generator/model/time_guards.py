"""The time guard a blueprint states for each operation that records an event (generator/model/events.py says which):
a `time_window` policy whose check is a `happens_now` (generator/rules/happens_now.py). A check-in is on the
day of the event; an outcome may be recorded from that day to events.LATE_DAYS after its end; the end of an
engagement that runs from a start date only (a tutoring pair) any time after it starts. The rule's text says
what to do meanwhile (leave it in the status it waits in).

    missing(bp) -> [policy data] the default guard of each recording transition its blueprint does not guard
"""

from __future__ import annotations

from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Operation
from envcraft.generator.model.events import ENDED, LATE_DAYS, ONGOING, end_field, event_field, planned, records_event
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
        if not records_event(bp, op) or guards(op):
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
        out.append({"id": pid, "category": KIND.category, "rule": _rule(bp, op, start, end, late),
                    "operations": [op.name], "check": check(start, end, late)})
    return out


__all__ = ["missing"]
