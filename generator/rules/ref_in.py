"""The `ref_in` check kind: the row our `ref_field` points at has `other_field` among `values` (eligibility).

    check: {kind: ref_in, ref_field: rental_unit_id, other_field: status, values: [available]}   # an offer needs a free unit
    check: {kind: ref_in, through: volunteer_shift_id, ref_field: partner_agency_id, other_field: cause,
            values: [youth]}   # two hops: the assignment's shift's agency

On the referenced row's status it also says where that row may be moved from by our write's effect (an offer
makes an available unit pending), so the seed's status graph, the task routes and the claims of one live row
per unit read it. A seed row's referenced row may have moved on since (a lot released when stock was issued
may be consumed now): a status the allowed ones lead to still counts. The runtime helper that decides is
envcraft_runtime.rules.not_among; here is what app.py calls, the fact on a seed row, the moves that make more
rows eligible, and the audit's arrangement (the referenced row given an allowed value or another).
"""

from __future__ import annotations

from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, FieldSpec, Operation, Precondition, typed
from envcraft.generator.model.refpath import expression, follow, ref_entity, target
from envcraft.generator.rules.kind import Arranging, Emit, Later, RuleKind, Tables, other_value, set_field
from envcraft_runtime.rules import INACTIVE, Fact, not_among


def _values(entity: Entity, field: str, raw: list[str]) -> tuple[Any, ...]:
    return tuple(typed(entity.field(field), v) for v in raw)


class RefIn(RuleKind):
    name = "ref_in"
    category = "eligibility"
    needs = ("ref_field", "other_field")
    ref_values = True

    def arranged(self, pre: Precondition) -> bool:
        return True

    def reads_ref_path(self, pre: Precondition) -> bool:
        return True

    def gates_create(self, bp: Blueprint, entity: Entity, pre: Precondition) -> bool:
        return True

    def named_values(self, bp: Blueprint, entity: Entity, pre: Precondition) -> list[tuple[FieldSpec, list[str]]]:
        return [(target(bp, entity, pre.ref_field, pre.through).field(pre.other_field), pre.values)]

    def holds(self, bp: Blueprint, entity: Entity, tables: Tables, row: dict[str, Any], pre: Precondition) -> bool:
        other = target(bp, entity, pre.ref_field, pre.through)
        there = follow(bp, entity, tables, row, pre.ref_field, pre.through)
        return there is None or there.get(pre.other_field) in [typed(other.field(pre.other_field), v) for v in pre.values]

    def code(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, emit: Emit) -> tuple[str | None, str]:
        lit = emit.lit
        other = target(bp, entity, pre.ref_field, pre.through)
        setup = f"_other = row_of(tables, {lit(other.table)}, {expression(bp, entity, pre.ref_field, pre.through, lit)})"
        allowed = [lit(v) for v in _values(other, pre.other_field, pre.values)]
        choices = "(" + ", ".join(allowed) + ("," if len(allowed) == 1 else "") + ")"
        return setup, f"not_among(_other, {lit(pre.other_field)}, {choices}, {lit(other.name.replace('_', ' '))})"

    def effect_status(self, bp: Blueprint, op: Operation, pre: Precondition) -> tuple[Any, ...]:
        """The status a create's own effect gives the row the check reads (an award makes its application
        awarded), as a one-tuple; () when the create leaves that status alone."""
        if op.kind != "create" or pre.through or not pre.ref_field:
            return ()
        other = ref_entity(bp, bp.entity(op.entity), pre.ref_field)
        if other is None or other.status_field != pre.other_field:
            return ()
        return next(((e.value if isinstance(e.value, bool) else typed(other.field(pre.other_field), str(e.value)),)
                     for e in op.effects if e.kind == "set" and e.ref_field == pre.ref_field
                     and e.field == pre.other_field and e.value is not None), ())

    def fact(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, row: dict[str, Any],
             tables: Tables, now: bool, later: Later) -> Fact | None:
        """A live row holds its referenced row where its write moved it; a spent one (an expired offer) may
        have let it go back."""
        other = target(bp, entity, pre.ref_field, pre.through)
        there = follow(bp, entity, tables, row, pre.ref_field, pre.through)
        active = not entity.status_field or row.get(entity.status_field) not in INACTIVE
        allowed = _values(other, pre.other_field, pre.values)
        moved = self.effect_status(bp, op, pre)
        start = moved if active else allowed + moved
        allowed = allowed if now else later(bp, other.name, pre.other_field, start or allowed)
        return not_among(there, pre.other_field, allowed, other.name)

    def supply(self, bp: Blueprint, tables: Tables, entity: Entity, pre: Precondition, row: dict[str, Any] | None,
               targets: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """The referenced rows moved into the first allowed value."""
        other = target(bp, entity, pre.ref_field, pre.through)
        value = typed(other.field(pre.other_field), pre.values[0])
        return [(r, {pre.other_field: value}) for r in targets]

    def arrange(self, bp: Blueprint, pre: Precondition, hold: bool, at: Arranging) -> bool:
        """The referenced row given an allowed value (hold) or another."""
        other, there = at.reached(pre.ref_field, pre.through)
        spec = other.field(pre.other_field)
        allowed = [typed(spec, v) for v in pre.values]
        value = allowed[0] if hold else other_value(spec, allowed)
        if there is None or value is None:
            return False
        at.patches.append(set_field(other.table, there, pre.other_field, value))
        return True


KIND = RefIn()
