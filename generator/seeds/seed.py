"""Seed data of a blueprint: the app tables and the workspace files an episode starts from.

Deterministic: one `random.Random(f"{id}:{seed}")` drives everything, in a fixed order, so the
same blueprint always gives the same rows. Rows respect the blueprint's own rules where it states
them (refs exist, unique fields are unique, no double-booking where `no_overlap` applies, no
over-full capacity), so a task can rely on the seed being a consistent starting state.
"""

from __future__ import annotations

import csv
import io
import json
import random
from datetime import date, datetime, timedelta
from typing import Any

from envcraft.generator.model.blueprint import Blueprint, Entity, FieldSpec
from envcraft.generator.model.fields import (  # noqa: F401
    COMPANY_ENTITIES,
    ENDS,
    INACTIVE,
    NAME_HINTS,
    NEVER_HAPPENED,
    PERSON_ENTITIES,
    PRODUCT_ENTITIES,
    STARTS,
    TIME_FORMAT,
    guess_gen,
    pair_start,
    time_pairs,
)
from envcraft.generator.model.stated_rules import expand
from envcraft.generator.rules.kind import Draw
from envcraft.generator.rules.registry import kind, unique_field
from envcraft.generator.seeds import values
from envcraft.generator.seeds.claims import settle
from envcraft.generator.seeds.invariants import repair
from envcraft.generator.seeds.seed_coherence import cohere
from envcraft.generator.seeds.seed_repair import repair_rules
from envcraft.generator.seeds.seed_supply import supply
from envcraft.generator.seeds.seed_timeline import agenda, agree, misplaced, place, unwind


def rng_for(bp: Blueprint) -> random.Random:
    return random.Random(f"{bp.id}:{bp.seed}")


def today(bp: Blueprint) -> date:
    return date.fromisoformat(bp.today)


def id_of(entity: Entity, n: int) -> str:
    return f"{entity.id_prefix}-{n:04d}"


def _pool(pool: list[str], rows: int, rng: random.Random) -> list[str]:
    """Values in order when there are enough; otherwise shuffled rounds, so each repeats evenly."""
    if rows <= len(pool):
        return list(pool[:rows])
    out: list[str] = []
    while len(out) < rows:
        chunk = list(pool)
        rng.shuffle(chunk)
        out += chunk
    return out[:rows]


def _mixed(choices: list[str], rows: int, rng: random.Random) -> list[str]:
    """Every enum value at least once (when rows allow), the rest at random, in a shuffled order."""
    if rows <= len(choices):
        return list(choices[:rows])
    out = list(choices) + [rng.choice(choices) for _ in range(rows - len(choices))]
    rng.shuffle(out)
    return out


def _day(bp: Blueprint, spec: FieldSpec, rng: random.Random, default: tuple[int, int]) -> date:
    low = int(spec.min) if spec.min is not None else default[0]
    high = int(spec.max) if spec.max is not None else max(default[1], low)
    return today(bp) + timedelta(days=rng.randint(low, max(low, high)))


def _slot(bp: Blueprint, spec: FieldSpec, rng: random.Random, minutes: int = 0) -> datetime:
    """A working-hours time on a 30-minute mark; leaves room for `minutes` before 17:00."""
    day = _day(bp, spec, rng, (-14, 14))
    last = (17 * 60 - minutes - 9 * 60) // 30
    return datetime(day.year, day.month, day.day, 9, 0) + timedelta(minutes=30 * rng.randint(0, max(last, 0)))


def _number(spec: FieldSpec, rng: random.Random) -> int | float:
    low = spec.min if spec.min is not None else (spec.max - 100 if spec.max is not None else 0)
    high = spec.max if spec.max is not None else low + 100
    if spec.type == "int":
        return rng.randint(int(low), int(max(low, high)))
    return round(rng.uniform(low, max(low, high)), 2)


