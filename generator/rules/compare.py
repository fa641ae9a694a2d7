"""The `compare` check kind: a field of the row against a literal, another field, or a referenced row's field.

    check: {kind: compare, field: amount, op: "<=", than: approved_amount}          # a payout within its approval
    check: {kind: compare, ref_field: vendor_id, other_field: risk_score, op: "<", value: 70}   # a threshold on the vendor
    check: {kind: compare, field: candidate_id, via: city, op: "==", ref_field: requisition_id,
            other_field: location}   # the candidate's city is the requisition's location
    check: {kind: compare, field: level, op: "<=", ref_field: tutor_id, other_field: max_level,
            order: [intro, intermediate, advanced]}   # an enum compared by its own order

With `factor` the right side is scaled (a desired salary within 1.1 x the maximum); with `or_via` the left side is
any of several fields of the row `field` points at (a primary or second language). The runtime helpers that
decide are envcraft_runtime.rules.comparison_fails, order_fails and none_equal; here is what app.py calls, the
fact on a seed row, whether the audit's arranged world holds it, the seed's moves (a value of our own field that
holds), the moves that make more rows eligible, and the audit's arrangement (either side moved to hold or break).
"""

from __future__ import annotations

import math
import random
from datetime import date, timedelta
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, Operation, Precondition, typed
from envcraft.generator.model.refpath import field_expression, follow, ref_entity, target
from envcraft.generator.rules.kind import (
    Arranging,
    Emit,
    Knobs,
    Later,
    Lit,
    Moved,
    RuleKind,
    Tables,
    compares,
    other_value,
    satisfying,
    set_field,
)
from envcraft_runtime.records import field_of
from envcraft_runtime.rules import Fact, comparison_fails, none_equal, order_fails

OPS = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
       ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def call(function: str, *args: str) -> str:
    return f"{function}({', '.join(args)})"


def _tuple(items: list[str]) -> str:
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def what(entity: Entity) -> str:
    return entity.name.replace("_", " ")


def _literal(entity: Entity, field: str, value: Any) -> Any:
    return value if isinstance(value, bool) else typed(entity.field(field), str(value))


_value = lambda spec, raw: raw if isinstance(raw, bool) else typed(spec, str(raw))  # noqa: E731


def reached(bp: Blueprint, entity: Entity, tables: Tables, row: dict[str, Any],
            pre: Precondition) -> tuple[Entity | None, dict[str, Any] | None]:
    """The entity and row the check reads at the end of its ref path, one or two hops away."""
    if not pre.ref_field:
        return None, None
    return target(bp, entity, pre.ref_field, pre.through), follow(bp, entity, tables, row, pre.ref_field, pre.through)


def _reached(bp: Blueprint, entity: Entity, tables: Tables, row: dict[str, Any], ref_field: str | None,
             through: str | None) -> tuple[Entity, dict[str, Any] | None]:
    if not ref_field:
        return entity, row
    return target(bp, entity, ref_field, through), follow(bp, entity, tables, row, ref_field, through)


def _scaled(op: str, left: float, factor: float, hold: bool, whole: bool) -> float:
    """A right-hand value v for which `left op factor * v` holds (or fails), a unit clear of the boundary."""
    bound = left / factor
    up, down = math.floor(bound) + 1, math.ceil(bound) - 1
    value = (up if hold else down) if op in ("<", "<=") else (down if hold else up)
    return value if whole else float(value)


def _flip(op: str) -> str:
    return {">=": "<=", ">": "<", "<=": ">=", "<": ">", "==": "==", "!=": "!="}[op]


def _comparison(pre: Precondition, left: str, right: str, name: str, other: str, lit: Lit) -> str:
    """The fact of a comparison: by the places in `order` when it is given, else by value."""
    if pre.order:
        return call("order_fails", left, lit(pre.op), right, _tuple([lit(v) for v in pre.order]), name, other)
    return call("comparison_fails", left, lit(pre.op), right, name, other)


def _any_of(bp: Blueprint, entity: Entity, pre: Precondition, right: str, other: str, lit: Lit) -> str:
    """The fact of an `or_via` compare: none of the referenced row's fields equals the right side."""
    mine = bp.entity(entity.field(pre.field).ref)
    fields = [pre.via, *pre.or_via]
    lefts = _tuple([call("field_of", "tables", lit(mine.table), f"_new.get({lit(pre.field)})", lit(f)) for f in fields])
    names = [f"the {what(mine)}'s {fields[0].replace('_', ' ')}", *(f.replace("_", " ") for f in fields[1:])]
    return call("none_equal", lefts, right, _tuple([lit(n) for n in names]), other)


