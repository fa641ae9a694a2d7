"""When a row's event takes place, and what its status says about that: the vocabulary the seed's timeline
(seed_timeline.py), the census (seed_census.py) and the time guards (time_guards.py, rules/happens_now.py) share.

An entity has an event when it has a status field and a time the event is scheduled for: the start of a
time pair (fields.time_pairs), else the one date/datetime field whose name says when the event takes place
(SCHEDULED; never a deadline such as `due`, since work finished before its deadline is fine). Its statuses
then fall into
  - HAPPENED: the status records the event as having taken place (served, no_show, completed...);
    ONGOING ones of those say it is taking place now (checked_in, arrived, seated...), ENDED ones that it is
    over (checked_out, completed...);
  - planned: a status a transition into a HAPPENED status starts from (booked, scheduled, confirmed...);
  - anything else (cancelled, draft...): says nothing about when.
An entity with a deadline (DEADLINE: `expires`, `due_date`, `respond_by`) has LAPSED statuses too (lapsed,
expired, overdue, past_due): the deadline went by, so its day is before today.
"""

from __future__ import annotations

import re

from envcraft.generator.model.blueprint import Blueprint, Entity, Operation
from envcraft.generator.model.fields import time_pairs
from envcraft.generator.rules.registry import source_states

HAPPENED = frozenset({
    "served", "checked_in", "checked_out", "arrived", "seated", "no_show", "attended", "missed", "completed",
    "done", "finished", "ended", "played", "departed", "signed_on", "sick_called", "picked_up", "collected",
    "delivered", "on_site", "onsite", "at_door", "handed_out", "taken", "wrapped", "recorded", "discussed",
    "resulted", "weighed", "inspected", "surveyed", "finaled",
})
# Taking place now: the event has begun and (when it has an end) not ended; with no end, it is today's.
ONGOING = frozenset({"checked_in", "arrived", "seated", "on_site", "onsite", "at_door", "signed_on"})
# Over: when the event has an end, that end has come.
ENDED = frozenset({"checked_out", "completed", "done", "finished", "ended", "wrapped", "played"})
# A deadline that passed: the status records that a row's deadline (DEADLINE) went by with nothing done, so the
# day after it has come (a licence lapsed after it expired, an installment past due after its due date).
LAPSED = frozenset({"lapsed", "expired", "overdue", "past_due"})
DEADLINE = re.compile(r"(^|_)(due|due_date|due_on|expires|expires_on|expiry|expiry_date|respond_by|deadline|"
                      r"valid_until|return_by)$")
LATE_DAYS = 3  # an event's outcome may be recorded up to this many days after its day
SCHEDULED = re.compile(r"(^|_)(start|starts|scheduled|slot|appointment|visit|service|shift|session|event|"
                       r"pickup|delivery|departure|arrival|planned|meeting|hearing|exam|inspection|run|duty)(_|$)")


def event_field(bp: Blueprint, entity: Entity) -> str | None:
    """The field holding when the entity's event takes place, or None when it has no such time."""
    starts = list(time_pairs(bp, entity).values())
    if starts:
        return starts[0]
    named = [f.name for f in entity.fields if f.type in ("date", "datetime") and SCHEDULED.search(f.name)]
    return named[0] if len(named) == 1 else None


def end_field(bp: Blueprint, entity: Entity, start: str) -> str | None:
    """The field where the event that starts at `start` ends, if it has one."""
    return next((end for end, begin in time_pairs(bp, entity).items() if begin == start), None)


def has_events(bp: Blueprint, entity: Entity) -> bool:
    return bool(entity.status_field and set(entity.field(entity.status_field).values) & HAPPENED
                and event_field(bp, entity))


def records_event(bp: Blueprint, op: Operation) -> bool:
    """The operation records that its row's event took place (check in, serve, mark no-show...)."""
    entity = bp.entity(op.entity)
    return op.kind == "transition" and op.to_status in HAPPENED and has_events(bp, entity)


def deadline_field(entity: Entity) -> str | None:
    """The one date field holding the deadline a LAPSED status says went by, or None."""
    named = [f.name for f in entity.fields if f.type in ("date", "datetime") and DEADLINE.search(f.name)]
    return named[0] if len(named) == 1 else None


def records_lapse(bp: Blueprint, op: Operation) -> bool:
    """The operation records that its row's deadline went by (lapse a licence, mark an installment past due)."""
    entity = bp.entity(op.entity)
    return op.kind == "transition" and op.to_status in LAPSED and deadline_field(entity) is not None


def planned(bp: Blueprint, entity: Entity) -> frozenset[str]:
    """Statuses an event waits in before it takes place: where a transition that records it starts."""
    out: set[str] = set()
    for op in bp.operations:
        if op.entity == entity.name and records_event(bp, op):
            out |= set(source_states(entity, op) or ())
    return frozenset(out - HAPPENED)


__all__ = ["DEADLINE", "ENDED", "HAPPENED", "LAPSED", "LATE_DAYS", "ONGOING", "SCHEDULED", "deadline_field", "end_field",
           "event_field", "has_events", "planned", "records_event", "records_lapse"]
