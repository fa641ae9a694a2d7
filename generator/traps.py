"""World patches that make a rule hold or break for one call: how the audit proves each rule blocks.

`arrange(bp, tables, op, row, fields, pre, hold)` returns the argument overrides and a state patch
under which precondition `pre` of `op` holds (hold=True) or is broken (hold=False), or None when
this world cannot be arranged so. A valid probe holds every rule; a violation probe breaks one and
holds all the others, so the refusal it gets must cite that rule.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from envcraft.generator.appcode import typed
from envcraft.generator.blueprint import WEEKDAYS, Blueprint, Entity, FieldSpec, Operation, Precondition
from envcraft.generator.fields import time_pairs

Tables = dict[str, list[dict[str, Any]]]
Patch = Callable[[Tables], None]
ARRANGED = ("ref_in", "compare", "requires", "forbids", "time_window")


def _other_value(spec: FieldSpec, avoid: list[Any]) -> Any:
    if spec.type == "enum":
        return next((v for v in spec.values if v not in avoid), None)
    if spec.type == "bool":
        return next((v for v in (True, False) if v not in avoid), None)
    if spec.type in ("int", "float"):
        return max([v for v in avoid if isinstance(v, (int, float))] + [0]) + 1
    return "audit-other"


def _set(table: str, row_id: Any, name: str, value: Any) -> Patch:
    def patch(tables: Tables) -> None:
        for row in tables.get(table, []):
            if row.get("id") == row_id:
                row[name] = value
    return patch


def _satisfying(op: str, right: Any, hold: bool, spec: FieldSpec | None = None) -> Any:
    """A left-hand value for which `left op right` holds (or fails); an enum's stays one of its values."""
    if spec is not None and spec.type == "enum" and op in ("==", "!="):
        return right if (op == "==") == hold else next(v for v in spec.values if v != right)
    if isinstance(right, bool):
        return right if (op == "==") == hold else (not right)
    if isinstance(right, (int, float)):
        step = 1 if isinstance(right, int) or float(right).is_integer() else 0.01
        table = {">=": (right, right - step), ">": (right + step, right), "<=": (right, right + step),
                 "<": (right - step, right), "==": (right, right + step), "!=": (right + step, right)}
        return table[op][0 if hold else 1]
    text = str(right)
    if len(text) >= 10 and text[4] == "-":  # a date or time: shift a day
        day = date.fromisoformat(text[:10])
        later, earlier = (day + timedelta(days=1)).isoformat() + text[10:], (day - timedelta(days=1)).isoformat() + text[10:]
        table = {">=": (text, earlier), ">": (later, text), "<=": (text, later), "<": (earlier, text),
                 "==": (text, later), "!=": (later, text)}
        return table[op][0 if hold else 1]
    return text if (op in ("==", ">=", "<=")) == hold else text + " (other)"


def _scaled(op: str, left: float, factor: float, hold: bool, whole: bool) -> float:
    """A right-hand value v for which `left op factor * v` holds (or fails), a unit clear of the boundary."""
    bound = left / factor
    up, down = math.floor(bound) + 1, math.ceil(bound) - 1
    value = (up if hold else down) if op in ("<", "<=") else (down if hold else up)
    return value if whole else float(value)


def _flip(op: str) -> str:
    return {">=": "<=", ">": "<", "<=": ">=", "<": ">", "==": "==", "!=": "!="}[op]


def _moment(today: date, days: list[str], start: str | None, end: str | None, kind: str, hold: bool) -> str | None:
    """A date/time after today inside the window (hold) or outside it."""
    for offset in range(7, 21):
        day = today + timedelta(days=offset)
        name = WEEKDAYS[day.weekday()]
        if hold:
            if days and name not in days:
                continue
            clock = start or "10:00"
            return day.isoformat() + (f"T{clock}" if kind == "datetime" else "")
        if days and name not in days:
            return day.isoformat() + ("T10:00" if kind == "datetime" else "")
        if not days and kind == "datetime" and start and start > "00:30":
            return day.isoformat() + "T00:00"
        if not days and kind == "datetime" and end and end < "23:30":
            return day.isoformat() + "T23:30"
    return None