def _column(bp: Blueprint, entity: Entity, spec: FieldSpec, ids: dict[str, list[str]], rng: random.Random) -> list[Any]:
    """One field's values for every row of the entity (email and end-times are filled per row later)."""
    n = entity.rows
    if spec.type == "enum":
        return _mixed(spec.values, n, rng)
    if spec.type == "ref":
        return [rng.choice(ids[spec.ref]) for _ in range(n)]
    if spec.type in ("int", "float"):
        return [_number(spec, rng) for _ in range(n)]
    if spec.type == "bool":
        return [rng.random() < 0.5 for _ in range(n)]
    if spec.type == "date":
        return [_day(bp, spec, rng, (-60, 60)).isoformat() for _ in range(n)]
    if spec.type == "datetime":
        return [_slot(bp, spec, rng, 120).strftime(TIME_FORMAT) for _ in range(n)]
    if spec.type == "list_str":
        pool = spec.values or list(values.TAGS)
        return [sorted(set(rng.sample(pool, min(len(pool), rng.randint(1, 3))))) for _ in range(n)]
    if spec.template:
        return [spec.template.format(n=i + 1) for i in range(n)]
    if spec.values:
        return _pool(spec.values, n, rng)
    gen = guess_gen(entity, spec)
    column = [values.generate(gen, rng) for _ in range(n)]
    if gen in ("person_name", "company", "product", "title") and n >= 6:
        for i in range(3, n, 5):  # every fifth row from the fourth on: a near-duplicate of an earlier row
            column[i] = values.near(gen, column[rng.randrange(i)], rng)
    if gen in ("person_name", "company") and spec.name in ("name", "full_name", "display_name"):
        # two people (or firms) of one table are not namesakes: a request names one of them
        seen: set[str] = set()
        spare = random.Random(f"{bp.id}:{bp.seed}:{entity.name}.{spec.name}")  # the seed's own draws stay as they were
        for i, value in enumerate(column):
            while value in seen:
                value = values.generate(gen, spare)
            column[i] = value
            seen.add(value)
    return column


def _unique(column: list[Any], spec: FieldSpec, rng: random.Random, pool: list[str] | None = None) -> list[Any]:
    """Make a column's values distinct; a reference is re-pointed at a row not yet referenced."""
    seen: set[Any] = set()
    out = []
    spare = [i for i in (pool or []) if i not in set(column)]
    for value in column:
        if spec.type == "ref" and value in seen:
            value = spare.pop(0) if spare else None
            seen.add(value)
            out.append(value)
            continue
        candidate, bump = value, 1
        while candidate in seen and candidate is not None:
            bump += 1
            if spec.type == "int":
                candidate = value + bump - 1
            elif spec.type == "float":
                candidate = round(value + (bump - 1) * 0.01, 2)
            elif spec.type in ("email",) and "@" in str(value):
                local, domain = str(value).split("@", 1)
                candidate = f"{local}{bump}@{domain}"
            else:
                candidate = f"{value} {bump}"
        seen.add(candidate)
        out.append(candidate)
    return out


def _unique_fields(bp: Blueprint, entity: Entity) -> set[str]:
    names = {f.name for f in entity.fields if f.unique}
    for op in bp.operations:
        if op.entity == entity.name:
            names |= {unique_field(p) for p in op.preconditions if unique_field(p)}
    return names


def _occupies(entity: Entity, row: dict) -> bool:
    return not entity.status_field or row.get(entity.status_field) not in NEVER_HAPPENED


def _fix_rows(bp: Blueprint, entity: Entity, rows: list[dict], rng: random.Random) -> None:
    """What each check of the entity's operations needs of its freshly drawn rows (no_overlap: no double
    booking among rows that took place)."""
    def retime(start: FieldSpec, end: FieldSpec, row: dict) -> None:
        _retime(bp, start, end, row, rng)
        if misplaced(bp, entity, row):  # the new time must still agree with the row's status
            place(bp, entity, row, rng)

    draw = Draw(retime, _occupies)
    for op in bp.operations:
        for pre in op.preconditions:
            if op.entity == entity.name:
                kind(pre.kind).seed_rows(bp, entity, pre, rows, draw)


def _retime(bp: Blueprint, start_spec: FieldSpec, end_spec: FieldSpec, row: dict, rng: random.Random) -> None:
    if start_spec.type == "datetime":
        minutes = 30 * rng.randint(1, 4)
        begin = _slot(bp, start_spec, rng, minutes)
        row[start_spec.name], row[end_spec.name] = begin.strftime(TIME_FORMAT), (begin + timedelta(minutes=minutes)).strftime(TIME_FORMAT)
    else:
        begin = _day(bp, start_spec, rng, (-60, 60))
        row[start_spec.name], row[end_spec.name] = begin.isoformat(), (begin + timedelta(days=rng.randint(1, 5))).isoformat()