def _fact(bp: Blueprint, pre: Precondition, entity: Entity, row: dict[str, Any], tables: Tables) -> Fact | None:
    """What app.py's check says of this existing row (the same runtime helpers)."""
    if pre.field is None:  # a threshold on the referenced row
        other, there = reached(bp, entity, tables, row, pre)
        left = there.get(pre.other_field) if there else None
        right = _literal(other, pre.other_field, pre.value)
        if pre.order:
            return order_fails(left, pre.op, right, tuple(pre.order), pre.other_field, "")
        return comparison_fails(left, pre.op, right, pre.other_field, "")
    left = row.get(pre.field)
    lefts: tuple[Any, ...] = ()
    if pre.via:
        mine = ref_entity(bp, entity, pre.field)
        lefts = tuple(field_of(tables, mine.table, left, name) for name in (pre.via, *pre.or_via))
        left = lefts[0]
    if pre.value is not None:
        right = _literal(entity, pre.field, pre.value)
    elif pre.than is not None:
        right = row.get(pre.than)
    else:
        there = reached(bp, entity, tables, row, pre)[1]
        right = there.get(pre.other_field) if there else None
    if pre.factor and right is not None:
        right = right * pre.factor
    if pre.or_via:
        return none_equal(lefts, right, (pre.via, *pre.or_via), pre.other_field or pre.than or "")
    if pre.order:
        return order_fails(left, pre.op, right, tuple(pre.order), pre.via or pre.field, pre.than or pre.other_field or "")
    return comparison_fails(left, pre.op, right, pre.via or pre.field, pre.than or pre.other_field or "")


