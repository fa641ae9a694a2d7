"""World invariants: what must be true of an environment's rows for the world to make sense.

Declared in a blueprint (`invariants:`) or implied by it (an end after its start, a person's email
derived from their own name). The seed is repaired to satisfy them (`repair`, called by
seed.seed_tables), and task generators check the world after every gold solution:

    check_invariants(bp, tables) -> ["trip_request trq-0004: return_date 2026-11-03 is before depart 2026-11-05", ...]

Kinds:
- order:       `field` is not before `than` (strict: after it) on every row: trips return after they depart;
- compare:     `field op value|than` on every row where `when` holds: a short line received fewer than expected;
- pool_by:     `field` is one of `pools[row[by]]`: a cat's breed is a cat breed, a statin is not a controlled drug;
               with `ref_field`, `by` is a field of the row it points at (a shift's role fits its agency's cause);
- matches_ref: `field` equals the `other_field` of the row `ref_field` points at (`part: date` compares the day);
- derived:     `field` is the sum of `sum_of` (or the count) over the rows of `of` that point at the row via `via`;
- email_of:    a person's `field` email is made from their own `name_field` (never someone else's).

check_invariants also reports broken claims (generator/seeds/claims.py): two live offers for one unit.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from datetime import date, datetime, timedelta
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, Invariant
from envcraft.generator.model.fields import INACTIVE, guess_gen, time_pairs
from envcraft.generator.seeds import values
from envcraft.generator.seeds.claims import claim_breaks

OPS = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
       ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
TITLES = ("dr", "mr", "mrs", "ms", "prof")
OWN_NAMES = ("name", "full_name", "title", "display_name")  # a row's own name: two rows do not share it


def _holds(left: Any, op: str, right: Any) -> bool:
    if left is None or right is None:
        return True
    try:
        return OPS[op](left, right)
    except TypeError:
        return True


def _typed(entity: Entity, name: str, raw: Any) -> Any:
    spec = entity.field(name)
    if isinstance(raw, str) and spec.type in ("int", "float"):
        return int(float(raw)) if spec.type == "int" else float(raw)
    if isinstance(raw, str) and spec.type == "bool":
        return raw.lower() in ("true", "yes", "1")
    return raw


def person_name_field(entity: Entity) -> str | None:
    for spec in entity.fields:
        if spec.type == "str" and not spec.values and not spec.template and guess_gen(entity, spec) == "person_name":
            return spec.name
    return None


def implied(bp: Blueprint) -> list[Invariant]:
    """Invariants every blueprint has without saying so: paired times in order, emails of their owners."""
    out = []
    for entity in bp.entities:
        for end, start in time_pairs(bp, entity).items():
            out.append(Invariant(kind="order", entity=entity.name, field=end, than=start, strict=True))
        name = person_name_field(entity)
        for spec in entity.fields:
            if spec.type == "email" and not spec.values and not spec.template and name:
                out.append(Invariant(kind="email_of", entity=entity.name, field=spec.name, name_field=name))
    return out


def invariants(bp: Blueprint) -> list[Invariant]:
    declared = list(bp.invariants)
    keys = {(i.kind, i.entity, i.field) for i in declared}
    return declared + [i for i in implied(bp) if (i.kind, i.entity, i.field) not in keys]


def _when(entity: Entity, inv: Invariant, row: dict) -> bool:
    if inv.when is None:
        return True
    left = row.get(inv.when.field)
    if inv.when.op in ("in", "not_in"):
        inside = left in [_typed(entity, inv.when.field, v) for v in inv.when.values]
        return inside if inv.when.op == "in" else not inside
    right = _typed(entity, inv.when.field, inv.when.value) if not isinstance(inv.when.value, bool) else inv.when.value
    return left is not None and _holds(left, inv.when.op, right)


def _right(entity: Entity, inv: Invariant, row: dict) -> Any:
    if inv.than is not None:
        return row.get(inv.than)
    return _typed(entity, inv.field, inv.value) if not isinstance(inv.value, bool) else inv.value


def _email_local(name: str) -> str:
    parts = [p for p in re.split(r"[^a-z0-9]+", name.lower()) if p and p not in TITLES]
    return ".".join(parts[:2] if len(parts) > 1 else parts or ["contact"])


def _children(tables: dict, bp: Blueprint, inv: Invariant) -> dict[str, list[dict]]:
    child = bp.entity(inv.of)
    out: dict[str, list[dict]] = {}
    for row in tables.get(child.table, []):
        out.setdefault(row.get(inv.via), []).append(row)
    return out


def _derived(bp: Blueprint, inv: Invariant, kids: list[dict]) -> float | int:
    child = bp.entity(inv.of)
    active = [k for k in kids if not (inv.active_only and child.status_field
                                      and k.get(child.status_field) in _inactive())]
    if inv.sum_of is None:
        return len(active)
    total = sum(k.get(inv.sum_of) or 0 for k in active)
    return round(total, 2) if isinstance(total, float) else total


def _inactive() -> tuple[str, ...]:
    return INACTIVE


def violations_of(bp: Blueprint, inv: Invariant, tables: dict[str, list[dict]]) -> list[str]:
    entity = bp.entity(inv.entity)
    rows = tables.get(entity.table, [])
    label = inv.field.replace("_", " ")
    found = []
    if inv.kind == "derived":
        kids = _children(tables, bp, inv)
        for row in rows:
            want = _derived(bp, inv, kids.get(row["id"], []))
            have = row.get(inv.field)
            if have is None or abs(float(have) - float(want)) > 0.005:
                found.append(f"{entity.name} {row['id']}: {label} is {have}, but its {bp.entity(inv.of).table} give {want}")
        return found
    refs = {}
    if inv.kind == "matches_ref" or (inv.kind == "pool_by" and inv.ref_field):
        other = bp.entity(entity.field(inv.ref_field).ref)
        refs = {r["id"]: r for r in tables.get(other.table, [])}
    for row in rows:
        value = row.get(inv.field)
        if value is None or not _when(entity, inv, row):
            continue
        if inv.kind == "order":
            before = row.get(inv.than)
            if before is not None and (value < before or (inv.strict and value == before)):
                found.append(f"{entity.name} {row['id']}: {label} {value} is not after {inv.than.replace('_', ' ')} {before}")
        elif inv.kind == "compare":
            right = _right(entity, inv, row)
            if not _holds(value, inv.op, right):
                what = inv.than.replace("_", " ") + " " if inv.than else ""
                found.append(f"{entity.name} {row['id']}: {label} {value} is not {inv.op} {what}{right}")
        elif inv.kind == "pool_by":
            pool = inv.pools.get(_pool_key(inv, row, refs))
            if pool is not None and str(value) not in pool:
                found.append(f"{entity.name} {row['id']}: {label} {value!r} does not fit {inv.by.replace('_', ' ')} "
                             f"{_pool_key(inv, row, refs)!r}")
        elif inv.kind == "matches_ref":
            other = refs.get(row.get(inv.ref_field))
            theirs = other.get(inv.other_field) if other else None
            if theirs is not None and _part(value, inv.part) != _part(theirs, inv.part):
                found.append(f"{entity.name} {row['id']}: {label} {value} does not match the "
                             f"{inv.other_field.replace('_', ' ')} {theirs} of {row.get(inv.ref_field)}")
        elif inv.kind == "email_of":
            name = row.get(inv.name_field)
            local = str(value).split("@", 1)[0]
            if isinstance(name, str) and re.sub(r"\d+$", "", local) != _email_local(name):
                found.append(f"{entity.name} {row['id']}: email {value} is not {name}'s")
    return found


def _pool_key(inv: Invariant, row: dict, refs: dict[str, dict]) -> str:
    """The value of `by` that picks the pool: the row's own, or (with `ref_field`) the referenced row's."""
    source = refs.get(row.get(inv.ref_field), {}) if inv.ref_field else row
    value = source.get(inv.by)
    return str(value).lower() if isinstance(value, bool) else str(value)


def _part(value: Any, part: str) -> Any:
    return str(value)[:10] if part == "date" else value


def check_invariants(bp: Blueprint, tables: dict[str, list[dict]]) -> list[str]:
    """Every violation of the blueprint's invariants (declared and implied, and claims: one live lease offer
    per unit, none on an available unit) in these tables."""
    return [v for inv in invariants(bp) for v in violations_of(bp, inv, tables)] + claim_breaks(bp, tables)


# ---------------------------------------------------------------- making a seed satisfy them


def repair(bp: Blueprint, tables: dict[str, list[dict]], rng: random.Random) -> None:
    """Change seed rows, deterministically, until every invariant holds (declared order first)."""
    for inv in invariants(bp):
        entity = bp.entity(inv.entity)
        rows = tables.get(entity.table, [])
        if inv.kind == "derived":
            kids = _children(tables, bp, inv)
            for row in rows:
                row[inv.field] = _derived(bp, inv, kids.get(row["id"], []))
            continue
        refs = {}
        if inv.kind == "matches_ref" or (inv.kind == "pool_by" and inv.ref_field):
            other = bp.entity(entity.field(inv.ref_field).ref)
            refs = {r["id"]: r for r in tables.get(other.table, [])}
        taken = {str(r.get(inv.field)) for r in rows} if inv.kind == "email_of" else set()
        if inv.kind == "pool_by" and inv.field in OWN_NAMES:
            _distinct(bp, inv, rows, refs)
        for row in rows:
            if row.get(inv.field) is None or not _when(entity, inv, row):
                continue
            if not violations_of(bp, inv, {entity.table: [row], **({} if not refs else
                                                                   {bp.entity(entity.field(inv.ref_field).ref).table: list(refs.values())})}):
                continue
            if inv.kind == "order":
                row[inv.field] = _later(row[inv.than], row[inv.field], rng)
            elif inv.kind == "compare":
                row[inv.field] = _satisfy(entity, inv, row, rng)
            elif inv.kind == "pool_by":
                pool = inv.pools[_pool_key(inv, row, refs)]
                row[inv.field] = _typed(entity, inv.field, _least_used(pool, rows, inv.field, rng)
                                        if inv.field in OWN_NAMES else rng.choice(pool))
            elif inv.kind == "matches_ref":
                theirs = refs[row[inv.ref_field]][inv.other_field]
                row[inv.field] = (str(theirs)[:10] + str(row[inv.field])[10:]) if inv.part == "date" else theirs
            elif inv.kind == "email_of":
                email = values.email_for(row[inv.name_field], rng, str(row[inv.field]).split("@", 1)[-1])
                local, domain = email.split("@", 1)
                bump = 1
                while email in taken:
                    bump += 1
                    email = f"{local}{bump}@{domain}"
                taken.add(email)
                row[inv.field] = email


def _distinct(bp: Blueprint, inv: Invariant, rows: list[dict], refs: dict[str, dict]) -> None:
    """A row's own name (a protocol's title) that an earlier row already holds is swapped for one of its category's
    pool that no row holds, while there is one: staff tell two protocols apart by title. Drawn from an RNG of its
    own, so the seed's other draws stay as they were."""
    rng = random.Random(f"{bp.id}:{bp.seed}:{inv.entity}.{inv.field}")
    held = Counter(str(r.get(inv.field)) for r in rows)
    seen: set[str] = set()
    for row in rows:
        value = str(row.get(inv.field))
        free = [v for v in inv.pools.get(_pool_key(inv, row, refs), []) if not held[v]]
        if value in seen and free:
            held[value] -= 1
            value = rng.choice(free)
            held[value] += 1
            row[inv.field] = value
        seen.add(value)