def seed_tables(bp: Blueprint) -> dict[str, list[dict[str, Any]]]:
    """The app tables: entity table name -> rows, ids <prefix>-0001.. in order."""
    rng = rng_for(bp)
    ids = {e.name: [id_of(e, i + 1) for i in range(e.rows)] for e in bp.entities}
    tables: dict[str, list[dict[str, Any]]] = {}
    for entity in bp.entities:
        unique = _unique_fields(bp, entity)
        columns: dict[str, list[Any]] = {}
        for spec in entity.fields:
            column = _column(bp, entity, spec, ids, rng)
            columns[spec.name] = column
        rows = [{"id": ids[entity.name][i], **{name: col[i] for name, col in columns.items()}} for i in range(entity.rows)]
        pairs = time_pairs(bp, entity)
        for spec in entity.fields:  # values that depend on another field of the same row
            start = pairs.get(spec.name)
            for row in rows:
                if start and row.get(start):
                    if spec.type == "datetime":
                        minutes = 30 * rng.randint(1, 4)
                        begin = datetime.strptime(row[start], TIME_FORMAT)
                        if begin.hour * 60 + begin.minute + minutes > 17 * 60:
                            begin = begin.replace(hour=17, minute=0) - timedelta(minutes=minutes)
                            row[start] = begin.strftime(TIME_FORMAT)
                        row[spec.name] = (begin + timedelta(minutes=minutes)).strftime(TIME_FORMAT)
                    else:
                        row[spec.name] = (date.fromisoformat(row[start]) + timedelta(days=rng.randint(1, 7))).isoformat()
                elif (spec.type == "email" or spec.gen == "email") and not spec.values and not spec.template:
                    row[spec.name] = _derived_email(entity, row, rng)
        for spec in entity.fields:
            if spec.name in unique:
                for row, value in zip(rows, _unique([row[spec.name] for row in rows], spec, rng,
                                                           ids.get(spec.ref) if spec.type == "ref" else None)):
                    row[spec.name] = value
        for spec in entity.fields:
            if spec.optional and spec.name != entity.status_field:
                for row in rows:
                    if rng.random() < 0.2:
                        row[spec.name] = None
        agree(bp, {entity.table: rows}, rng)
        _fix_rows(bp, entity, rows, rng)
        tables[entity.table] = rows
    for entity in bp.entities:  # what a kind of rule needs of the drawn world (capacity: rows within caps)
        for op in bp.operations:
            for pre in op.preconditions:
                if op.entity == entity.name and kind(pre.kind) is not None:
                    kind(pre.kind).seed_world(bp, entity, pre, tables, rng)
    repair(bp, tables, rng)
    repair_rules(bp, tables, rng)
    settle(bp, tables)  # the re-picked pairs pile offers onto a few units: one live offer each (supply keeps it so)
    supply(bp, tables, rng)
    if agenda(bp, tables, rng):  # today's work; rows tied to a moved one (a proctor shift to its sitting) follow
        repair(bp, tables, rng)
        repair_rules(bp, tables, rng)
    for _ in range(3):  # a repair may have undone what the history says: make it agree again, repair again
        if not agree(bp, tables, rng) + cohere(bp, tables, rng):
            break
        repair(bp, tables, rng)
        repair_rules(bp, tables, rng)
    if unwind(bp, tables):
        repair(bp, tables, rng)
        repair_rules(bp, tables, rng)
    return tables


def _derived_email(entity: Entity, row: dict, rng: random.Random) -> str:
    name_field = next((f.name for f in entity.fields if f.type in ("str",) and (f.name in ("name", "full_name", "contact_name")
                       or f.name.endswith("_name")) and isinstance(row.get(f.name), str)), None)
    company_field = next((f.name for f in entity.fields if f.type == "str" and (f.gen == "company" or f.name == "company")
                          and isinstance(row.get(f.name), str)), None)
    domain = values.domain_for(row[company_field]) if company_field else None
    if entity.name.rsplit("_", 1)[-1] in COMPANY_ENTITIES and name_field:
        return f"{rng.choice(('billing', 'accounts', 'orders', 'hello', 'support'))}@{values.domain_for(row[name_field])}"
    return values.email_for(row[name_field] if name_field else values.person_name(rng), rng, domain)


# ---------------------------------------------------------------- workspace files


def export(bp: Blueprint, entity_name: str, fmt: str, tables: dict[str, list[dict]]) -> str:
    entity = bp.entity(entity_name)
    rows = tables[entity.table]
    columns = ["id"] + [f.name for f in entity.fields]
    if fmt == "json":
        return json.dumps([{c: row.get(c) for c in columns} for row in rows], indent=2, ensure_ascii=False) + "\n"
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if row.get(c) is None else ";".join(row[c]) if isinstance(row.get(c), list) else row[c]
                         for c in columns])
    return buffer.getvalue()


def seed_files(bp: Blueprint, tables: dict[str, list[dict]]) -> dict[str, str]:
    """Workspace data files: path -> text (the compiler adds SKILL.md, see skill.py); a doc's `{{rule:id}}`
    placeholders become the text of those policies (generator/model/stated_rules.py)."""
    files = {}
    for file in bp.files:
        files[file.path] = expand(bp, file.content) if file.content is not None else \
            export(bp, file.export, file.format, tables)
    return files


def state_json(tables: dict[str, list[dict]]) -> str:
    """Exactly what claw.Store writes."""
    return json.dumps(tables, indent=1, sort_keys=True)
