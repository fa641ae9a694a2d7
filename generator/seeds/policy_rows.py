"""Whether the rows already in a world keep the rules a tool enforces on new ones.

A rule about related records ("commuters who need a lift ride only vans with one") that a create
enforces should also hold for the live rows the seed starts with, or the world contradicts its own
rules. `broken_rows(bp, tables)` evaluates the related-record checks (ref_in and compare, with their
`when`, one or two hops away) on every live row of the entity a guarded create makes; it reads plain
tables, so it works on a seed and on the world after a gold solution alike.

    broken_rows(bp, tables) -> ["vanpool_seat vst-0007: lift_riders_need_lift_vans", ...]
"""

from __future__ import annotations

from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Condition, Entity, Precondition
from envcraft.generator.model.fields import INACTIVE, typed
from envcraft.generator.model.refpath import follow, target
from envcraft.generator.rules.registry import kind
from envcraft.generator.seeds.seed_rules import Check, fact

Tables = dict[str, list[dict[str, Any]]]
OPS = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
       ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def _value(spec: Any, raw: Any) -> Any:
    return raw if isinstance(raw, bool) else typed(spec, str(raw))


def _reads(bp: Blueprint, entity: Entity, tables: Tables, row: dict[str, Any], ref_field: str | None,
           through: str | None) -> tuple[Entity, dict[str, Any] | None]:
    if not ref_field:
        return entity, row
    return target(bp, entity, ref_field, through), follow(bp, entity, tables, row, ref_field, through)


def applies(bp: Blueprint, entity: Entity, tables: Tables, row: dict[str, Any],
            cond: Condition | list[Condition] | None) -> bool:
    if cond is None:
        return True
    if isinstance(cond, list):  # all of them
        return all(applies(bp, entity, tables, row, one) for one in cond)
    mine, there = _reads(bp, entity, tables, row, cond.ref_field, cond.through)
    if there is None or there.get(cond.field) is None:
        return False
    left, spec = there[cond.field], mine.field(cond.field)
    if cond.op in ("in", "not_in"):
        return (left in [typed(spec, v) for v in cond.values]) == (cond.op == "in")
    try:
        return OPS[cond.op](left, _value(spec, cond.value))
    except TypeError:
        return False


def holds(bp: Blueprint, entity: Entity, tables: Tables, row: dict[str, Any], pre: Precondition) -> bool:
    """The check passes for this row (a missing side passes, as the compiled check does)."""
    if not applies(bp, entity, tables, row, pre.when):
        return True
    return kind(pre.kind).holds(bp, entity, tables, row, pre)

def related(pre: Precondition) -> bool:
    """A check that reads another row, or applies only when another row says so."""
    reads = kind(pre.kind) is not None and (kind(pre.kind).ref_values or kind(pre.kind).compares)
    return (reads and bool(pre.ref_field or pre.via or pre.field is None)) or \
        any(cond.ref_field for cond in pre.conditions)


def broken_rows(bp: Blueprint, tables: Tables, only: set[str] | None = None) -> list[str]:
    """Live rows that break a related-record rule a create of their entity enforces (`only`: these policy ids).
    Judged by seed_rules.fact, the seed repair's own judge (the runtime's fact helpers, as app.py refuses), with
    the referenced row's status as it is now: one source of truth for whether a row keeps a rule."""
    out = []
    for op in bp.operations:
        if op.kind != "create":
            continue
        entity = bp.entity(op.entity)
        for pre in op.preconditions:
            if not pre.policy or not related(pre) or (only is not None and pre.policy not in only):
                continue
            for row in tables.get(entity.table, []):
                if entity.status_field and row.get(entity.status_field) in INACTIVE:
                    continue
                if fact(bp, Check(op, pre, pre.policy), row, tables, now=True) is not None:
                    out.append(f"{entity.name} {row.get('id')}: {pre.policy}")
    return sorted(set(out))


__all__ = ["applies", "broken_rows", "holds", "related"]
