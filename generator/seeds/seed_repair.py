"""Making a seed obey its own rules (generator/seeds/seed_rules.py).

`repair_rules` changes each row that breaks a rule, deterministically, by the smallest move that makes
all its rules hold without breaking another row's: first it re-picks a row it refers to (a volunteer
of the study's condition and age, a port of the van's connector, an approved application's pair), then
it adjusts a field of its own (a deploy moved into its window, an amount set to the total it must
equal), then makes it a row a conditional rule does not speak of (a CABG case no cardiac suite could
take is another procedure), and last it moves the row back to the status it came from (a wedding with
open tasks is not finalized yet). Invariants are repaired after each pass, and the passes repeat until
nothing breaks.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, Operation, Precondition
from envcraft.generator.model.fields import INACTIVE, TIME_FORMAT, time_pairs, typed
from envcraft.generator.rules.kind import Knobs
from envcraft.generator.rules.registry import compares, kind, source_states, unique_field
from envcraft.generator.seeds.invariants import repair
from envcraft.generator.seeds.seed_rules import (
    Check,
    Tables,
    Way,
    applies,
    breaches,
    effect_status,
    fact,
    first_hop,
    later_states,
    reached,
    readers,
    ref_entity,
    row_breaches,
    rows,
    way_breaches,
    ways_in,
)
from envcraft_runtime.records import field_of

PASSES = 4
PAIRS = 1500  # two-field moves tried for one row at most


def repair_rules(bp: Blueprint, tables: Tables, rng: random.Random) -> None:
    """Change seed rows until none breaks a rule its own tools enforce (invariants repaired each pass)."""
    for _ in range(PASSES):
        bad = [(entity, row) for entity, row in rows(bp, tables) if row_breaches(bp, entity, row, tables)]
        if not bad:
            return
        for entity, row in bad:
            fix(bp, tables, entity, row, rng)
        repair(bp, tables, rng)


def _failing(bp: Blueprint, entity: Entity, row: dict[str, Any], tables: Tables,
             extra: tuple[Way, ...]) -> list[tuple[Way, Check]]:
    """The checks behind the row's breaches: every failing check of each group with no clean way."""
    out = []
    groups = [(group, False) for group in ways_in(bp, entity, row)] + ([(list(extra), True)] if extra else [])
    for group, now in groups:
        judged = [(way, [c for c in way.checks if fact(bp, c, as_moved(way, entity, row), tables, now) is not None])
                  for way in group]
        if all(failed for _, failed in judged):
            out += [(way, check) for way, failed in judged for check in failed]
    return out


def as_moved(way: Way, entity: Entity, row: dict[str, Any]) -> dict[str, Any]:
    """The row as the way's transition would leave it (for a transition it has not made yet)."""
    if way.op.kind == "transition" and row.get(entity.status_field) != way.op.to_status:
        return {**row, entity.status_field: way.op.to_status}
    return row


def _count(bp: Blueprint, entity: Entity, row: dict[str, Any], tables: Tables, extra: tuple[Way, ...]) -> int:
    return len(row_breaches(bp, entity, row, tables)) + sum(
        len(way_breaches(bp, way, as_moved(way, entity, row), tables, now=True)) for way in extra)


def fix(bp: Blueprint, tables: Tables, entity: Entity, row: dict[str, Any], rng: random.Random,
        extra: tuple[Way, ...] = ()) -> bool:
    """Move the row so that it breaks no rule (and, given `extra`, could take those ways now); True if done."""
    failing = _failing(bp, entity, row, tables, extra)
    if not failing:
        return True
    others: dict[frozenset[str], int] = {}  # rows of these entities breaking a rule before the move
    if _fed(bp, tables, entity, row, [c.pre for _, c in failing if kind(c.pre.kind).feeds], rng,
            extra):
        return True
    if _carried(bp, tables, entity, row, failing, rng):
        failing = _failing(bp, entity, row, tables, extra)
        if not failing:
            return True
    knobs = _knobs(bp, tables, entity, row, failing, rng)
    for change in [c for knob in knobs for c in knob]:
        if _accept(bp, tables, entity, row, change, others, extra):
            return True
    pairs = [(a, b) for i, x in enumerate(knobs) for y in knobs[i + 1:] for a in x for b in y
             if not set(a) & set(b)]
    sampled = rng.sample(pairs, min(len(pairs), PAIRS))
    for a, b in sampled:
        if _accept(bp, tables, entity, row, {**a, **b}, others, extra):
            return True
    if _lifted(bp, tables, entity, row, failing, [c for knob in knobs for c in knob] + [{**a, **b} for a, b in sampled],
               extra):
        return True
    return _tripled(bp, tables, entity, row, knobs, others, extra)


