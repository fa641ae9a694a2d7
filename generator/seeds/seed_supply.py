"""Enough rows for every write the rules gate: a task family that needs an eligible row finds several.

A create whose rules read the rows it refers to (an offer needs an approved application for the pair and
an available unit) has as many choices as argument sets those rules accept; a transition with rules has as
many as rows in a status it moves from that it may move. A seed that happens to hold one such set makes
every task of the family name the same pair. `supply` raises each write to `MIN_CHOICES`, by moves that
break no rule (generator/seeds/seed_rules.py) and no invariant, and that take no choice from another write:

- a related or referenced row moved into the state the rule asks for (an application approved, a unit
  available, a slot freed or a cap raised within its range);
- a row a transition could move repaired as if it had moved (generator/seeds/seed_repair.py's `fix`).

    choices(bp, tables, op) -> 0..MIN_CHOICES
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, Operation
from envcraft.generator.model.fields import typed
from envcraft.generator.model.refpath import target
from envcraft.generator.rules.registry import kind
from envcraft.generator.seeds.invariants import check_invariants, repair
from envcraft.generator.seeds.seed_repair import as_moved, fix, from_statuses
from envcraft.generator.seeds.seed_rules import (
    Check,
    Tables,
    Way,
    breaches,
    checks_of,
    fact,
    first_hop,
    later_states,
    reached,
    ref_entity,
    way_breaches,
)

MIN_CHOICES = 4
COMBOS = 20000  # argument sets looked at when counting a create's choices

Move = Callable[[], bool]  # applies one change; False when it changed nothing


def gated(bp: Blueprint, op: Operation) -> list[Check]:
    """The checks that decide which rows the write may act on: a transition's, and those of a create that
    read only the rows it refers to."""
    if op.kind == "transition":
        return list(checks_of(bp, op))
    if op.kind != "create":
        return []
    entity, out = bp.entity(op.entity), []
    for check in checks_of(bp, op):
        pre = check.pre
        if pre.when is None and kind(pre.kind).gates_create(bp, entity, pre):
            out.append(check)
    return out


def choices(bp: Blueprint, tables: Tables, op: Operation) -> int:
    """How many argument sets (create) or rows (transition) the write's rules accept, up to MIN_CHOICES."""
    checks, entity = gated(bp, op), bp.entity(op.entity)
    if op.kind == "transition":
        way, froms = Way(op, tuple(checks)), from_statuses(bp, op)
        ready = (r for r in tables[entity.table] if r.get(entity.status_field) in froms
                 and not way_breaches(bp, way, as_moved(way, entity, r), tables, now=True))
        return sum(1 for _ in itertools.islice(ready, MIN_CHOICES))
    found = 0
    for combo in itertools.islice(_combos(bp, tables, op, checks), COMBOS):
        if all(fact(bp, c, {"id": "", **combo}, tables, now=True) is None for c in checks):
            found += 1
            if found >= MIN_CHOICES:
                break
    return found


def _combos(bp: Blueprint, tables: Tables, op: Operation, checks: list[Check]) -> Iterator[dict[str, Any]]:
    """Argument sets of the refs the checks read; when a related row is required, its refs first."""
    entity = bp.entity(op.entity)
    names = sorted({n for c in checks for n in (first_hop(c.pre), c.pre.field if c.pre.via else None,
                                                *c.pre.match.values()) if n and ref_entity(bp, entity, n)})
    required = next((c.pre for c in checks if kind(c.pre.kind).matches_related), None)
    bases = sorted(kind(required.kind).accepted_matches(bp, tables, required, random.Random(0), later_states, now=True),
                   key=lambda b: sorted(b.items())) if required else [{}]
    rest = [n for n in names if required is None or n not in required.match.values()]
    pools = [[r["id"] for r in tables[ref_entity(bp, entity, n).table]] for n in rest]
    for base in bases:
        for values in itertools.product(*pools):
            yield {**base, **dict(zip(rest, values, strict=True))}


def _shortfall(bp: Blueprint, tables: Tables) -> int:
    return sum(MIN_CHOICES - choices(bp, tables, op) for op in bp.operations if gated(bp, op))


def supply(bp: Blueprint, tables: Tables, rng: random.Random) -> None:
    """Raise every gated write to MIN_CHOICES where moves allow; a move (with the invariants repaired after
    it) stays only if it lowers the total shortfall and breaks no rule or invariant that held."""
    short = _shortfall(bp, tables)
    if not short:
        return
    broken, contradictions = len(breaches(bp, tables)), len(check_invariants(bp, tables))
    for op in bp.operations:
        if not gated(bp, op) or choices(bp, tables, op) >= MIN_CHOICES:
            continue
        for move in _moves(bp, tables, op, rng):
            saved = {name: [dict(r) for r in rows] for name, rows in tables.items()}
            if not move():
                continue
            repair(bp, tables, rng)
            now = _shortfall(bp, tables)
            if now < short and len(breaches(bp, tables)) <= broken and len(check_invariants(bp, tables)) <= contradictions:
                short = now
                if choices(bp, tables, op) >= MIN_CHOICES:
                    break
                continue
            for name, rows in tables.items():  # back in place: the moves hold these very rows (and added none)
                del rows[len(saved[name]):]
                for row, old in zip(rows, saved[name], strict=True):
                    row.clear()
                    row.update(old)


