"""The `arithmetic` check kind: a written field against a formula of other fields of the row and of rows it refers to.

    check: {kind: arithmetic, field: charge, op: "==",
            formula: {function: product, of: [quantity, supply_item_id.unit_cost]}}   # a charge is quantity x unit cost
    check: {kind: arithmetic, field: amount, op: "<=",
            formula: {function: difference, of: [from_account_id.available_balance, from_account_id.minimum_balance]}}
                                                             # a transfer keeps the account at its minimum balance

A term is a field of the row (`quantity`) or `ref_field.field`, a field of the row one of its refs points at.
Money compares to the cent. An equality defines a value that holds for as long as the row does (a charge stays
quantity x unit cost), so seed rows obey it; an inequality with a referenced row's field speaks of the moment of
the write (the transfer itself moved the balance), so a seed row is not checked against it. The runtime helpers
that decide are envcraft_runtime.rules.formula_fails and worked_out; here is what app.py calls, the fact on a seed
row, the seed's moves (the field set to the worked-out value), what a task writes (that value, or at most it),
and the audit's arrangement (a referenced term, else the field, moved so the comparison holds or breaks).
"""

from __future__ import annotations

import math
import random
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, Operation, Precondition
from envcraft.generator.rules.kind import Arranging, Emit, Knobs, Later, RuleKind, Tables, satisfying, set_field
from envcraft_runtime.rules import Fact, formula_fails, worked_out

NUMBERS = ("int", "float")


def terms(pre: Precondition) -> list[tuple[str | None, str]]:
    """(ref field or None, field) of each term: `supply_item_id.unit_cost` -> (supply_item_id, unit_cost); a number
    is (None, "100")."""
    return [(None, t) if _number(t) else tuple(t.split(".", 1)) if "." in t else (None, t)  # type: ignore[misc]
            for t in pre.formula.of]


def _number(term: str) -> bool:
    return term[:1].isdigit()


def _holder(bp: Blueprint, entity: Entity, ref: str | None) -> Entity:
    return entity if ref is None else bp.entity(entity.field(ref).ref)


def _names(bp: Blueprint, entity: Entity, pre: Precondition) -> tuple[str, ...]:
    """The terms in words: quantity, the supply item's unit cost."""
    return tuple(field if _number(field) else field.replace("_", " ") if ref is None else
                 f"the {_holder(bp, entity, ref).name.replace('_', ' ')}'s {field.replace('_', ' ')}"
                 for ref, field in terms(pre))


def _values(bp: Blueprint, entity: Entity, tables: Tables, row: dict[str, Any], pre: Precondition) -> list[Any]:
    """Each term's value for this row (None where a reference is empty or dangling)."""
    out = []
    for ref, field in terms(pre):
        if ref is None:
            out.append(float(field) if _number(field) else row.get(field))
            continue
        table = _holder(bp, entity, ref).table
        there = next((r for r in tables.get(table, []) if row.get(ref) is not None and r.get("id") == row.get(ref)), None)
        out.append(None if there is None else there.get(field))
    return out


def value(bp: Blueprint, entity: Entity, tables: Tables, row: dict[str, Any], pre: Precondition) -> float | None:
    """The formula worked out for this row."""
    return worked_out(pre.formula.function, tuple(_values(bp, entity, tables, row, pre)))


def _fits(spec_type: str, number: float) -> Any:
    """The number as the field's type holds it (None: an int field cannot hold it)."""
    if spec_type == "int":
        return round(number) if abs(number - round(number)) < 1e-9 else None
    return round(number, 2)


def _solve(function: str, values: list[float], index: int, target: float) -> float | None:
    """The value of term `index` that makes the formula come to `target`, the others as they are."""
    others = [v for i, v in enumerate(values) if i != index]
    if function == "sum":
        return target - sum(others)
    if function == "difference":
        return target + sum(others) if index == 0 else values[0] - sum(others) - target
    rest = math.prod(others)
    return None if rest == 0 else target / rest


