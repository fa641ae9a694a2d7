"""The `open_period` check kind: a write lands in a period whose row says it is open.

    check: {kind: open_period, field: period, entity: accounting_period, other_field: period, values: [open]}
                                                          # no postings to a locked month

The period is looked up by key, not by a ref: the row of `entity` whose `other_field` is our `field` (a date or a
time: its month, YYYY-MM) must have its status among `values`; a period with no row blocks too. It speaks of the
moment of the write (October's entries were posted while October was open), so a seed row is not checked against
it. The runtime helper that decides is envcraft_runtime.rules.period_shut; here is what app.py calls, the keys a
task may write (those of open periods), and the audit's arrangement (the period's status set, or the write moved
to a period that is open or shut).
"""

from __future__ import annotations

from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, FieldSpec, Operation, Precondition, typed
from envcraft.generator.rules.kind import Arranging, Emit, Later, RuleKind, Tables, other_value, set_field
from envcraft_runtime.rules import Fact, period_key, period_shut


def _periods(bp: Blueprint, pre: Precondition) -> Entity:
    return bp.entity(pre.entity)


def _allowed(bp: Blueprint, pre: Precondition) -> tuple[Any, ...]:
    periods = _periods(bp, pre)
    return tuple(typed(periods.field(periods.status_field), v) for v in pre.values)


def _fact(bp: Blueprint, pre: Precondition, row: dict[str, Any], tables: Tables) -> Fact | None:
    periods = _periods(bp, pre)
    return period_shut(tables.get(periods.table, []), pre.other_field, row.get(pre.field), periods.status_field,
                       _allowed(bp, pre), periods.name.replace("_", " "))


class OpenPeriod(RuleKind):
    name = "open_period"
    category = "state_guard"
    needs = ("field", "entity", "other_field")

    def problems(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, where: str) -> list[str]:
        if pre.entity not in {e.name for e in bp.entities}:
            return [f"{where} names unknown entity {pre.entity!r}"]
        periods = _periods(bp, pre)
        out = []
        if not periods.status_field or not pre.values:
            out.append(f"{where}: {periods.name} needs a status field, and the check the open statuses in `values`")
        if pre.other_field not in {f.name for f in periods.fields}:
            out.append(f"{where} other_field {pre.other_field!r} is not a field of {periods.name}")
        if entity.field(pre.field).type not in ("str", "date", "datetime"):
            out.append(f"{where} looks the period up by {pre.field}: a period key (str) or a date")
        return out

    def named_values(self, bp: Blueprint, entity: Entity, pre: Precondition) -> list[tuple[FieldSpec, list[str]]]:
        periods = _periods(bp, pre)
        return [(periods.field(periods.status_field), pre.values)] if periods.status_field else []

    def checks_seed(self, entity: Entity, pre: Precondition) -> bool:
        return False

    def code(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, emit: Emit) -> tuple[str | None, str]:
        lit = emit.lit
        periods = _periods(bp, pre)
        allowed = "(" + ", ".join(lit(v) for v in _allowed(bp, pre)) + ",)"
        return None, (f"period_shut(tables[{lit(periods.table)}], {lit(pre.other_field)}, {emit.subject}.get("
                      f"{lit(pre.field)}), {lit(periods.status_field)}, {allowed}, {lit(periods.name.replace('_', ' '))})")

    def fact(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, row: dict[str, Any],
             tables: Tables, now: bool, later: Later) -> Fact | None:
        return _fact(bp, pre, row, tables)

    def holds(self, bp: Blueprint, entity: Entity, tables: Tables, row: dict[str, Any], pre: Precondition) -> bool:
        return row.get(pre.field) is None or _fact(bp, pre, row, tables) is None

    def choices(self, bp: Blueprint, entity: Entity, pre: Precondition, field: str, tables: Tables) -> list[Any] | None:
        """The period keys a task may write in `field` (a str key: those of open periods)."""
        if field != pre.field or entity.field(field).type != "str":
            return None
        periods = _periods(bp, pre)
        return sorted(r[pre.other_field] for r in tables.get(periods.table, [])
                      if r.get(periods.status_field) in _allowed(bp, pre) and r.get(pre.other_field) is not None)

    def arranged(self, pre: Precondition) -> bool:
        return True

    def arrange(self, bp: Blueprint, pre: Precondition, hold: bool, at: Arranging) -> bool:
        """The period the write lands in opened (or shut); a write that lands in no period is moved to one."""
        periods = _periods(bp, pre)
        rows = at.tables.get(periods.table, [])
        status = periods.field(periods.status_field)
        wanted = _allowed(bp, pre)[0] if hold else other_value(status, list(_allowed(bp, pre)))
        if wanted is None:
            return False
        key = period_key(at.new.get(pre.field))
        row = next((r for r in rows if r.get(pre.other_field) == key), None)
        if row is None:
            if at.entity.field(pre.field).type != "str" or not rows:
                return False
            row = rows[0]
            if not at.put(pre.field, row.get(pre.other_field)):
                return False
        at.patches.append(set_field(periods.table, row["id"], periods.status_field, wanted))
        return True


KIND = OpenPeriod()
