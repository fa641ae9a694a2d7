"""The `is_set` check kind: the row's `field` has a value.

    check: {kind: is_set, field: backout_plan, when: {field: tier, op: in, values: [tier1]}}   # a backout plan is written

The runtime helper that decides is envcraft_runtime.rules.unset; here is what app.py calls, the fact on a seed
row, the seed's moves (the field filled from its values, or "<field> on file"), and the audit's arrangement
(the field given a value, or none).
"""

from __future__ import annotations

import random
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, Operation, Precondition, typed
from envcraft.generator.rules.kind import Arranging, Emit, Knobs, Later, RuleKind, Tables
from envcraft_runtime.rules import Fact, unset


class IsSet(RuleKind):
    name = "is_set"
    category = "state_guard"
    needs = ("field",)

    def arranged(self, pre: Precondition) -> bool:
        return True

    def code(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, emit: Emit) -> tuple[str | None, str]:
        return None, f"unset(_new, {emit.lit(pre.field)}, {emit.lit(entity.name.replace('_', ' '))})"

    def fact(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, row: dict[str, Any],
             tables: Tables, now: bool, later: Later) -> Fact | None:
        return unset(row, pre.field, entity.name)

    def repair_moves(self, bp: Blueprint, tables: Tables, entity: Entity, pre: Precondition, row: dict[str, Any],
                     rng: random.Random, knobs: Knobs) -> None:
        """The field written: one of its values, or "<field> on file"."""
        spec = entity.field(pre.field)
        pool = list(spec.values) or [f"{pre.field.replace('_', ' ')} on file"]
        knobs.own[pre.field] = [{pre.field: typed(spec, v)} for v in pool]

    def arrange(self, bp: Blueprint, pre: Precondition, hold: bool, at: Arranging) -> bool:
        spec = at.entity.field(pre.field)
        return at.put(pre.field, (spec.values[0] if spec.values else "audit value") if hold else None)


KIND = IsSet()