def _least_used(pool: list[str], rows: list[dict], field: str, rng: random.Random) -> str:
    """A pool value as few rows hold as any: two protocols of one population get two of its titles, not one."""
    held = Counter(str(r.get(field)) for r in rows)
    fewest = min(held[v] for v in pool)
    return rng.choice([v for v in pool if held[v] == fewest])


def _later(start: str, end: str, rng: random.Random) -> str:
    if len(start) > 10:
        moment = datetime.strptime(start, "%Y-%m-%dT%H:%M") + timedelta(minutes=30 * rng.randint(1, 4))
        return moment.strftime("%Y-%m-%dT%H:%M")
    return (date.fromisoformat(start) + timedelta(days=rng.randint(1, 7))).isoformat()


def _satisfy(entity: Entity, inv: Invariant, row: dict, rng: random.Random) -> Any:
    right = _right(entity, inv, row)
    spec = entity.field(inv.field)
    if isinstance(right, (int, float)) and spec.type in ("int", "float"):
        low = spec.min if spec.min is not None else 0
        high = spec.max if spec.max is not None else max(right, low) + 100
        step = 1 if spec.type == "int" else 0.01
        bounds = {"==": (right, right), "<=": (low, right), "<": (low, right - step), ">=": (right, high),
                  ">": (right + step, high), "!=": (right + step, right + step)}[inv.op]
        lo, hi = min(bounds), max(bounds)
        value = rng.randint(int(lo), int(hi)) if spec.type == "int" else round(rng.uniform(lo, hi), 2)
        return value
    if inv.op == "!=" and spec.values:  # a name from the pool other than the one it must differ from
        return _typed(entity, inv.field, rng.choice([v for v in spec.values if v != str(right)]))
    return right