def _tripled(bp: Blueprint, tables: Tables, entity: Entity, row: dict[str, Any], knobs: list[list[dict[str, Any]]],
             others: dict[frozenset[str], int], extra: tuple[Way, ...]) -> bool:
    """Last resort: three knobs moved at once (a counter, a clerk and a weekday slot). Its own rng, seeded by
    the row, so rows fixed earlier and every other seed keep their draws."""
    triples = [{**a, **b, **c} for i, x in enumerate(knobs) for j, y in enumerate(knobs[i + 1:], i + 1)
               for z in knobs[j + 1:] for a in x for b in y if not set(a) & set(b) for c in z if not (set(a) | set(b)) & set(c)]
    rng = random.Random(f"{bp.id}:{row['id']}")
    return any(_accept(bp, tables, entity, row, t, others, extra) for t in rng.sample(triples, min(len(triples), PAIRS)))


def _lifted(bp: Blueprint, tables: Tables, entity: Entity, row: dict[str, Any], failing: list[tuple[Way, Check]],
            changes: list[dict[str, Any]], extra: tuple[Way, ...]) -> bool:
    """Last, for a comparison by an `order` (a tutor's max level against the tutee's level): a move of the row,
    with the referenced row's ordered field lifted to what the row needs, kept if nothing else breaks more."""
    ways = {way.op.name: way for way, _ in failing}
    lifts = [c.pre for way in ways.values() for c in way.checks if compares(c.pre) and c.pre.order
             and c.pre.ref_field and c.pre.field and not c.pre.through and c.pre.op in ("<=", ">=", "==")]
    if not lifts:
        return False
    before = len(breaches(bp, tables))
    for change in [{}, *changes]:
        old = {name: row.get(name) for name in change}
        row.update(change)
        undo = []
        for pre in lifts:
            left = row.get(pre.field)
            if pre.via:
                left = field_of(tables, ref_entity(bp, entity, pre.field).table, left, pre.via)
            other = ref_entity(bp, entity, pre.ref_field)
            there = next((r for r in tables[other.table] if r["id"] == row.get(pre.ref_field)), None)
            if there is not None and left in pre.order and there.get(pre.other_field) != left:
                undo.append((there, pre.other_field, there.get(pre.other_field)))
                there[pre.other_field] = left
        if undo and _count(bp, entity, row, tables, extra) == 0 and len(breaches(bp, tables)) < before:
            return True
        for there, name, value in reversed(undo):
            there[name] = value
        row.update(old)
    return False


def _carried(bp: Blueprint, tables: Tables, entity: Entity, row: dict[str, Any], failing: list[tuple[Way, Check]],
             rng: random.Random) -> bool:
    """Before the row is re-pointed: the rows it already refers to brought where its making left them (an
    award's application awarded, as issuing it does), and the related rows an average or minimum reads
    scored to meet it (its panel's scores lifted, or one score given when it has none). Kept only if those
    checks then hold and the world breaks less than before (the row's other rules are its own moves), so
    awards stay spread over the applications they were made for."""
    moves: list[tuple[dict[str, Any], str, Any]] = []
    added: list[tuple[str, dict[str, Any]]] = []
    carried = []
    for way, check in failing:
        moved = effect_status(bp, way.op, check.pre)
        there = reached(bp, entity, tables, row, check.pre)[1] if moved else None
        if there is not None and there.get(check.pre.other_field) != moved[0]:
            moves.append((there, check.pre.other_field, moved[0]))
            carried.append((way, check))
        if kind(check.pre.kind).feeds:
            lifted, made = kind(check.pre.kind).lifts(bp, entity, check.pre, row, tables, rng)
            if lifted or made:
                moves += lifted
                added += made
                carried.append((way, check))
    if not carried:
        return False
    before = len(breaches(bp, tables))
    old = [(there, name, there.get(name)) for there, name, _ in moves]
    for there, name, value in moves:
        there[name] = value
    for table, new in added:
        tables[table].append(new)
    if all(fact(bp, check, as_moved(way, entity, row), tables) is None for way, check in carried) \
            and len(breaches(bp, tables)) < before:
        return True
    for table, new in added:
        tables[table].remove(new)
    for there, name, value in reversed(old):
        there[name] = value
    return False


