"""Decoys: near-miss copies of the rows a task acts on, so a careless agent picks the wrong one.

A decoy copies a target row and differs in one distinguishing field (another species, the next
day, a sibling company name); unique fields get fresh values. The description of the target then
has to name that field, and a guard pins the decoy: touching it halves the reward. Workspace
environments sometimes also get a stale copy of an export file with the decoy's value in it.
"""

from __future__ import annotations

import random
import re
from datetime import date, datetime, timedelta
from typing import Any

from envcraft.generator.model.blueprint import Entity, FieldSpec
from envcraft.generator.rules.registry import unique_field
from envcraft.generator.seeds import values
from envcraft.generator.seeds.seed import export, guess_gen
from envcraft.generator.tasks.env import EnvSpec, Tables, copy_row, copy_tables, label_field

TIME = "%Y-%m-%dT%H:%M"


def next_ids(entity: Entity, rows: list[dict[str, Any]], count: int) -> list[str]:
    numbers = [int(m.group(1)) for r in rows if (m := re.fullmatch(rf"{entity.id_prefix}-(\d+)", str(r.get("id"))))]
    top = max(numbers, default=0)
    return [f"{entity.id_prefix}-{top + i + 1:04d}" for i in range(count)]


def shifted(env: EnvSpec, entity: Entity, spec: FieldSpec, value: Any, rng: random.Random, tables: Tables) -> Any:
    """Another plausible value of the same field."""
    if spec.type == "enum":
        return rng.choice([v for v in spec.values if v != value])
    if spec.type == "ref":
        ids = [r["id"] for r in tables.get(env.entity(spec.ref).table, []) if r["id"] != value]
        return rng.choice(ids) if ids else value
    if spec.type == "date":
        return (date.fromisoformat(value) + timedelta(days=rng.choice((-2, -1, 1, 2, 7)))).isoformat()
    if spec.type == "datetime":
        return (datetime.strptime(value, TIME) + timedelta(days=rng.choice((1, 2, 7)))).strftime(TIME)
    if spec.type in ("int", "float"):
        low = spec.min if spec.min is not None else value - 10
        high = spec.max if spec.max is not None else value + 10
        for _ in range(6):
            delta = max((high - low) * rng.uniform(0.1, 0.4), 1)
            new = value + delta if rng.random() < 0.5 else value - delta
            new = round(new) if spec.type == "int" else round(new, 2)
            if low <= new <= high and new != value:
                return new
        return value
    if spec.type in ("str", "email"):
        if spec.values:
            others = [v for v in spec.values if v != value]
            return rng.choice(others) if others else value
        if spec.type == "email" or spec.gen == "email":
            local, _, domain = str(value).partition("@")
            return f"{local}.{rng.randint(2, 9)}@{domain}" if domain else value
        if spec.template:
            return None
        gen = guess_gen(entity, spec)
        near = values.near(gen, value, rng)
        return near if near != value else values.generate(gen, rng)
    return value


def fresh_unique(env: EnvSpec, entity: Entity, row: dict[str, Any], rng: random.Random, tables: Tables) -> bool:
    """Give the decoy new values for unique fields; False if one cannot be made."""
    for spec in entity.fields:
        unique = spec.unique or any(unique_field(p) == spec.name for op in env.bp.operations
                                    if op.entity == entity.name for p in op.preconditions)
        if not unique or row.get(spec.name) is None:
            continue
        used = {r.get(spec.name) for r in tables.get(entity.table, [])}
        if spec.template:
            candidates = [spec.template.format(n=n) for n in rng.sample(range(500, 999), 20)]
        else:
            candidates = [shifted(env, entity, spec, row[spec.name], rng, tables) for _ in range(6)]
            candidates += [f"{row[spec.name]} {n}" for n in range(2, 6)] if spec.type == "str" else []
        fresh = next((c for c in candidates if c is not None and c not in used), None)
        if fresh is None:
            return False
        row[spec.name] = fresh
    return True


def decoy_for(env: EnvSpec, entity: Entity, row: dict[str, Any], rng: random.Random, tables: Tables,
              new_id: str, also: str | None = None) -> tuple[dict[str, Any], str] | None:
    """A near-miss copy of `row`: (decoy, the field it differs in)."""
    label = label_field(entity)
    options = [s for s in entity.fields if s.name not in (label, entity.status_field, also)
               and row.get(s.name) is not None and s.type in ("str", "email", "enum", "date", "datetime", "int", "ref")
               and not s.unique and not s.template]
    if not options:
        return None
    spec = rng.choice(options)
    decoy = copy_row(row)
    decoy["id"] = new_id
    decoy[spec.name] = shifted(env, entity, spec, row[spec.name], rng, tables)
    if decoy[spec.name] == row[spec.name] or decoy[spec.name] is None:
        return None
    if also and row.get(also) is not None:
        decoy[also] = shifted(env, entity, entity.field(also), row[also], rng, tables)
        if decoy[also] in (None, row[also]):
            return None
    if not fresh_unique(env, entity, decoy, rng, tables):
        return None
    return decoy, spec.name


def plant(env: EnvSpec, tables: Tables, targets: list[tuple[str, str]], rng: random.Random,
          count: int, ask: dict[str, str] | None = None) -> tuple[dict[str, list[dict[str, Any]]], dict[str, str]]:
    """Decoy rows for up to `count` of the target rows (entity, id): (table -> rows to append, decoy id -> original id)."""
    planted: dict[str, list[dict[str, Any]]] = {}
    origins: dict[str, str] = {}
    work = copy_tables(tables)
    chosen = list(dict.fromkeys(targets))
    rng.shuffle(chosen)
    for entity_name, row_id in chosen[:count]:
        entity = env.entity(entity_name)
        rows = work.get(entity.table, [])
        row = next((r for r in rows if r["id"] == row_id), None)
        if row is None:
            continue
        [new_id] = next_ids(entity, rows, 1)
        made = decoy_for(env, entity, row, rng, work, new_id, (ask or {}).get(row_id))
        if made is None:
            continue
        rows.append(made[0])
        planted.setdefault(entity.table, []).append(made[0])
        origins[new_id] = row_id
    return planted, origins


def decoy_file(env: EnvSpec, tables: Tables, planted: dict[str, list[dict[str, Any]]], origins: dict[str, str],
               rng: random.Random) -> dict[str, str]:
    """A stale archive copy of an export file that shows a target row with its decoy's values."""
    if "read_file" not in env.scaffold:
        return {}
    for file in env.bp.files:
        entity = env.entity(file.export) if file.export else None
        if entity is None or not planted.get(entity.table):
            continue
        stale = copy_tables(tables)
        for decoy in planted[entity.table]:
            original = origins.get(decoy["id"])
            stale[entity.table] = [{**decoy, "id": original} if row["id"] == original else row
                                   for row in stale[entity.table]]
        folder, _, name = file.path.rpartition("/")
        stem, _, ext = name.rpartition(".")
        path = f"{folder + '/' if folder else ''}archive/{stem}_{rng.choice(('2025', 'old', 'backup', 'q3'))}.{ext}"
        return {path: export(env.bp, file.export, file.format, stale)}
    return {}
