"""The `unique` check kind: no other row of the entity holds the same value of `field`.

    check: {kind: unique, field: invoice_number}   # an invoice number is entered once

A field marked `unique: true` in the blueprint is kept unique the same way without a policy; this check is the
stated rule (cited by its id). The runtime helper that decides is envcraft_runtime.rules.taken_by_other; here
is what app.py calls, the fact on a seed row, which field it keeps unique (the seed, probes and tasks draw
fresh values for it), and the audit's trap (a value another row already holds).
"""

from __future__ import annotations

from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, Operation, Precondition
from envcraft.generator.rules.kind import Emit, Later, ProbeWorld, RuleKind, Tables, Trap, set_field
from envcraft_runtime.rules import Fact, taken_by_other


class Unique(RuleKind):
    name = "unique"
    category = "uniqueness"
    needs = ("field",)

    def unique_field(self, pre: Precondition) -> str | None:
        return pre.field

    def code(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, emit: Emit) -> tuple[str | None, str]:
        lit = emit.lit
        return None, f'taken_by_other(tables[{lit(entity.table)}], {lit(pre.field)}, _new.get({lit(pre.field)}), _new["id"])'

    def fact(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, row: dict[str, Any],
             tables: Tables, now: bool, later: Later) -> Fact | None:
        return taken_by_other(tables[entity.table], pre.field, row.get(pre.field), row["id"])

    def trap(self, bp: Blueprint, op: Operation, pre: Precondition, tables: Tables, row: dict[str, Any] | None,
             args: dict[str, Any], new: dict[str, Any], world: ProbeWorld) -> Trap | None:
        """The call given another row's value; when it does not set the field, another row given ours."""
        table, own = bp.entity(op.entity).table, row["id"] if row else None
        taken = next((r.get(pre.field) for r in tables.get(table, []) if r.get("id") != own
                      and r.get(pre.field) is not None), None)
        if pre.field in args and taken is not None:
            return Trap({**args, pre.field: taken})
        value = new.get(pre.field)
        victim = next((r["id"] for r in tables.get(table, []) if r.get("id") != own), None)
        if value is None or victim is None:
            return None
        return Trap(args, set_field(table, victim, pre.field, value))


KIND = Unique()