def _fed(bp: Blueprint, tables: Tables, entity: Entity, row: dict[str, Any], checks: list[Precondition],
         rng: random.Random, extra: tuple[Way, ...]) -> bool:
    """Related rows added until the row's counts and sums hold (a van its five riders, a departure its
    travellers), each repaired to its own rules; kept only if the row then breaks nothing and no other row
    breaks more than before."""
    added = kind(checks[0].kind).feed(bp, entity, checks, row, tables, rng,
                                      lambda related, new, world: not row_breaches(bp, related, new, world)) \
        if checks else []
    if not added:
        return False
    saved = {name: [dict(r) for r in tables[name]] for name in tables}
    was = {(b.entity, b.row) for b in breaches(bp, tables)}
    before = sum(1 for b in was if b[1] != row["id"])
    for name, new in added:
        tables[name].append(new)
    for _ in range(2):  # the added rows and those they crowd (a seat over the van's capacity) repaired
        for breach in {(b.entity, b.row) for b in breaches(bp, tables)} - was:
            related = bp.entity(breach[0])
            fix(bp, tables, related, next(r for r in tables[related.table] if r["id"] == breach[1]), rng)
    if _count(bp, entity, row, tables, extra) == 0 and len({(b.entity, b.row) for b in breaches(bp, tables)
                                                             if b.row != row["id"]}) <= before:
        return True
    for name, old in saved.items():
        del tables[name][len(old):]
        for current, was in zip(tables[name], old, strict=True):
            current.clear()
            current.update(was)
    return False


def _others(bp: Blueprint, tables: Tables, row: dict[str, Any], only: set[str] | None = None) -> int:
    return sum(1 for b in breaches(bp, tables, only) if b.row != row["id"])


def _accept(bp: Blueprint, tables: Tables, entity: Entity, row: dict[str, Any], change: dict[str, Any],
            others: dict[frozenset[str], int], extra: tuple[Way, ...]) -> bool:
    """Apply the change if the row then breaks nothing, its numbers stay in range, its unique fields stay
    unique, and no other row breaks more than before; otherwise leave the row as it was."""
    change = {**change, **_follow(bp, tables, entity, row, change)}
    affected = frozenset(readers(bp, entity, set(change)))
    if affected and affected not in others:
        others[affected] = _others(bp, tables, row, set(affected))
    old = {name: row.get(name) for name in change}
    row.update(change)
    ok = _count(bp, entity, row, tables, extra) == 0 and _in_range(entity, change) \
        and _still_unique(bp, entity, row, tables, change) \
        and (not affected or _others(bp, tables, row, set(affected)) <= others[affected])
    if not ok:
        row.update(old)
    return ok