def _own_values(bp: Blueprint, tables: Tables, entity: Entity, row: dict[str, Any], pre: Precondition,
                rng: random.Random, moved: Moved) -> list[dict[str, Any]]:
    """A value of the row's own field that makes the comparison hold (the amount a payout must equal)."""
    spec = entity.field(pre.field)
    if pre.value is not None:
        right = pre.value if isinstance(pre.value, bool) else typed(spec, str(pre.value))
    elif pre.than is not None:
        right = row.get(pre.than)
    else:
        theirs = reached(bp, entity, tables, row, pre)[1]
        right = None if theirs is None else theirs.get(pre.other_field)
    if right is None:
        return []
    if pre.factor:
        right = right * pre.factor
    if spec.type in ("int", "float") and isinstance(right, (int, float)) and not isinstance(right, bool):
        step = 1 if spec.type == "int" else 0.01
        low = spec.min if spec.min is not None else 0
        high = spec.max if spec.max is not None else max(right, low) + 100
        lo, hi = {"==": (right, right), "<=": (low, right), "<": (low, right - step), ">=": (right, high),
                  ">": (right + step, high), "!=": (right + step, right + step)}[pre.op]
        lo, hi = min(lo, hi), max(lo, hi)
        value = rng.randint(int(-(-lo // 1)), int(hi)) if spec.type == "int" and int(hi) >= -(-lo // 1) else \
            round(rng.uniform(lo, hi), 2) if spec.type == "float" else None
        return [] if value is None else [{spec.name: value}]
    if spec.type in ("date", "datetime") and isinstance(right, str):
        day = date.fromisoformat(right[:10]) + timedelta(days={">": 1, "<": -1}.get(pre.op, 0))
        if pre.op == "!=":
            return []
        return [moved(bp, entity, row, spec.name, day)]
    return [{spec.name: right}] if pre.op == "==" else []


def _right(bp: Blueprint, entity: Entity, tables: Tables, row: dict[str, Any], pre: Precondition) -> Any:
    """The right side of a compare with a referenced row's field."""
    _, there = _reached(bp, entity, tables, row, pre.ref_field, pre.through)
    return (there or {}).get(pre.other_field) if pre.ref_field else row.get(pre.than)


class Compare(RuleKind):
    name = "compare"
    category = "threshold"
    needs = ("op",)
    compares = True

    def arranged(self, pre: Precondition) -> bool:
        return True

    def reads_ref_path(self, pre: Precondition) -> bool:
        return bool(pre.ref_field)

    def gates_create(self, bp: Blueprint, entity: Entity, pre: Precondition) -> bool:
        return pre.field is None or bool(pre.via and pre.ref_field)

    def problems(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, where: str) -> list[str]:
        if pre.field is None and (pre.ref_field is None or pre.value is None):
            return [f"{where} compares `field`, or the ref_field row's other_field with a `value`"]
        if pre.field is not None and sum(x is not None for x in (pre.value, pre.than, pre.ref_field)) != 1:
            return [f"{where} compares with exactly one of value, than, or ref_field + other_field"]
        return []

    def code(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, emit: Emit) -> tuple[str | None, str]:
        lit = emit.lit
        if pre.field is None:  # a threshold on the row ref_field points at
            other = target(bp, entity, pre.ref_field, pre.through)
            spec = other.field(pre.other_field)
            left = field_expression(bp, entity, pre.ref_field, pre.through, pre.other_field, lit)
            right = lit(typed(spec, str(pre.value)) if not isinstance(pre.value, bool) else pre.value)
            name = lit(f"{what(other)} {pre.other_field.replace('_', ' ')}")
            return None, _comparison(pre, left, right, name, '""', lit)
        left, left_name = f"_new.get({lit(pre.field)})", pre.field.replace("_", " ")
        if pre.via:  # the field is a ref: compare a field of the row it points at
            mine = bp.entity(entity.field(pre.field).ref)
            left = call("field_of", "tables", lit(mine.table), f"_new.get({lit(pre.field)})", lit(pre.via))
            left_name = f"the {what(mine)}'s {pre.via.replace('_', ' ')}"
        setup = None
        if pre.value is not None:
            right, name = lit(typed(entity.field(pre.field), str(pre.value)) if not isinstance(pre.value, bool)
                              else pre.value), '""'
        else:
            if pre.than is not None:
                right, name = f"_new.get({lit(pre.than)})", pre.than.replace("_", " ")
            else:
                other = target(bp, entity, pre.ref_field, pre.through)
                right = field_expression(bp, entity, pre.ref_field, pre.through, pre.other_field, lit)
                name = f"the {what(other)}'s {pre.other_field.replace('_', ' ')}"
            if pre.factor:  # scaled: the fact names the factor and shows the product
                setup, right = f"_right = {right}", f"None if _right is None else _right * {pre.factor!r}"
                name = f"{pre.factor:g} x {name}"
            name = lit(name)
        if pre.or_via:  # any of several fields of the row `field` points at
            return setup, _any_of(bp, entity, pre, right, name, lit)
        return setup, _comparison(pre, left, right, lit(left_name), name, lit)

    def fact(self, bp: Blueprint, op: Operation, entity: Entity, pre: Precondition, row: dict[str, Any],
             tables: Tables, now: bool, later: Later) -> Fact | None:
        return _fact(bp, pre, entity, row, tables)

    def holds(self, bp: Blueprint, entity: Entity, tables: Tables, row: dict[str, Any], pre: Precondition) -> bool:
        if pre.field is None:
            other, there = _reached(bp, entity, tables, row, pre.ref_field, pre.through)
            left, right = (there or {}).get(pre.other_field), _value(other.field(pre.other_field), pre.value)
        else:
            left = row.get(pre.field)
            if pre.via:
                _, mine = _reached(bp, entity, tables, row, pre.field, None)
                left = (mine or {}).get(pre.via)
                if pre.or_via:  # any of the fields may match
                    lefts = [(mine or {}).get(name) for name in (pre.via, *pre.or_via)]
                    left = next((v for v in lefts if v is not None and v == _right(bp, entity, tables, row, pre)), left)
            if pre.value is not None:
                right = _value(entity.field(pre.field), pre.value)
            elif pre.than is not None:
                right = row.get(pre.than)
            else:
                _, there = _reached(bp, entity, tables, row, pre.ref_field, pre.through)
                right = (there or {}).get(pre.other_field)
            if right is not None and pre.factor:
                right = right * pre.factor
        if left is None or right is None:
            return True
        if pre.order:  # by their places in the order (a value outside it blocks nothing, as the compiled check)
            if left not in pre.order or right not in pre.order:
                return True
            left, right = pre.order.index(left), pre.order.index(right)
        try:
            return OPS[pre.op](left, right)
        except TypeError:
            return True

    def repair_moves(self, bp: Blueprint, tables: Tables, entity: Entity, pre: Precondition, row: dict[str, Any],
                     rng: random.Random, knobs: Knobs) -> None:
        """A value of the row's own (not a ref) field that makes the comparison hold."""
        if pre.field and not pre.via and ref_entity(bp, entity, pre.field) is None:
            knobs.own.setdefault(pre.field, []).extend(_own_values(bp, tables, entity, row, pre, rng, knobs.moved))

    def supply(self, bp: Blueprint, tables: Tables, entity: Entity, pre: Precondition, row: dict[str, Any] | None,
               targets: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """A threshold on the referenced rows met by setting it to the compared value."""
        if pre.field is not None or pre.op not in ("==", "<=", ">="):
            return []
        other = target(bp, entity, pre.ref_field, pre.through)
        value = pre.value if isinstance(pre.value, bool) else typed(other.field(pre.other_field), str(pre.value))
        return [(r, {pre.other_field: value}) for r in targets]

    def arrange(self, bp: Blueprint, pre: Precondition, hold: bool, at: Arranging) -> bool:
        """Either side moved so the comparison holds (or breaks)."""
        entity, tables, new, put, reached, keeps, patches = \
            at.entity, at.tables, at.new, at.put, at.reached, at.keeps, at.patches
        _set = set_field
        if pre.field is None:
            other, there = reached(pre.ref_field, pre.through)
            right = typed(other.field(pre.other_field), str(pre.value)) if not isinstance(pre.value, bool) else pre.value
            if there is None:
                return False
            patches.append(_set(other.table, there, pre.other_field, satisfying(pre.op, right, hold, order=pre.order)))
        else:
            spec = entity.field(pre.field)
            if pre.value is not None:
                right = typed(spec, str(pre.value)) if not isinstance(pre.value, bool) else pre.value
                if not put(pre.field, satisfying(pre.op, right, hold, spec, order=pre.order)):
                    return False
            elif pre.than is not None and pre.via:  # a field of the referenced row against one of ours
                mine, there, right = bp.entity(spec.ref), new.get(pre.field), new.get(pre.than)
                if there is None or right is None:
                    return False
                value = (_scaled(_flip(pre.op), right, 1 / pre.factor, hold, mine.field(pre.via).type == "int")
                         if pre.factor else satisfying(pre.op, right, hold, mine.field(pre.via), order=pre.order))
                if pre.or_via:  # every field of the row must miss the right side for the rule to break
                    patches += [_set(mine.table, there, name, value if hold else other_value(mine.field(name), [right]))
                                for name in pre.or_via]
                patches.append(_set(mine.table, there, pre.via, value))
            elif pre.than is not None:
                right = new.get(pre.than)
                if right is not None and pre.factor:
                    right = right * pre.factor
                if right is None or not put(pre.field, satisfying(pre.op, right, hold)):
                    return False
            else:
                other, there = reached(pre.ref_field, pre.through)
                left = new.get(pre.field)
                lefts: list[Any] = []
                if pre.via:  # the left side is a field of the row `field` points at
                    mine = bp.entity(spec.ref)
                    row_there = next((r for r in tables.get(mine.table, []) if r.get("id") == left), {})
                    lefts = [row_there.get(name) for name in (pre.via, *pre.or_via)]
                    left = lefts[0]
                if there is None or left is None:
                    return False
                spec = other.field(pre.other_field)
                value = (_scaled(pre.op, left, pre.factor, hold, spec.type == "int") if pre.factor else
                         satisfying(_flip(pre.op), left, hold, spec, keeps.get((other.table, there, pre.other_field)),
                                     order=pre.order))
                if pre.or_via and not hold:  # none of the fields may match the right side
                    value = other_value(spec, lefts)
                if value is None and pre.order and pre.via:  # the left row's value leaves no room: move both sides
                    pair = next(((a, b) for a in pre.order for b in pre.order
                                 if compares(pre.order.index(a), pre.op, pre.order.index(b)) == hold), None)
                    if pair is None:
                        return False
                    patches.append(_set(mine.table, new.get(pre.field), pre.via, pair[0]))
                    value = pair[1]
                if value is None:
                    return False
                patches.append(_set(other.table, there, pre.other_field, value))
        return True


KIND = Compare()
