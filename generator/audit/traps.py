"""World patches that make a rule hold or break for one call: how the audit proves each rule blocks.

`arrange(bp, tables, op, row, fields, pre, hold)` returns the argument overrides and a state patch
under which precondition `pre` of `op` holds (hold=True) or is broken (hold=False), or None when
this world cannot be arranged so. A valid probe holds every rule; a violation probe breaks one and
holds all the others, so the refusal it gets must cite that rule.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from envcraft.generator.model.blueprint import (
    Blueprint,
    Condition,
    Entity,
    Operation,
    Precondition,
)
from envcraft.generator.model.fields import time_pairs, typed
from envcraft.generator.model.refpath import follow, target
from envcraft.generator.rules.kind import Arranging, other_value, satisfying
from envcraft.generator.rules.registry import kind as rule_kind
from envcraft.generator.seeds.policy_rows import holds

Tables = dict[str, list[dict[str, Any]]]
Patch = Callable[[Tables], None]


def is_arranged(pre: Precondition) -> bool:
    """Rules this module arranges; a value rule with a `when` too (its condition must be made to hold)."""
    return rule_kind(pre.kind).arranged(pre)


def _set(table: str, row_id: Any, name: str, value: Any) -> Patch:
    def patch(tables: Tables) -> None:
        for row in tables.get(table, []):
            if row.get("id") == row_id:
                row[name] = value
    return patch


def _free(op: Operation, entity: Entity, tables: Tables, new: dict[str, Any], field: str, moment: str,
          until: str) -> bool:
    """No other live row holds the call's resource over [moment, until) (a time rule's probe must not meet a
    clash)."""
    return not any(rule_kind(pre.kind).clashes(entity, pre, tables, new, field,
                                                                                  moment, until)
                   for pre in op.preconditions)


def arrange(bp: Blueprint, tables: Tables, op: Operation, row: dict | None, fields: dict[str, Any],
            pre: Precondition, hold: bool, off: bool = False) -> tuple[dict[str, Any], list[Patch]] | None:
    """`off`: make the rule's `when` fail instead, so it holds whatever its check reads."""
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

    def reached(ref_field: str, through: str | None) -> tuple[Entity, Any]:
        """The entity and id of the row a path from the row as it would be leads to (id None: none)."""
        other = target(bp, entity, ref_field, through)
        if through is None:
            return other, new.get(ref_field)
        row_there = follow(bp, entity, tables, new, ref_field, through)
        return other, (row_there or {}).get("id")

    keeps: dict[tuple[str, Any, str], Callable[[Any], bool]] = {}  # (table, id, field): values that keep `when`

    def meet(cond: Condition, on: bool) -> bool:
        """Make one `when` condition hold (on) or fail; False when this world cannot."""
        mine = target(bp, entity, cond.ref_field, cond.through) if cond.ref_field else entity
        when_spec = mine.field(cond.field)
        listed = [typed(when_spec, v) for v in cond.values]
        if cond.op in ("in", "not_in"):
            wanted = listed[0] if (cond.op == "in") == on else other_value(when_spec, listed)
        else:
            right = typed(when_spec, str(cond.value)) if not isinstance(cond.value, bool) else cond.value
            wanted = satisfying(cond.op, right, on, when_spec)
        if wanted is None:
            return False
        if cond.ref_field:  # make the referenced row meet the condition
            _, there = reached(cond.ref_field, cond.through)
            if there is None:
                return False
            patches.append(_set(mine.table, there, cond.field, wanted))
            if cond.op in ("in", "not_in"):
                keeps[(mine.table, there, cond.field)] = lambda v, inside=listed, yes=cond.op == "in": (v in inside) == yes
            else:
                keeps[(mine.table, there, cond.field)] = \
                    lambda v, op=cond.op, right=right, wanted=wanted: v != right if op == "!=" else v == wanted
            return True
        return put(cond.field, wanted)

    if pre.conditions:
        if off:  # one condition failing is enough for the rule not to apply
            return (overrides, patches) if any(meet(cond, False) for cond in pre.conditions) else None
        if not all(meet(cond, True) for cond in pre.conditions):
            return None
    world = Arranging(op, entity, tables, fields, new, own, overrides, patches, put, reached, keeps,
                      lambda e: time_pairs(bp, e),
                      lambda name, moment, until: _free(op, entity, tables, new, name, moment, until))
    return (overrides, patches) if rule_kind(pre.kind).arrange(bp, pre, hold, world) else None


