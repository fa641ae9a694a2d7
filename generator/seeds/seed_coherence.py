"""What a seed's rows say of each other, read off their names, and kept true: the contradictions a lived
history cannot leave (the status-and-time ones are seed_timeline.py's).

  origins:  the moment a row was made (created_at, received, ordered_on) is not after the session opens;
  stamps:   a status's own date is set once the row has reached that status, and not before: a `submitted`
            report has its submitted_on, a draft has none (the order of statuses is the transitions' order);
  after:    a child row's date is not before the date its parent was made or reached the step it answers: a
            reimbursement is paid on or after its report was submitted, an attempt comes after its event;
  counters: a parent's `<child>_count` (attempt_count) equals the child rows that point at it;
  bounds:   a child's position is within its parent's count (page_number <= the batch's page_count), a party
            fits the seats of its table, and a row whose status says it is used up (depleted) holds no more than
            the least its field allows (its `min`: a tube's dead volume; none: nothing);
  written:  a field only a transition writes is empty before that step and set past it (seed_written.py).

    CHECKS[name](bp, tables) -> [(table, row id, why), ...]
    cohere(bp, tables, rng) -> rows changed (each made to agree, the smallest way)
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from datetime import date, timedelta
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, FieldSpec
from envcraft.generator.rules.registry import source_states
from envcraft.generator.seeds.seed_written import reach, settle_written, written
from envcraft_runtime.rules import shifted

Tables = dict[str, list[dict[str, Any]]]
Found = list[tuple[str, str, str]]
STAMP = re.compile(r"^(?P<step>[a-z_]+?)(_on|_at|_date)?$")
ORIGIN = re.compile(r"^(created|opened|received|raised|queued|filed|submitted|logged|reported|requested|ordered|"
                    r"applied|placed|issued)(_on|_at|_date)?$")
CHILD_TIME = re.compile(r"_(on|at)$")
USED_UP = frozenset({"depleted", "exhausted", "empty", "used_up", "consumed"})
AMOUNT = re.compile(r"^(volume|quantity|qty|remaining|on_hand|stock|balance)(_[a-z]+)?$")
PARTY = frozenset({"party_size", "headcount", "guests", "group_size", "attendees"})
SEATS = re.compile(r"^(seats|capacity|max_guests|max_party|max_occupancy)$")  # a parent's room for a party


def _day(value: Any) -> date | None:
    try:
        return date.fromisoformat(value[:10]) if isinstance(value, str) else None
    except ValueError:
        return None


# ---------------------------------------------------------------- the order of statuses


def _moves(bp: Blueprint, entity: Entity) -> dict[str, set[str]]:
    """status -> the statuses one transition leads to (from its status_in; none: from every status)."""
    values = entity.field(entity.status_field).values
    out: dict[str, set[str]] = {v: set() for v in values}
    for op in bp.operations:
        if op.entity != entity.name or op.kind != "transition" or not op.to_status:
            continue
        starts = source_states(entity, op)
        for start in starts if starts is not None else []:
            if start in out and start != op.to_status:
                out[start].add(op.to_status)
    return out


def _reach(moves: dict[str, set[str]], start: str) -> set[str]:
    return reach(moves, {start})


def _stamp_fields(bp: Blueprint, entity: Entity) -> list[tuple[FieldSpec, str, set[str], set[str]]]:
    """(date field, the status it stamps, statuses at or past it, statuses before it) for each date field named
    for a status a transition reaches (submitted_on for `submitted`)."""
    if not entity.status_field:
        return []
    values = entity.field(entity.status_field).values
    moves = _moves(bp, entity)
    out = []
    for spec in entity.fields:
        match = STAMP.match(spec.name) if spec.type in ("date", "datetime") else None
        step = match.group("step") if match else None
        if step not in values or not any(step in targets for targets in moves.values()):
            continue
        past = _reach(moves, step)
        before = {v for v in values if v not in past and step in _reach(moves, v)}
        out.append((spec, step, past, before))
    return out


def stamps(bp: Blueprint, tables: Tables) -> Found:
    found = []
    for entity in bp.entities:
        for spec, step, past, before in _stamp_fields(bp, entity):
            for row in tables.get(entity.table, []):
                status = row.get(entity.status_field)
                if status in past and row.get(spec.name) is None:
                    found.append((entity.table, row["id"], f"{status} with no {spec.name}"))
                elif status in before and row.get(spec.name) is not None:
                    found.append((entity.table, row["id"], f"{status}, not yet {step}, yet {spec.name} is set"))
    return found


# ---------------------------------------------------------------- when rows were made


def _opens(bp: Blueprint) -> str:
    return f"{bp.today}T09:00"


def _origins(entity: Entity) -> list[str]:
    return [f.name for f in entity.fields if f.type in ("date", "datetime") and ORIGIN.match(f.name)]


def _made_later(bp: Blueprint, value: Any) -> bool:
    return isinstance(value, str) and (value[:10] > bp.today or (len(value) > 10 and value[:16] > _opens(bp)))


def origins(bp: Blueprint, tables: Tables) -> Found:
    return [(entity.table, row["id"], f"{name} {row[name]} is after the session opens ({_opens(bp)})")
            for entity in bp.entities for name in _origins(entity) for row in tables.get(entity.table, [])
            if _made_later(bp, row.get(name))]


# ---------------------------------------------------------------- children after their parents


def _children(bp: Blueprint, parent: Entity) -> Iterator[tuple[Entity, str]]:
    for child in bp.entities:
        for spec in child.fields:
            if spec.type == "ref" and spec.ref == parent.name:
                yield child, spec.name


def _after_pairs(bp: Blueprint) -> Iterator[tuple[Entity, str, str, Entity, str]]:
    """(child, its ref field, its time field, parent, the parent's origin time field)."""
    for parent in bp.entities:
        made = _origins(parent)
        if not made:
            continue
        for child, ref in _children(bp, parent):
            times = [f.name for f in child.fields if f.type in ("date", "datetime") and CHILD_TIME.search(f.name)
                     and not f.name.startswith(("due", "expires", "valid"))]
            for name in times[:1]:
                yield child, ref, name, parent, made[0]


def after(bp: Blueprint, tables: Tables) -> Found:
    found = []
    for child, ref, name, parent, origin in _after_pairs(bp):
        parents = {r["id"]: r for r in tables.get(parent.table, [])}
        for row in tables.get(child.table, []):
            there = parents.get(row.get(ref))
            mine, theirs = _day(row.get(name)), _day((there or {}).get(origin))
            if mine and theirs and (mine < theirs or (mine == theirs and str(row[name]) < str(there[origin]))):
                found.append((child.table, row["id"], f"{name} {row[name]} is before its {parent.name}'s {origin} "
                                                      f"{there[origin]}"))
    return found


# ---------------------------------------------------------------- counters


def _ref_entity(bp: Blueprint, entity: str, ref_field: str) -> str | None:
    spec = next((f for f in bp.entity(entity).fields if f.name == ref_field), None)
    return spec.ref if spec is not None and spec.type == "ref" else None


def _counter_pairs(bp: Blueprint) -> Iterator[tuple[Entity, str, Entity, str]]:
    """(parent, its counter field, child, the child's ref field) where the counter is named for the child."""
    declared = {(i.entity, i.field) for i in bp.invariants if i.kind == "derived"}
    declared |= {(_ref_entity(bp, op.entity, p.ref_field), p.other_field) for op in bp.operations  # a cap a check reads
                 for p in op.preconditions if p.ref_field and p.other_field and not p.through}
    for parent in bp.entities:
        for child, ref in _children(bp, parent):
            last = child.name.rsplit("_", 1)[-1]
            for spec in parent.fields:
                if spec.type == "int" and spec.name in (f"{child.name}_count", f"{last}_count") \
                        and (parent.name, spec.name) not in declared:
                    yield parent, spec.name, child, ref


def counters(bp: Blueprint, tables: Tables) -> Found:
    found = []
    for parent, counter, child, ref in _counter_pairs(bp):
        for row in tables.get(parent.table, []):
            have = sum(1 for r in tables.get(child.table, []) if r.get(ref) == row["id"])
            if row.get(counter) is not None and row[counter] != have:
                found.append((parent.table, row["id"], f"{counter} {row[counter]} with {have} {child.table}"))
    return found


# ---------------------------------------------------------------- physical bounds


def _position_pairs(bp: Blueprint) -> Iterator[tuple[Entity, str, str, Entity, str]]:
    """(child, ref, its position field, parent, the parent's count): page_number within page_count."""
    for parent in bp.entities:
        for child, ref in _children(bp, parent):
            for spec in child.fields:
                if spec.type == "int" and spec.name.endswith("_number"):
                    unit = spec.name.removesuffix("_number")
                    total = next((f.name for f in parent.fields if f.type == "int"
                                  and f.name in (f"{unit}_count", f"{unit}s", f"{unit}s_total")), None)
                    if total:
                        yield child, ref, spec.name, parent, total
            party = next((f.name for f in child.fields if f.type == "int" and f.name in PARTY), None)
            seats = next((f.name for f in parent.fields if f.type == "int" and SEATS.match(f.name)), None)
            if party and seats:
                yield child, ref, party, parent, seats


def _used_up(entity: Entity) -> list[str]:
    if not entity.status_field or not set(entity.field(entity.status_field).values) & USED_UP:
        return []
    return [f.name for f in entity.fields if f.type in ("int", "float") and AMOUNT.match(f.name)]


def _left(entity: Entity, name: str) -> int | float:
    """The most a used-up row may still hold: the least the field allows (a create takes no less), else 0."""
    spec = entity.field(name)
    least = max(spec.min or 0, 0)
    return int(least) if spec.type == "int" else float(least)


def bounds(bp: Blueprint, tables: Tables) -> Found:
    found = []
    for child, ref, name, parent, total in _position_pairs(bp):
        parents = {r["id"]: r for r in tables.get(parent.table, [])}
        for row in tables.get(child.table, []):
            limit = (parents.get(row.get(ref)) or {}).get(total)
            if isinstance(limit, (int, float)) and isinstance(row.get(name), (int, float)) and row[name] > limit:
                found.append((child.table, row["id"], f"{name} {row[name]} over its {parent.name}'s {total} {limit}"))
    for entity in bp.entities:
        for name in _used_up(entity):
            for row in tables.get(entity.table, []):
                if row.get(entity.status_field) in USED_UP and (row.get(name) or 0) > _left(entity, name):
                    found.append((entity.table, row["id"], f"{row[entity.status_field]} yet {name} is {row[name]}"))
    return found


CHECKS: dict[str, Callable[[Blueprint, Tables], Found]] = {
    "origins": origins, "stamps": stamps, "after": after, "counters": counters, "bounds": bounds, "written": written}


# ---------------------------------------------------------------- making them agree


def _stamp_value(bp: Blueprint, spec: FieldSpec, row: dict[str, Any], rng: random.Random) -> str:
    """A date for a step the row has taken: before today, after any other date the row already holds."""
    today = date.fromisoformat(bp.today)
    earliest = max([d for d in (_day(v) for k, v in row.items() if k != spec.name) if d and d < today],
                   default=today - timedelta(days=30))
    day = earliest + timedelta(days=rng.randint(0, max(0, (today - earliest).days - 1)))
    return day.isoformat() if spec.type == "date" else f"{day.isoformat()}T{rng.randint(9, 16):02d}:{rng.choice((0, 30)):02d}"


def cohere(bp: Blueprint, tables: Tables, rng: random.Random) -> int:
    """Make every row the checks name agree; returns how many changed."""
    changed = settle_written(bp, tables, rng)
    for entity in bp.entities:  # made later than now: the same time of day, as many days back as it takes
        for name in _origins(entity):
            for row in tables.get(entity.table, []):
                if _made_later(bp, row.get(name)):
                    days = (date.fromisoformat(row[name][:10]) - date.fromisoformat(bp.today)).days + 1
                    row[name], changed = shifted(row[name], -days * 24 * 60), changed + 1
    for entity in bp.entities:
        for spec, _, past, before in _stamp_fields(bp, entity):
            for row in tables.get(entity.table, []):
                status = row.get(entity.status_field)
                if status in past and row.get(spec.name) is None:
                    row[spec.name], changed = _stamp_value(bp, spec, row, rng), changed + 1
                elif status in before and row.get(spec.name) is not None and spec.optional:
                    row[spec.name], changed = None, changed + 1
    for child, ref, name, parent, origin in _after_pairs(bp):
        parents = {r["id"]: r for r in tables.get(parent.table, [])}
        for row in tables.get(child.table, []):
            there = parents.get(row.get(ref)) or {}
            mine, theirs = _day(row.get(name)), _day(there.get(origin))
            if mine and theirs and (mine < theirs or (mine == theirs and str(row[name]) < str(there[origin]))):
                start = str(there[origin])
                if child.field(name).type == "date":
                    row[name] = start[:10]
                else:  # an hour or so after its parent, never past the session's opening
                    moment = start if len(start) > 10 else f"{start}T09:00"
                    row[name] = min(shifted(moment, 15 * rng.randint(1, 8)), _opens(bp))
                changed += 1
    for parent, counter, child, ref in _counter_pairs(bp):
        for row in tables.get(parent.table, []):
            have = sum(1 for r in tables.get(child.table, []) if r.get(ref) == row["id"])
            if row.get(counter) is not None and row[counter] != have:
                row[counter], changed = have, changed + 1
    for child, ref, name, parent, total in _position_pairs(bp):
        parents = {r["id"]: r for r in tables.get(parent.table, [])}
        for row in tables.get(child.table, []):
            limit = (parents.get(row.get(ref)) or {}).get(total)
            if isinstance(limit, (int, float)) and isinstance(row.get(name), (int, float)) and row[name] > limit >= 1:
                row[name], changed = rng.randint(1, int(limit)), changed + 1
    for entity in bp.entities:
        for name in _used_up(entity):
            for row in tables.get(entity.table, []):
                if row.get(entity.status_field) in USED_UP and (row.get(name) or 0) > _left(entity, name):
                    row[name], changed = _left(entity, name), changed + 1
    return changed


def contradictions(bp: Blueprint, tables: Tables) -> dict[str, Found]:
    return {name: check(bp, tables) for name, check in CHECKS.items()}


__all__ = ["CHECKS", "cohere", "contradictions"]
