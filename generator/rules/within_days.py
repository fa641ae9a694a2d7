"""The `within_days` check kind: the days from one date to another against a number of days.

    check: {kind: within_days, ref_field: purchase_id, other_field: purchased_on, op: "<=", span_days: 30}
                                                  # a return is requested within 30 days of the purchase
    check: {kind: within_days, field: effectivity_date, op: ">=", span_days: 14}
                                                  # approved today, effective at least 14 days later

The days run from the earlier date (the referenced row's `other_field`, our own field `than`, or with neither today)
to the later one (our `field`; none: today, the day of the write), and must be `op` `span_days`. A check of today speaks of the moment of the
write, so seed rows are checked only when both dates are the row's. The runtime helper that decides is
envcraft_runtime.rules.days_apart; here is what app.py calls, the fact on a seed row, and the audit's arrangement
(the earlier date moved to exactly `span_days` before, or a day further).
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, Operation, Precondition
from envcraft.generator.model.refpath import field_expression, follow, target
from envcraft.generator.rules.kind import Arranging, Emit, Later, RuleKind, Tables, set_field
from envcraft_runtime.rules import Fact, days_apart

DATES = ("date", "datetime")


def _later(bp: Blueprint, row: dict[str, Any], pre: Precondition) -> Any:
    return row.get(pre.field) if pre.field else bp.today


def _earlier(bp: Blueprint, entity: Entity, tables: Tables, row: dict[str, Any], pre: Precondition) -> Any:
    if pre.than:
        return row.get(pre.than)
    if not pre.ref_field:
        return bp.today
    there = follow(bp, entity, tables, row, pre.ref_field, pre.through)
    return None if there is None else there.get(pre.other_field)


def _names(bp: Blueprint, entity: Entity, pre: Precondition) -> tuple[str, str]:
    later = pre.field.replace("_", " ") if pre.field else "today"
    if pre.than:
        return later, pre.than.replace("_", " ")
    if not pre.ref_field:
        return later, "today"
    other = target(bp, entity, pre.ref_field, pre.through)
    return later, f"the {other.name.replace('_', ' ')}'s {pre.other_field.replace('_', ' ')}"


class WithinDays(RuleKind):
    name = "within_days"
    category = "time_window"
    needs = ("op", "span_days")

    def problems(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, where: str) -> list[str]:
        if (pre.than is not None and pre.ref_field is not None) or bool(pre.ref_field) != bool(pre.other_field) \
                or (pre.field is None and pre.than is None and pre.ref_field is None):
            return [f"{where} counts days from our field `than`, the ref_field row's other_field, or (with a `field`) "
                    "today: one of them"]
        out = []
        if pre.field and entity.field(pre.field).type not in DATES:
            out.append(f"{where}: {pre.field} is not a date")
        earlier = entity.field(pre.than) if pre.than else \
            target(bp, entity, pre.ref_field, pre.through).field(pre.other_field) if pre.ref_field else None
        if earlier is not None and earlier.type not in DATES:
            out.append(f"{where}: {earlier.name} is not a date")
        return out

    def reads_ref_path(self, pre: Precondition) -> bool:
        return bool(pre.ref_field)

    def checks_seed(self, entity: Entity, pre: Precondition) -> bool:
        return pre.field is not None and bool(pre.than or pre.ref_field)  # a count from or to today: the write's

    def code(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, emit: Emit) -> tuple[str | None, str]:
        lit = emit.lit
        later = f"_new.get({lit(pre.field)})" if pre.field else "TODAY"
        if pre.than:
            earlier = f"_new.get({lit(pre.than)})"
        elif not pre.ref_field:
            earlier = "TODAY"
        else:
            earlier = field_expression(bp, entity, pre.ref_field, pre.through, pre.other_field, lit)
        later_name, earlier_name = _names(bp, entity, pre)
        return None, (f"days_apart({later}, {earlier}, {lit(pre.op)}, {lit(pre.span_days)}, {lit(later_name)}, "
                      f"{lit(earlier_name)})")

    def fact(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, row: dict[str, Any],
             tables: Tables, now: bool, later: Later) -> Fact | None:
        return days_apart(_later(bp, row, pre), _earlier(bp, entity, tables, row, pre), pre.op, pre.span_days,
                          *_names(bp, entity, pre))

    def holds(self, bp: Blueprint, entity: Entity, tables: Tables, row: dict[str, Any], pre: Precondition) -> bool:
        return days_apart(_later(bp, row, pre), _earlier(bp, entity, tables, row, pre), pre.op, pre.span_days, "", "") is None

    def arranged(self, pre: Precondition) -> bool:
        return True

    def arrange(self, bp: Blueprint, pre: Precondition, hold: bool, at: Arranging) -> bool:
        """The earlier date moved to exactly `span_days` before the later one, or a day further the way the rule forbids."""
        if hold and self.holds(bp, at.entity, at.tables, at.new, pre):
            return True
        later = _later(bp, at.new, pre)
        if not isinstance(later, str):
            return False
        if not pre.than and not pre.ref_field:  # from today: our date moved instead
            gap = pre.span_days + (0 if hold else (1 if pre.op in ("<=", "<") else -1)) + \
                (1 if hold and pre.op == ">" else -1 if hold and pre.op == "<" else 0)
            moved = (date.fromisoformat(bp.today) + timedelta(days=gap)).isoformat()
            return at.put(pre.field, moved + ("T09:00" if at.entity.field(pre.field).type == "datetime" else ""))
        gap = pre.span_days + (0 if hold else (1 if pre.op in ("<=", "<") else -1)) + \
            (-1 if hold and pre.op == "<" else 1 if hold and pre.op == ">" else 0)
        earlier = (date.fromisoformat(later[:10]) - timedelta(days=gap)).isoformat()
        if pre.than:
            spec = at.entity.field(pre.than)
            return at.put(pre.than, earlier + ("T09:00" if spec.type == "datetime" else ""))
        other, there = at.reached(pre.ref_field, pre.through)
        if there is None:
            return False
        spec = other.field(pre.other_field)
        at.patches.append(set_field(other.table, there, pre.other_field,
                                    earlier + ("T09:00" if spec.type == "datetime" else "")))
        return True


KIND = WithinDays()
