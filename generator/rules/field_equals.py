"""The `field_equals` check kind: the row's `field` is one of `values` (eligibility on a field of its own).

    check: {kind: field_equals, field: severity, values: [critical, high]}   # only a critical or high finding is paged

The same check as status_in (generator/rules/status_in.py) on a field that is not where the row came from, so
an existing row must satisfy it, and the seed is repaired to (the field set to an allowed value). On the status
field itself it is a status_in in all but name. With a `when`, the audit arranges its world (the condition made
to hold, the field given an allowed value or another) instead of building a trap.
"""

from __future__ import annotations

import random
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, Operation, Precondition, typed
from envcraft.generator.rules.kind import Arranging, Knobs, Later, Tables, other_value
from envcraft.generator.rules.status_in import StatusIn
from envcraft_runtime.rules import Fact, not_among


class FieldEquals(StatusIn):
    name = "field_equals"
    category = "eligibility"

    def source_states(self, entity: Entity, pre: Precondition) -> list[str] | None:
        return None

    def checks_seed(self, entity: Entity, pre: Precondition) -> bool:
        return pre.field != entity.status_field

    def fact(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, row: dict[str, Any],
             tables: Tables, now: bool, later: Later) -> Fact | None:
        return not_among(row, pre.field, tuple(typed(entity.field(pre.field), v) for v in pre.values), entity.name)

    def repair_moves(self, bp: Blueprint, tables: Tables, entity: Entity, pre: Precondition, row: dict[str, Any],
                     rng: random.Random, knobs: Knobs) -> None:
        """The field set to one of the allowed values."""
        knobs.own[pre.field] = [{pre.field: typed(entity.field(pre.field), v)} for v in pre.values]

    def arranged(self, pre: Precondition) -> bool:
        return pre.when is not None

    def arrange(self, bp: Blueprint, pre: Precondition, hold: bool, at: Arranging) -> bool:
        spec = at.entity.field(pre.field)
        allowed = [typed(spec, v) for v in pre.values]
        value = allowed[0] if hold else other_value(spec, allowed)
        if spec.type == "str" and not hold:
            value = next((v for v in spec.values if v not in allowed), "audit-disallowed")
        return value is not None and at.put(pre.field, value)


KIND = FieldEquals()
