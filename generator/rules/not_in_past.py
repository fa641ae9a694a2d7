"""The `not_in_past` check kind: a date or time the write sets is not before the world's today.

    check: {kind: not_in_past, field: starts_at}   # no booking in the past

It reads the argument when the operation takes the field, else the row's own value. It speaks of the moment
of the write (a seed row of last week was booked before it passed), so seed rows are not checked against it.
The runtime helper that decides is envcraft_runtime.rules.in_past; here is what app.py calls, the field the
task engine keeps in the future, and the audit's trap (yesterday, its paired end moved with it).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, Operation, Precondition
from envcraft.generator.rules.kind import Emit, ProbeWorld, RuleKind, Tables, Trap, set_field


def _later(value: str, datetimes: bool) -> str:
    """An hour (a time) or a day (a date) after `value`."""
    if datetimes:
        return (datetime.strptime(value, "%Y-%m-%dT%H:%M") + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    return (date.fromisoformat(value[:10]) + timedelta(days=1)).isoformat()


class NotInPast(RuleKind):
    name = "not_in_past"
    category = "time_window"
    needs = ("field",)

    def future_field(self, pre: Precondition) -> str | None:
        return pre.field

    def checks_seed(self, entity: Entity, pre: Precondition) -> bool:
        return False

    def code(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, emit: Emit) -> tuple[str | None, str]:
        given = op.kind != "create" and pre.field in op.params + op.required
        value = emit.param(pre.field) if given else f"_new.get({emit.lit(pre.field)})"
        return None, f"in_past({value}, {emit.lit(pre.field)}, TODAY)"

    def trap(self, bp: Blueprint, op: Operation, pre: Precondition, tables: Tables, row: dict[str, Any] | None,
             args: dict[str, Any], new: dict[str, Any], world: ProbeWorld) -> Trap | None:
        """The call with yesterday as the value (as an argument, or on the row it acts on), its ends moved along."""
        entity = bp.entity(op.entity)
        datetimes = entity.field(pre.field).type == "datetime"
        yesterday = world.today - timedelta(days=1)
        past = f"{yesterday.isoformat()}T10:00" if datetimes else yesterday.isoformat()
        ends = [end for end, start in world.pairs(entity).items() if start == pre.field]
        if pre.field in args:
            return Trap({**args, pre.field: past, **{end: _later(past, datetimes) for end in ends if end in args}})
        if row is None:
            return None
        patches = [set_field(entity.table, row["id"], pre.field, past)] + \
            [set_field(entity.table, row["id"], end, _later(past, datetimes)) for end in ends]
        return Trap(args, lambda t: [p(t) for p in patches])


KIND = NotInPast()
