"""Fields only a transition writes agree with the row's status: what a step records is there once the row took
that step, and not before.

A field is a step's own when the only operations that take it are transitions (no create or update does): a
grant application's decline_reason comes with `declined`, a receipt line's received quantity with `received`,
a booking's attended flag with `attended`. Such a field is empty (None, 0, false, "") on every row whose
status none of those transitions leads to (an awarded application holds no decline reason; a pending line
has received nothing), and set on every row that can only have got where it is through them when a transition
requires it (every declined application says why).

    written(bp, tables) -> [(table, row id, why), ...]
    settle_written(bp, tables, rng) -> rows changed (emptied, or given a value of the field's own kind)
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, FieldSpec
from envcraft.generator.model.fields import guess_gen
from envcraft.generator.rules.registry import kind, source_states
from envcraft.generator.seeds import values

Tables = dict[str, list[dict[str, Any]]]
Found = list[tuple[str, str, str]]
COUNTER = re.compile(r"count|attempt|retr")  # a counter keeps counting after its step: a retried run moves on


def _moves(bp: Blueprint, entity: Entity, skip: frozenset[str] = frozenset()) -> dict[str, set[str]]:
    """status -> the statuses one transition (not named in `skip`) leads to; a transition whose checks name no
    start leads from every status."""
    statuses = entity.field(entity.status_field).values
    out: dict[str, set[str]] = {v: set() for v in statuses}
    for op in bp.operations:
        if op.entity == entity.name and op.kind == "transition" and op.to_status in out and op.name not in skip:
            starts = source_states(entity, op)
            for start in statuses if starts is None else starts:
                if start in out and start != op.to_status:
                    out[start].add(op.to_status)
    live = [status for status, targets in out.items() if targets]
    for op in bp.operations:
        for effect in op.effects:  # another operation sets the status (booking a consult books its referral)
            ref = next((f for f in bp.entity(op.entity).fields if f.name == effect.ref_field), None)
            if effect.kind != "set" or effect.field != entity.status_field or effect.value not in out \
                    or ref is None or ref.ref != entity.name:
                continue
            named = [pre.values for pre in op.preconditions if (rule := kind(pre.kind)) is not None and rule.ref_values
                     and pre.ref_field == effect.ref_field and pre.other_field == entity.status_field]
            for start in named[0] if named else live:  # what its checks allow, else any status still moving
                if start in out and start != effect.value:
                    out[start].add(effect.value)
    return out


def reach(moves: dict[str, set[str]], starts: set[str]) -> set[str]:
    """Statuses reachable from `starts`, themselves included."""
    seen, todo = set(starts), list(starts)
    while todo:
        for nxt in moves.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def step_fields(bp: Blueprint, entity: Entity) -> Iterator[tuple[FieldSpec, set[str], set[str]]]:
    """(field, statuses where it must be empty, statuses where it must be set) for each field only transitions
    take. Must be set: the writers all require it and no route reaches the status without one of them."""
    if not entity.status_field:
        return
    mine = [op for op in bp.operations if op.entity == entity.name]
    moves = _moves(bp, entity)
    statuses = set(moves)
    for spec in entity.fields:
        if spec.name == entity.status_field or spec.type in ("date", "datetime"):  # dates: seed_coherence.stamps
            continue
        writers = [op for op in mine if spec.name in op.params]
        if not writers or any(op.kind != "transition" or not op.to_status for op in writers):
            continue
        past = reach(moves, {op.to_status for op in writers})
        bare = statuses - past if _emptiable(spec) and (spec.optional or spec.type == "bool"
                                                        or _named_for(spec, writers)) else set()
        must: set[str] = set()
        if all(spec.name in op.required for op in writers):
            others = _moves(bp, entity, frozenset(op.name for op in writers))
            must = past - reach(others, statuses - past)
        yield spec, bare, must


def _stems(text: str) -> set[str]:
    return {word[:5] for word in text.split("_") if len(word) > 3}


def _named_for(spec: FieldSpec, writers: list) -> bool:
    """The field's name speaks of its step (received_qty, decline_reason): it holds nothing before it. Otherwise a
    field with a value before the step (a meter read's kwh, a batch's attempt count) is only overwritten by it."""
    steps = set()
    for op in writers:
        steps |= _stems(op.to_status) | _stems(op.name.removeprefix(op.entity + "_"))
    return bool(_stems(spec.name) & steps) and not COUNTER.search(spec.name)


def _empty(value: Any) -> bool:
    return value in (None, "", 0, False, [])


def written(bp: Blueprint, tables: Tables) -> Found:
    found = []
    for entity in bp.entities:
        for spec, bare, must in step_fields(bp, entity):
            for row in tables.get(entity.table, []):
                status, value = row.get(entity.status_field), row.get(spec.name)
                if status in bare and not _empty(value):
                    found.append((entity.table, row["id"], f"{status}, yet {spec.name} is {value!r}"))
                elif status in must and _empty(value):
                    found.append((entity.table, row["id"], f"{status} with no {spec.name}"))
    return found


def _emptiable(spec: FieldSpec) -> bool:
    """A row may hold nothing here: null, false, or a number whose least is 0 (a required name never is)."""
    return spec.optional or spec.type == "bool" or (spec.type in ("int", "float") and (spec.min or 0) <= 0)


def _blank(spec: FieldSpec) -> Any:
    return {"int": 0, "float": 0.0, "bool": False, "list_str": []}.get(spec.type) if not spec.optional else None


def _draw(entity: Entity, spec: FieldSpec, rng: random.Random) -> Any:
    if spec.values:
        return rng.choice(spec.values)
    if spec.type == "bool":
        return True
    if spec.type in ("int", "float"):
        low = max(spec.min or 0, 1)
        high = max(spec.max if spec.max is not None else low + 10, low)
        return rng.randint(int(low), int(high)) if spec.type == "int" else round(rng.uniform(low, high), 2)
    return values.generate(guess_gen(entity, spec), rng)


def settle_written(bp: Blueprint, tables: Tables, rng: random.Random) -> int:
    """Empty a step's field on rows before the step; fill it on rows past a step that requires it."""
    changed = 0
    for entity in bp.entities:
        for spec, bare, must in step_fields(bp, entity):
            for row in tables.get(entity.table, []):
                status, value = row.get(entity.status_field), row.get(spec.name)
                if status in bare and not _empty(value):
                    row[spec.name], changed = _blank(spec), changed + 1
                elif status in must and _empty(value):
                    row[spec.name], changed = _draw(entity, spec, rng), changed + 1
    return changed


__all__ = ["reach", "settle_written", "step_fields", "written"]