class Arithmetic(RuleKind):
    name = "arithmetic"
    category = "consistency"
    needs = ("field", "op", "formula")

    def problems(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, where: str) -> list[str]:
        out = []
        if entity.field(pre.field).type not in NUMBERS:
            out.append(f"{where} writes `{pre.field}`, which is not a number")
        for ref, field in terms(pre):
            if _number(field):
                continue
            if ref is not None and entity.field(ref).type != "ref":
                out.append(f"{where}: formula term {ref}.{field} needs {ref} to be a ref field of {entity.name}")
                continue
            holder = _holder(bp, entity, ref)
            if field not in {f.name for f in holder.fields} or holder.field(field).type not in NUMBERS:
                out.append(f"{where}: formula term {field} is not a number field of {holder.name}")
        return out

    def checks_seed(self, entity: Entity, pre: Precondition) -> bool:
        return pre.op in ("==", "!=") or all(ref is None for ref, _ in terms(pre))

    def reads(self, bp: Blueprint, entity: Entity, pre: Precondition) -> list[tuple[str, str]]:
        """The referenced rows' fields a seed row's check reads (a new unit cost re-checks the charges)."""
        if not self.checks_seed(entity, pre) or pre.when is not None:  # `when`: the general repair's question
            return []
        return [(_holder(bp, entity, ref).name, field) for ref, field in terms(pre) if ref is not None]

    def code(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, emit: Emit) -> tuple[str | None, str]:
        lit = emit.lit
        parts = [lit(float(field)) if _number(field) else f"_new.get({lit(field)})" if ref is None else
                 f"field_of(tables, {lit(_holder(bp, entity, ref).table)}, _new.get({lit(ref)}), {lit(field)})"
                 for ref, field in terms(pre)]
        values = "(" + ", ".join(parts) + ",)"
        names = "(" + ", ".join(lit(n) for n in _names(bp, entity, pre)) + ",)"
        return None, (f"formula_fails(_new.get({lit(pre.field)}), {lit(pre.op)}, {lit(pre.formula.function)}, "
                      f"{values}, {lit(pre.field.replace('_', ' '))}, {names})")

    def fact(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, row: dict[str, Any],
             tables: Tables, now: bool, later: Later) -> Fact | None:
        return formula_fails(row.get(pre.field), pre.op, pre.formula.function,
                             tuple(_values(bp, entity, tables, row, pre)), pre.field.replace("_", " "),
                             _names(bp, entity, pre))

    def holds(self, bp: Blueprint, entity: Entity, tables: Tables, row: dict[str, Any], pre: Precondition) -> bool:
        return formula_fails(row.get(pre.field), pre.op, pre.formula.function,
                             tuple(_values(bp, entity, tables, row, pre)), "", ()) is None

    def own_value(self, bp: Blueprint, entity: Entity, tables: Tables, row: dict[str, Any],
                  pre: Precondition) -> Any:
        """A value of the written field that keeps the rule for this row (None: none it can hold)."""
        worked = value(bp, entity, tables, row, pre)
        if worked is None or pre.op == "!=":
            return None
        spec = entity.field(pre.field)
        step = 1 if spec.type == "int" else 0.01
        wanted = {"==": worked, "<=": worked, ">=": worked, "<": worked - step, ">": worked + step}[pre.op]
        if spec.type == "int":
            wanted = math.floor(wanted + 1e-9) if pre.op in ("<=", "<") else math.ceil(wanted - 1e-9)
            if pre.op == "==" and wanted != worked:
                return None
        wanted = _fits(spec.type, wanted)
        low = spec.min if spec.min is not None else -math.inf
        high = spec.max if spec.max is not None else math.inf
        return wanted if wanted is not None and low <= wanted <= high else None

    def seed_world(self, bp: Blueprint, entity: Entity, pre: Precondition, tables: Tables,
                   rng: random.Random) -> None:
        """Each drawn row that breaks the rule gets the worked-out value (a charge of quantity x unit cost)."""
        if not self.checks_seed(entity, pre) or pre.when is not None:  # `when`: the general repair's question
            return
        for row in tables.get(entity.table, []):
            if not self.holds(bp, entity, tables, row, pre):
                fixed = self.own_value(bp, entity, tables, row, pre)
                if fixed is not None:
                    row[pre.field] = fixed

    def repair_moves(self, bp: Blueprint, tables: Tables, entity: Entity, pre: Precondition, row: dict[str, Any],
                     rng: random.Random, knobs: Knobs) -> None:
        fixed = self.own_value(bp, entity, tables, row, pre)
        if fixed is not None:
            knobs.own.setdefault(pre.field, []).append({pre.field: fixed})

    def derived(self, bp: Blueprint, entity: Entity, pre: Precondition, fields: dict[str, Any],
                tables: Tables) -> Any:
        """What a task writes in the field: the worked-out value an equality ties it to (None: the rule does not
        fix it)."""
        if pre.op != "==" or pre.field not in fields:  # the caller asks whether it applies
            return None
        return self.own_value(bp, entity, tables, fields, pre)

    def capped_amount(self, pre: Precondition) -> str | None:
        return pre.field if pre.op in ("<", "<=") else None

    def amount_cap(self, bp: Blueprint, entity: Entity, pre: Precondition, fields: dict[str, Any],
                   tables: Tables) -> float | None:
        """The most the field may be (an amount at most the balance above the minimum); None when a term is
        unknown yet."""
        if pre.op not in ("<", "<="):  # whether it applies is the caller's question
            return None
        worked = value(bp, entity, tables, fields, pre)
        return None if worked is None else worked - (0.01 if pre.op == "<" else 0)

    def arranged(self, pre: Precondition) -> bool:
        return True

    def arrange(self, bp: Blueprint, pre: Precondition, hold: bool, at: Arranging) -> bool:
        """A referenced term moved so that the formula comes to a value the written field keeps (or breaks); with
        no referenced term that can take it, the written field itself."""
        entity, new = at.entity, at.new
        view = dict(new)
        if hold and self.holds(bp, entity, at.tables, view, pre):
            return True
        left = new.get(pre.field)
        values = _values(bp, entity, at.tables, view, pre)
        if isinstance(left, (int, float)) and all(isinstance(v, (int, float)) for v in values):
            target = satisfying({"<=": ">=", "<": ">", ">=": "<=", ">": "<"}.get(pre.op, pre.op), left, hold)
            for index in reversed(range(len(values))):  # the last term first: a price, a minimum balance
                ref, field = terms(pre)[index]
                if ref is None or new.get(ref) is None:
                    continue
                holder = _holder(bp, entity, ref)
                solved = _solve(pre.formula.function, values, index, target)
                moved = None if solved is None else _fits(holder.field(field).type, solved)
                if moved is None:
                    continue
                trial = [moved if i == index else v for i, v in enumerate(values)]
                if (formula_fails(left, pre.op, pre.formula.function, tuple(trial), "", ()) is None) == hold:
                    at.patches.append(set_field(holder.table, new.get(ref), field, moved))
                    return True
        worked = value(bp, entity, at.tables, view, pre)
        if worked is None:
            return False
        spec = entity.field(pre.field)
        if spec.type == "float":
            wanted = _fits(spec.type, satisfying(pre.op, worked, hold))
        elif hold:
            wanted = self.own_value(bp, entity, at.tables, view, pre)
        else:  # an int just past the worked-out value on the side the rule forbids
            wanted = math.ceil(worked - 1e-9) - 1 if pre.op in (">=", ">") else math.floor(worked + 1e-9) + 1
        return wanted is not None and at.put(pre.field, wanted)


KIND = Arithmetic()
