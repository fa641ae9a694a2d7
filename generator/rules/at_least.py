"""The `at_least` check kind: the referenced row holds at least the amount the call asks for.

    check: {kind: at_least, field: quantity, ref_field: lot_id, other_field: on_hand}   # no issue beyond the stock

The referenced row's `other_field` must be >= the call's `field` (stock to issue from, a balance to draw on).
It speaks of the moment of the write: the write itself used the stock up, so a seed row is not checked
against it. The runtime helper that decides is envcraft_runtime.rules.short_of; here is what app.py calls,
the amount a task or a probe may ask for, and the audit's trap (the stock set just below the amount).
"""

from __future__ import annotations

from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, Operation, Precondition
from envcraft.generator.rules.kind import Emit, ProbeWorld, RuleKind, Tables, Trap, set_field


def _stock(bp: Blueprint, entity: Entity, pre: Precondition) -> Entity:
    """The entity whose rows hold the amount drawn on."""
    return bp.entity(entity.field(pre.ref_field).ref)


class AtLeast(RuleKind):
    name = "at_least"
    category = "threshold"
    needs = ("ref_field", "other_field", "field")
    archetype = "multi_criteria_bilateral_matching"

    def checks_seed(self, entity: Entity, pre: Precondition) -> bool:
        return False

    def code(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, emit: Emit) -> tuple[str | None, str]:
        lit = emit.lit
        other = _stock(bp, entity, pre)
        setup = f"_have = field_of(tables, {lit(other.table)}, _new.get({lit(pre.ref_field)}), {lit(pre.other_field)})"
        return setup, (f"short_of(_have, _new.get({lit(pre.field)}), {lit(other.name.replace('_', ' '))}, "
                       f"_new.get({lit(pre.ref_field)}), {lit(pre.other_field)})")

    def reads_ref_path(self, pre: Precondition) -> bool:
        return True

    def capped_amount(self, pre: Precondition) -> str | None:
        return pre.field

    def amount_cap(self, bp: Blueprint, entity: Entity, pre: Precondition, fields: dict[str, Any],
                   tables: Tables) -> float | None:
        """The referenced row's stock, when the call names one."""
        if not (pre.ref_field and pre.field):
            return None
        ref_id = fields.get(pre.ref_field)
        have = next((r.get(pre.other_field) for r in tables.get(_stock(bp, entity, pre).table, []) if r["id"] == ref_id),
                    None)
        return have if isinstance(have, (int, float)) else None

    def pick_ref(self, bp: Blueprint, entity: Entity, pre: Precondition, field: str, rows: list[dict[str, Any]],
                 tables: Tables) -> Any:
        """The row with the most stock."""
        if pre.ref_field != field:
            return None
        numeric = [r for r in rows if isinstance(r.get(pre.other_field), (int, float))]
        return max(numeric, key=lambda r: r[pre.other_field])["id"] if numeric else None

    def trap(self, bp: Blueprint, op: Operation, pre: Precondition, tables: Tables, row: dict[str, Any] | None,
             args: dict[str, Any], new: dict[str, Any], world: ProbeWorld) -> Trap | None:
        """The call, after the referenced row's stock is set one below the amount it asks for."""
        entity = bp.entity(op.entity)
        other = _stock(bp, entity, pre)
        stock = new.get(pre.ref_field)
        if stock is None:
            return None
        need = new.get(pre.field)
        if not isinstance(need, (int, float)):
            return None
        return Trap(args, set_field(other.table, stock, pre.other_field, need - 1))


KIND = AtLeast()