def arrange_all(bp: Blueprint, tables: Tables, op: Operation, row: dict | None, fields: dict[str, Any],
                broken: int | None = None) -> tuple[dict[str, Any], list[Patch]] | None:
    """Every arranged rule of `op` held, except precondition number `broken`, which is broken. A held rule
    that applies only when another row says so is held by turning its `when` off (two rules about the same
    bus cannot then fight), and turned back on with its check held if the broken rule's patches need that."""
    got = _arranged(bp, tables, op, row, fields, broken, quiet=False)
    if got is None or _all_held(bp, tables, op, row, fields, broken, *got):
        return got
    return _arranged(bp, tables, op, row, fields, broken, quiet=True) or got


def _all_held(bp: Blueprint, tables: Tables, op: Operation, row: dict | None, fields: dict[str, Any],
              broken: int | None, overrides: dict[str, Any], patches: list[Patch]) -> bool:
    """Every rule but the broken one holds in the arranged world (as far as policy_rows can tell)."""
    state = copy.deepcopy(tables)
    for patch in patches:
        patch(state)
    new = {**(row or {}), **fields, **overrides}
    return all(holds(bp, bp.entity(op.entity), state, new, pre) for i, pre in enumerate(op.preconditions)
               if i != broken and is_arranged(pre))


def _arranged(bp: Blueprint, tables: Tables, op: Operation, row: dict | None, fields: dict[str, Any],
              broken: int | None, quiet: bool) -> tuple[dict[str, Any], list[Patch]] | None:
    """One pass over the rules. `quiet`: every held rule with a `when` is turned off first, before the rest
    are held (a patio rule and a private-room rule on the same table cannot then fight)."""
    overrides: dict[str, Any] = {}
    patches: list[Patch] = []
    order = [i for i in range(len(op.preconditions)) if i != broken] + ([broken] if broken is not None else [])
    if quiet:
        order.sort(key=lambda i: (i == broken, not op.preconditions[i].conditions))
    for index in order:
        pre = op.preconditions[index]
        if not is_arranged(pre):
            continue
        got = None
        same_when = broken is not None and pre.conditions and pre.conditions == op.preconditions[broken].conditions
        if index != broken and not same_when and (_reads_other_row(pre) or (quiet and pre.conditions)):
            got = arrange(bp, tables, op, row, {**fields, **overrides}, pre, hold=True, off=True)
        if got is None:
            got = arrange(bp, tables, op, row, {**fields, **overrides}, pre, hold=index != broken)
        if got is None:
            if index == broken:
                return None
            continue
        overrides.update(got[0])
        patches += got[1]
    return _settled(bp, tables, op, row, fields, broken, overrides, patches)


def _reads_other_row(pre: Precondition) -> bool:
    return any(cond.ref_field is not None for cond in pre.conditions)


def _settled(bp: Blueprint, tables: Tables, op: Operation, row: dict | None, fields: dict[str, Any],
             broken: int | None, overrides: dict[str, Any], patches: list[Patch]) -> tuple[dict[str, Any], list[Patch]]:
    """A held rule whose `when` a later patch turned back on (two rules about the same show) gets its check held."""
    entity = bp.entity(op.entity)
    for index, pre in enumerate(op.preconditions):
        if index == broken or not _reads_other_row(pre) or not is_arranged(pre):
            continue
        state = copy.deepcopy(tables)
        for patch in patches:
            patch(state)
        if holds(bp, entity, state, {**(row or {}), **fields, **overrides}, pre):
            continue
        got = arrange(bp, tables, op, row, {**fields, **overrides}, pre, hold=True)
        if got is not None:
            overrides.update(got[0])
            patches += got[1]
    return overrides, patches
