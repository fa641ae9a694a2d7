"""The `from_previous` check kind: the value a write gives a field against the value the row held before it.

    check: {kind: from_previous, field: attempts, op: "==", value: 1}   # a failure counts one more attempt

The written `field` must be `op` its previous value plus `value` (a counter one up; with `op: ">="` and `value: 0`,
a number that never goes down). It speaks of a change, so a seed row, which has no value before, is not checked
against it. The runtime helper that decides is envcraft_runtime.rules.off_previous; here is what app.py calls, what
a task's change carries (the field one up), and the audit's arrangement (the argument set from the row's value,
that value first moved so the step stays within the field's range).
"""

from __future__ import annotations

from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, Operation, Precondition
from envcraft.generator.rules.kind import Arranging, Emit, Later, RuleKind, Tables, satisfying, set_field
from envcraft_runtime.rules import Fact


def _step(pre: Precondition) -> float:
    return float(pre.value) if pre.value is not None and not isinstance(pre.value, bool) else 0.0


def _whole(entity: Entity, pre: Precondition, number: float) -> int | float:
    return int(number) if entity.field(pre.field).type == "int" else round(number, 2)


class FromPrevious(RuleKind):
    name = "from_previous"
    category = "consistency"
    needs = ("field", "op", "value")

    def problems(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, where: str) -> list[str]:
        out = []
        if op.kind not in ("update", "transition"):
            out.append(f"{where} compares a write with the row's previous value: it belongs to an update or transition")
        if pre.field not in op.params + op.required:
            out.append(f"{where}: {op.name} does not take {pre.field}, so it cannot change it")
        if entity.field(pre.field).type not in ("int", "float") or isinstance(pre.value, (bool, str)):
            out.append(f"{where} steps the number field {pre.field} by a numeric `value`")
        return out

    def checks_seed(self, entity: Entity, pre: Precondition) -> bool:
        return False

    def code(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, emit: Emit) -> tuple[str | None, str]:
        lit = emit.lit
        step = _whole(entity, pre, _step(pre))
        return None, (f"off_previous(_new.get({lit(pre.field)}), {lit(pre.op)}, _row.get({lit(pre.field)}), {lit(step)}, "
                      f"{lit(pre.field.replace('_', ' '))})")

    def fact(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, row: dict[str, Any],
             tables: Tables, now: bool, later: Later) -> Fact | None:
        return None  # a row as it is has no previous value to compare with

    def carried(self, bp: Blueprint, entity: Entity, pre: Precondition, row: dict[str, Any]) -> dict[str, Any]:
        """The field a change of `row` writes: its value stepped (an equality) or left where the rule allows."""
        old = row.get(pre.field)
        if pre.when is not None or not isinstance(old, (int, float)) or isinstance(old, bool):
            return {}
        wanted = satisfying(pre.op, old + _step(pre), True)
        spec = entity.field(pre.field)
        if (spec.max is not None and wanted > spec.max) or (spec.min is not None and wanted < spec.min):
            return {}
        return {pre.field: _whole(entity, pre, wanted)}

    def arranged(self, pre: Precondition) -> bool:
        return True

    def arrange(self, bp: Blueprint, pre: Precondition, hold: bool, at: Arranging) -> bool:
        """The argument set from the row's value (stepped, or a unit off); the row's value moved first when the step
        would leave the field's range."""
        if at.own is None:
            return False
        spec = at.entity.field(pre.field)
        row = next((r for r in at.tables.get(at.entity.table, []) if r.get("id") == at.own), {})
        old = row.get(pre.field)
        old = old if isinstance(old, (int, float)) and not isinstance(old, bool) else (spec.min or 0)
        step = _step(pre)
        high = spec.max if spec.max is not None else old + step + 2
        low = spec.min if spec.min is not None else old - 2
        if not low <= old + step + 1 <= high or not low <= old + step - 1 <= high:
            old = max(low + 1, min(old, high - step - 1))  # room for the step and a unit either side of it
            at.patches.append(set_field(at.entity.table, at.own, pre.field, _whole(at.entity, pre, old)))
        wanted = satisfying(pre.op, old + step, hold)
        if not isinstance(wanted, (int, float)):
            return False
        return at.put(pre.field, _whole(at.entity, pre, wanted))


KIND = FromPrevious()