def arrange(bp: Blueprint, tables: Tables, op: Operation, row: dict | None, fields: dict[str, Any],
            pre: Precondition, hold: bool) -> tuple[dict[str, Any], list[Patch]] | None:
    entity = bp.entity(op.entity)
    new = {**(row or {}), **fields}
    own = row.get("id") if row else None
    overrides: dict[str, Any] = {}
    patches: list[Patch] = []

    def put(name: str, value: Any) -> bool:
        """Give the row's field this value: as an argument when the call sets it, else in the state."""
        if name in fields or (op.kind == "create" and name in {f.name for f in entity.fields}):
            if op.kind == "create" and name not in fields and name not in op.params + op.required:
                return False
            overrides[name] = value
        elif own is not None:
            patches.append(_set(entity.table, own, name, value))
        else:
            return False
        new[name] = value
        return True

    if pre.when is not None:
        when_spec = entity.field(pre.when.field)
        if pre.when.op == "in":
            wanted = typed(when_spec, pre.when.values[0])
        elif pre.when.op == "not_in":
            wanted = _other_value(when_spec, [typed(when_spec, v) for v in pre.when.values])
        else:
            wanted = _satisfying(pre.when.op, _when_value(entity, pre), True, when_spec)
        if wanted is None or not put(pre.when.field, wanted):
            return None
    if pre.kind == "ref_in":
        other = bp.entity(entity.field(pre.ref_field).ref)
        target = new.get(pre.ref_field)
        spec = other.field(pre.other_field)
        allowed = [typed(spec, v) for v in pre.values]
        value = allowed[0] if hold else _other_value(spec, allowed)
        if target is None or value is None:
            return None
        patches.append(_set(other.table, target, pre.other_field, value))
    elif pre.kind == "compare" and pre.field is None:
        other = bp.entity(entity.field(pre.ref_field).ref)
        target = new.get(pre.ref_field)
        right = typed(other.field(pre.other_field), str(pre.value)) if not isinstance(pre.value, bool) else pre.value
        if target is None:
            return None
        patches.append(_set(other.table, target, pre.other_field, _satisfying(pre.op, right, hold)))
    elif pre.kind == "compare":
        spec = entity.field(pre.field)
        if pre.value is not None:
            right = typed(spec, str(pre.value)) if not isinstance(pre.value, bool) else pre.value
            if not put(pre.field, _satisfying(pre.op, right, hold, spec)):
                return None
        elif pre.than is not None and pre.via:  # a field of the referenced row against one of ours
            mine, target, right = bp.entity(spec.ref), new.get(pre.field), new.get(pre.than)
            if target is None or right is None:
                return None
            value = (_scaled(_flip(pre.op), right, 1 / pre.factor, hold, mine.field(pre.via).type == "int")
                     if pre.factor else _satisfying(pre.op, right, hold, mine.field(pre.via)))
            patches.append(_set(mine.table, target, pre.via, value))
        elif pre.than is not None:
            right = new.get(pre.than)
            if right is not None and pre.factor:
                right = right * pre.factor
            if right is None or not put(pre.field, _satisfying(pre.op, right, hold)):
                return None
        else:
            other = bp.entity(entity.field(pre.ref_field).ref)
            target, left = new.get(pre.ref_field), new.get(pre.field)
            if pre.via:  # the left side is a field of the row `field` points at
                mine = bp.entity(spec.ref)
                left = next((r.get(pre.via) for r in tables.get(mine.table, []) if r.get("id") == left), None)
            if target is None or left is None:
                return None
            spec = other.field(pre.other_field)
            value = (_scaled(pre.op, left, pre.factor, hold, spec.type == "int") if pre.factor else
                     _satisfying(_flip(pre.op), left, hold, spec))
            patches.append(_set(other.table, target, pre.other_field, value))
    elif pre.kind in ("requires", "forbids"):
        other = bp.entity(pre.entity)
        match = {theirs: new.get(ours) for theirs, ours in pre.match.items()}
        if any(v is None for v in match.values()):
            return None
        allowed = [typed(other.field(pre.field), v) for v in pre.values] if pre.field else []
        present = (pre.kind == "requires") == hold
        if present:
            template = copy.deepcopy((tables.get(other.table) or [{}])[0])
            extra = {**template, "id": f"{other.id_prefix}-9980", **match}
            if pre.field:
                extra[pre.field] = allowed[0]
            patches.append(lambda t, extra=extra: t.setdefault(other.table, []).append(copy.deepcopy(extra)))
        else:
            def clear(t: Tables, table: str = other.table) -> None:
                t[table] = [r for r in t.get(table, []) if not (all(r.get(k) == v for k, v in match.items())
                                                                  and (not pre.field or r.get(pre.field) in allowed))]
            patches.append(clear)
    elif pre.kind == "time_window":
        spec = entity.field(pre.field)
        moment = _moment(date.fromisoformat(bp.today), list(pre.days), pre.from_time, pre.to_time, spec.type, hold)
        if moment is None or not put(pre.field, moment):
            return None
        for end in _ends(bp, entity, pre.field):
            if end in fields or end in overrides:
                overrides[end] = _after(moment, spec.type)
    else:
        return None
    return overrides, patches


def _when_value(entity: Entity, pre: Precondition) -> Any:
    value = pre.when.value
    return typed(entity.field(pre.when.field), str(value)) if not isinstance(value, bool) else value


def _ends(bp: Blueprint, entity: Entity, start: str) -> list[str]:
    return [end for end, begin in time_pairs(bp, entity).items() if begin == start]


def _after(moment: str, kind: str) -> str:
    if kind == "datetime":
        hour = int(moment[11:13])
        return f"{moment[:11]}{min(hour + 1, 23):02d}:{moment[14:16]}"
    return (date.fromisoformat(moment) + timedelta(days=1)).isoformat()


def arrange_all(bp: Blueprint, tables: Tables, op: Operation, row: dict | None, fields: dict[str, Any],
                broken: int | None = None) -> tuple[dict[str, Any], list[Patch]] | None:
    """Every arranged rule of `op` held, except precondition number `broken`, which is broken."""
    overrides: dict[str, Any] = {}
    patches: list[Patch] = []
    order = [i for i in range(len(op.preconditions)) if i != broken] + ([broken] if broken is not None else [])
    for index in order:
        pre = op.preconditions[index]
        if pre.kind not in ARRANGED:
            continue
        got = arrange(bp, tables, op, row, {**fields, **overrides}, pre, hold=index != broken)
        if got is None:
            if index == broken:
                return None
            continue
        overrides.update(got[0])
        patches += got[1]
    return overrides, patches