def _setting(*changes: tuple[dict[str, Any], dict[str, Any]]) -> Move:
    """A move that applies each (row, change); False when nothing was different."""
    def move() -> bool:
        todo = [(row, change) for row, change in changes if any(row.get(k) != v for k, v in change.items())]
        for row, change in todo:
            row.update(change)
        return bool(todo)
    return move


def _moves(bp: Blueprint, tables: Tables, op: Operation, rng: random.Random) -> list[Move]:
    """The moves that could give the write another choice, in a seeded order. For a transition, per row it
    could move: the row itself repaired as if moved, an approval it needs granted, the open items that block
    it closed; and rows of a status that leads to the one it moves from moved on into it (or, failing that,
    rows of a status it leads to taken back to it) where that status has rows to spare."""
    entity, out = bp.entity(op.entity), []
    if op.kind == "create":
        for check in gated(bp, op):
            out += _referenced(bp, tables, entity, check, None)
        rng.shuffle(out)
        return out
    way, froms = Way(op, tuple(gated(bp, op))), from_statuses(bp, op)
    for row in tables[entity.table]:
        if row.get(entity.status_field) in froms:
            out.append(lambda row=row: fix(bp, tables, entity, row, rng, (way,)))
            for check in way.checks:
                out += _referenced(bp, tables, entity, check, row)
            out += _unblocking(bp, tables, way, row)
    counts = Counter(r.get(entity.status_field) for r in tables[entity.table])
    spare = [r for r in tables[entity.table] if counts[r.get(entity.status_field)] > MIN_CHOICES
             and r.get(entity.status_field) not in froms]
    after = set(later_states(bp, entity.name, entity.status_field, tuple(froms)))
    earlier = [r for r in spare if set(froms) & set(later_states(bp, entity.name, entity.status_field,
                                                                 (r.get(entity.status_field),)))]
    later = [r for r in spare if r.get(entity.status_field) in after and r not in earlier]
    for group in (out, earlier, later):
        rng.shuffle(group)
    return out + [_setting((r, {entity.status_field: froms[0]})) for r in earlier + later]


def _referenced(bp: Blueprint, tables: Tables, entity: Entity, check: Check, row: dict[str, Any] | None) -> list[Move]:
    """Moves of the rows a check reads into the state it asks for (of those `row` points at, when given)."""
    pre, out = check.pre, []
    if kind(pre.kind).related_rows:
        return [_setting(move) for move in kind(pre.kind).supply(bp, tables, entity, pre, row, [])]
    other = target(bp, entity, pre.ref_field, pre.through) if pre.ref_field else None
    targets = tables[other.table] if other is not None else []
    if row is not None:
        there = reached(bp, entity, tables, row, pre)[1]
        targets = [r for r in targets if there is not None and r["id"] == there["id"]]
    if kind(pre.kind) is not None:
        out += [_setting(move) for move in kind(pre.kind).supply(bp, tables, entity, pre, row, targets)]
    return out


def _unblocking(bp: Blueprint, tables: Tables, way: Way, row: dict[str, Any]) -> list[Move]:
    """One move closing every item that blocks the row under the way's `forbids` checks (its open repair
    orders completed; an ASN's pending and short lines counted in full), if a status clears them all."""
    blocking: dict[tuple[str, str], set[Any]] = {}
    for check in way.checks:
        pre = check.pre
        if kind(pre.kind).blocked_by_related and pre.field:
            related = bp.entity(pre.entity)
            blocking.setdefault((related.name, pre.field), set()).update(
                typed(related.field(pre.field), v) for v in pre.values)
    changes = []
    for (name, field), blocked in blocking.items():
        related = bp.entity(name)
        spec = related.field(field)
        later = later_states(bp, name, field, tuple(sorted(blocked, key=str)))
        clear = next((v for v in list(later) + list(spec.values) if v not in blocked), None)
        if clear is None:
            return []
        matches = [c.pre.match for c in way.checks if kind(c.pre.kind).blocked_by_related
                   and c.pre.entity == name]
        changes += [(r, {field: clear}) for r in tables[related.table] if r.get(field) in blocked and r["id"] != row["id"]
                    and any(all(r.get(theirs) == row.get(ours) for theirs, ours in m.items()) for m in matches)]
    return [_setting(*changes)] if changes else []
