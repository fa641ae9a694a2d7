"""The `status_in` check kind: the row's `field` (its status, as it is before the write) is one of `values`.

    check: {kind: status_in, field: status, values: [draft, submitted]}   # only a draft or submitted claim is approved

On a create it reads the argument. It says where a row may come from, so the statuses it allows are where a
transition starts (the seed's history, SKILL.md's state machine, the task routes), and an existing row says
nothing about it (a row moved on since). field_equals (generator/rules/field_equals.py) is the same check on a
field other than where the row came from. The runtime helper that decides is envcraft_runtime.rules.not_among;
here is what app.py calls and the audit's trap (a value outside the allowed ones).
"""

from __future__ import annotations

from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, FieldSpec, Operation, Precondition, typed
from envcraft.generator.rules.kind import Emit, ProbeWorld, RuleKind, Tables, Trap, set_field


class StatusIn(RuleKind):
    name = "status_in"
    category = "state_guard"
    needs = ("field",)
    reads_row_as_is = True

    def named_values(self, bp: Blueprint, entity: Entity, pre: Precondition) -> list[tuple[FieldSpec, list[str]]]:
        return [(entity.field(pre.field), pre.values)]

    def value_guard(self, pre: Precondition) -> tuple[str, list[str]] | None:
        return pre.field, pre.values

    def holds(self, bp: Blueprint, entity: Entity, tables: Tables, row: dict[str, Any], pre: Precondition) -> bool:
        return row.get(pre.field) in [typed(entity.field(pre.field), v) for v in pre.values]

    def source_states(self, entity: Entity, pre: Precondition) -> list[str] | None:
        return pre.values if pre.field == entity.status_field else None

    def checks_seed(self, entity: Entity, pre: Precondition) -> bool:
        return False

    def code(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, emit: Emit) -> tuple[str | None, str]:
        lit = emit.lit
        allowed = [lit(typed(entity.field(pre.field), v)) for v in pre.values]
        choices = "(" + ", ".join(allowed) + ("," if len(allowed) == 1 else "") + ")"
        return None, (f"not_among({emit.subject}, {lit(pre.field)}, {choices}, "
                      f"{lit(entity.name.replace('_', ' '))})")

    def trap(self, bp: Blueprint, op: Operation, pre: Precondition, tables: Tables, row: dict[str, Any] | None,
             args: dict[str, Any], new: dict[str, Any], world: ProbeWorld) -> Trap | None:
        """The call with a value outside the allowed ones: as the argument of a create, else on the row."""
        entity = bp.entity(op.entity)
        spec = entity.field(pre.field)
        allowed = [typed(spec, v) for v in pre.values]
        bad = ([v for v in spec.values if v not in allowed] if spec.type == "enum" else
               [not allowed[0]] if spec.type == "bool" and allowed else ["audit-disallowed"])
        # a value the operation's other guards on this field let through, so only this rule can block it
        # (a close from `moved` where IT must reconnect first, not a close from `requested`)
        others = [typed(spec, v) for other in op.preconditions if other is not pre and other.kind == pre.kind
                  and other.field == pre.field and not other.when for v in other.values]
        bad = sorted(bad, key=lambda v: others != [] and v not in others)
        if not bad:
            return None
        if op.kind == "create":
            return Trap({**args, pre.field: bad[0]}) if pre.field in args else None
        return Trap(args, set_field(entity.table, row["id"] if row else None, pre.field, bad[0]))


KIND = StatusIn()