def _follow(bp: Blueprint, tables: Tables, entity: Entity, row: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """Own fields a rule ties to a re-picked row, set to match it: a payout's amount and cost center are its
    report's, an issue's material is its lot's, a charge is the new quantity x the item's unit cost."""
    out: dict[str, Any] = {}
    for group in ways_in(bp, entity, {**row, **change}):
        for way in group:
            for check in way.checks:
                pre = check.pre
                tied = kind(pre.kind).derived(bp, entity, pre, {**row, **change, **out}, tables)
                if tied is not None and pre.field not in change \
                        and applies(bp, entity, tables, pre, {**row, **change, **out}):
                    out[pre.field] = tied
                    continue
                if not compares(pre) or pre.op != "==" or pre.factor or pre.when is not None:
                    continue
                if pre.via and pre.than and pre.field in change and pre.than not in change:
                    mine = ref_entity(bp, entity, pre.field)
                    out[pre.than] = field_of(tables, mine.table, change[pre.field], pre.via)
                elif not pre.via and not pre.through and pre.field and pre.ref_field in change and pre.field not in change:
                    other = ref_entity(bp, entity, pre.ref_field)
                    out[pre.field] = field_of(tables, other.table, change[pre.ref_field], pre.other_field)
    return out


def _in_range(entity: Entity, change: dict[str, Any]) -> bool:
    """Every changed number within its field's range (a payout copied from an empty report's total of 0 is not)."""
    for name, value in change.items():
        spec = entity.field(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and (
                (spec.min is not None and value < spec.min) or (spec.max is not None and value > spec.max)):
            return False
    return True


def _still_unique(bp: Blueprint, entity: Entity, row: dict[str, Any], tables: Tables, change: dict[str, Any]) -> bool:
    unique = {f.name for f in entity.fields if f.unique} | {
        unique_field(p) for op in bp.operations if op.entity == entity.name for p in op.preconditions} - {None}
    return not any(name in unique and value is not None and any(
        r is not row and r.get(name) == value for r in tables[entity.table]) for name, value in change.items())


# ---------------------------------------------------------------- the moves, most natural first


def _knobs(bp: Blueprint, tables: Tables, entity: Entity, row: dict[str, Any], failing: list[tuple[Way, Check]],
           rng: random.Random) -> list[list[dict[str, Any]]]:
    """Lists of alternative changes, one list per field (or field set) a move would change."""
    refs: dict[str, list[dict[str, Any]]] = {}
    own: dict[str, list[dict[str, Any]]] = {}
    unless: dict[str, list[dict[str, Any]]] = {}
    for _, check in failing:
        pre = check.pre
        names = [first_hop(pre), pre.field if pre.via else None, pre.resource]
        names += [pre.field] if compares(pre) and pre.value is None and pre.than is None else []
        names += list(pre.match.values()) if kind(pre.kind).related_rows else []
        for name in names:
            target = ref_entity(bp, entity, name)
            if target is not None and name not in refs:
                ids = [r["id"] for r in tables[target.table] if r["id"] != row.get(name)]
                rng.shuffle(ids)
                refs[name] = [{name: i} for i in ids]
        kind(pre.kind).repair_moves(bp, tables, entity, pre, row, rng,
                                    Knobs(refs, own, _moved, [c.pre for _, c in failing], check.rule, later_states))
        for cond in pre.conditions:  # last: the row is one the rule does not speak of
            if cond.ref_field:
                continue
            spec = entity.field(cond.field)
            other = [v for v in (spec.values or []) if v != row.get(cond.field)]
            if spec.type == "bool":
                other = [not row.get(cond.field)]
            unless.setdefault(cond.field, []).extend({cond.field: typed(spec, str(v))} for v in other)
    back = sorted({v for way, _ in failing if way.op.kind == "transition" for v in from_statuses(bp, way.op)}, key=str)
    if entity.status_field and any(kind(c.pre.kind).counts_active_rows
                                   for way, _ in failing for c in way.checks):
        back += [v for v in entity.field(entity.status_field).values if v in INACTIVE and v not in back]
    status = [[{entity.status_field: v} for v in back if v != row.get(entity.status_field)]] if back else []
    return [k for k in list(refs.values()) + list(own.values()) + list(unless.values()) + status if k]


def _typed(entity: Entity, field: str, raw: list[str]) -> tuple[Any, ...]:
    return tuple(typed(entity.field(field), v) for v in raw)


def from_statuses(bp: Blueprint, op: Operation) -> list[Any]:
    entity = bp.entity(op.entity)
    return list(source_states(entity, op) or [])


def _moved(bp: Blueprint, entity: Entity, row: dict[str, Any], name: str, day: date,
           clock: str | None = None) -> dict[str, Any]:
    """`name` moved to `day` (and `clock`), its paired end moved by as much."""
    old = row.get(name)
    if not isinstance(old, str):
        return {name: day.isoformat()}
    if len(old) > 10:
        before = datetime.strptime(old[:16], TIME_FORMAT)
        after = datetime.combine(day, datetime.strptime(clock or old[11:16], "%H:%M").time())
        new, delta = after.strftime(TIME_FORMAT), after - before
    else:
        new, delta = day.isoformat(), day - date.fromisoformat(old)
    change = {name: new}
    for end, start in time_pairs(bp, entity).items():
        if start == name and isinstance(row.get(end), str):
            width = 16 if len(row[end]) > 10 else 10
            moved = datetime.strptime(row[end][:16], TIME_FORMAT) + delta if width == 16 else \
                date.fromisoformat(row[end]) + timedelta(days=delta.days)
            change[end] = moved.strftime(TIME_FORMAT) if width == 16 else moved.isoformat()
    return change
