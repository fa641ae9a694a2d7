"""The `happens_now` check kind: an operation that records an event (check in, arrive, serve, finish, mark a
no-show) refuses when the event is not now, within the window its blueprint states.

    check: {kind: happens_now, field: start, end: end, late_days: 3}   # an outcome, up to 3 days after the end

The window is counted in days on the app's clock (its TODAY): the write is allowed from `early_days` (none: 0)
before the day of the event's `field` to `late_days` after its `end` (none: that day); no `late_days`: any time
after. It speaks of the moment of the write (a seed row was checked in on its day), so seed rows are not checked
against it: generator/seeds/seed_timeline.py keeps them where their statuses say they are in time. The runtime helper
that decides is envcraft_runtime.rules.not_now; here is what app.py calls, the fact on a row on a given day, and
the audit's arrangement (the event moved, start and end together, to today or BREAK_DAYS ahead).
generator/model/time_guards.py drafts the policy a blueprint states for each operation that records an event.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, Operation, Precondition
from envcraft.generator.rules.kind import Arranging, Emit, RuleKind
from envcraft_runtime.rules import Fact, not_now, shifted

DAY = 24 * 60
BREAK_DAYS = 30  # how far ahead the audit puts an event to show the guard refusing


def fact(pre: Precondition, row: dict[str, Any], today: str) -> Fact | None:
    """What app.py's check would say of this row on `today`."""
    return not_now(row.get(pre.field), row.get(pre.end) if pre.end else None, today, pre.early_days or 0,
                   pre.late_days, pre.field)


def moments(bp: Blueprint, entity: Entity, pre: Precondition, row: dict[str, Any], hold: bool,
            ends: list[str]) -> dict[str, Any]:
    """The event's start (and `ends`) moved, as a whole, to today (hold) or BREAK_DAYS ahead (break); {} when
    the row has no time to move."""
    begin = row.get(pre.field)
    if not isinstance(begin, str) or len(begin) < 10:
        return {}
    today = date.fromisoformat(bp.today)
    early = pre.early_days or 0
    target = today + timedelta(days=min(early, 0)) if hold else today + timedelta(days=BREAK_DAYS + early)
    days = (target - date.fromisoformat(begin[:10])).days
    out = {pre.field: shifted(begin, days * DAY)}
    for end in ends:
        if isinstance(row.get(end), str):
            out[end] = shifted(row[end], days * DAY)
    return out


def guards(op: Operation) -> list[Precondition]:
    """The operation's checks of this kind."""
    return [pre for pre in op.preconditions if pre.kind == KIND.name]


def check(field: str, end: str | None, late: int | None) -> dict[str, Any]:
    """A check of this kind as blueprint data (late None: any time after)."""
    return {"kind": KIND.name, "field": field} | ({"end": end} if end else {}) | \
        ({"late_days": late} if late is not None else {})


class HappensNow(RuleKind):
    name = "happens_now"
    category = "time_window"
    needs = ("field",)

    def problems(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, where: str) -> list[str]:
        names = {f.name: f.type for f in entity.fields}
        if any(names.get(f) not in ("date", "datetime") for f in (pre.field, pre.end) if f):
            return [f"{where} reads {pre.field!r} and {pre.end!r}: the event's date or datetime fields"]
        return []

    def code(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition,
             emit: Emit) -> tuple[str | None, str]:
        end = f"_new.get({emit.lit(pre.end)})" if pre.end else "None"
        return None, (f"not_now(_new.get({emit.lit(pre.field)}), {end}, TODAY, {pre.early_days or 0!r}, "
                      f"{pre.late_days!r}, {emit.lit(pre.field)})")

    def checks_seed(self, entity: Entity, pre: Precondition) -> bool:
        return False

    def arranged(self, pre: Precondition) -> bool:
        return True

    def arrange(self, bp: Blueprint, pre: Precondition, hold: bool, at: Arranging) -> bool:
        ends = ([pre.end] if pre.end else []) + [e for e, s in at.pairs(at.entity).items() if s == pre.field]
        moved = moments(bp, at.entity, pre, at.new, hold, list(dict.fromkeys(ends)))
        return bool(moved) and all(at.put(name, value) for name, value in moved.items())


KIND = HappensNow()

__all__ = ["BREAK_DAYS", "KIND", "check", "fact", "guards", "moments"]
