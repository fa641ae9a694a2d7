"""Verifier checks from the diff between a task's initial and gold final state, per environment.

Goals: a created row (`record`, count 1: the values the instruction states, and every other field an agent's
call could set at the value the operation leaves when nobody gives one), a changed row (`record` with its id and
new values), a deleted row (`no_record` on its id), a written file (`file_contains`), an answer (`answer`).
Guards: `collateral` (row level: only the gold's changes and exactly its new rows, anywhere; a documented
follow-up only on the records the gold's followed-up writes touch, one each), and `record` pins on decoys and on
bystander rows in the same state as a changed row (a bulk change would hit them), which halve the reward when
touched.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from envcraft.core.tasks import Check, SideRows
from envcraft.generator.model.blueprint import Entity
from envcraft.generator.tasks.env import EnvSpec, Tables
from envcraft.generator.tasks.execute import Failed, Plan, Step

EMPTY = {"$in": [None, "", []]}  # a field nobody filled: no value, however the call left it out

PINS_PER_TABLE = 2


def specified(env: EnvSpec, plan: Plan, row_id: str) -> set[str]:
    """Fields of a created row the instruction states: its create, update and transition arguments, its status."""
    out: set[str] = set()
    for step in plan.steps:
        if step.target == row_id and step.writes and step.kind != "delete":  # transition arguments too
            out |= set(step.fields)
    entity = env.entity(plan.steps[plan.created[row_id]].entity)
    if entity.status_field:
        out.add(entity.status_field)
    for op in env.bp.operations:  # effects of other steps that set fields on this row
        for eff in op.effects:
            if env.entity(op.entity).field(eff.ref_field).ref == entity.name:
                out.add(eff.field)
    return out


def settable(env: EnvSpec, entity: Entity) -> set[str]:
    """Fields of an entity's rows an agent's call can set: the parameters of its create, update and transition
    operations."""
    writes = ("create", "update", "transition")
    return {name for op in env.bp.operations if op.entity == entity.name and op.kind in writes for name in op.params}


def whole(env: EnvSpec, entity: Entity | None, row: dict[str, Any], stated: set[str]) -> dict[str, Any]:
    """The match of a created row: the stated fields' values, and every other settable field as the gold left it
    (empty, or the operation's own default). A value nobody asked for (another person's e-mail, an invented
    assignee) fails it."""
    match = {f: row[f] for f in sorted(stated) if f in row and row[f] is not None}
    for name in sorted(settable(env, entity) - stated - {"id"} if entity else ()):
        match[name] = EMPTY if row.get(name) in (None, "", []) else row[name]
    return match


def fits(row: dict[str, Any], match: dict[str, Any]) -> bool:
    return all(row.get(k) in v["$in"] if isinstance(v, dict) else row.get(k) == v for k, v in match.items())


def overwritten(plan: Plan) -> bool:
    """A value the instruction states that a later step of the chain overwrites: the final state cannot show it,
    so no check could verify it (a wrong first value would score full). Such tasks are not built."""
    seen: set[tuple[str | None, str]] = set()
    for step in plan.steps:
        if step.writes:
            for name in step.fields:
                if (step.target, name) in seen:
                    return True
                seen.add((step.target, name))
    return False


def mutable(env: EnvSpec, table: str) -> set[str]:
    """Fields of a table's rows that some operation can change: what a pin has to watch."""
    entity = env.entity_of_table(table)
    if entity is None:
        return set()
    out = {entity.status_field} if entity.status_field else set()
    for op in env.bp.operations:
        if op.entity == entity.name and op.kind == "update":
            out |= set(op.params)
        for eff in op.effects:
            if env.entity(op.entity).field(eff.ref_field).ref == entity.name:
                out.add(eff.field)
    return out


def pin(env: EnvSpec, table: str, row: dict[str, Any], note: str, where: str | None) -> Check:
    """A guard that the row still exists with the values operations could have changed."""
    watch = mutable(env, table)
    match = {"id": row["id"], **{f: row[f] for f in sorted(watch) if f in row}}
    return Check(kind="record", role="guard", env=where, table=table, match=match, note=note)


def diff_checks(env: EnvSpec, plan: Plan, initial: Tables, final: Tables, multi: bool,
                pinned: list[dict[str, Any]], rng: random.Random) -> tuple[list[Check], set[str]]:
    """Checks for one environment, and the tables the chain changed."""
    checks: list[Check] = []
    changed_tables: set[str] = set()
    touched: set[str] = set()
    where = env.name if multi else None
    for table in sorted(set(initial) | set(final)):
        before = {r["id"]: r for r in initial.get(table, [])}
        after = {r["id"]: r for r in final.get(table, [])}
        if before == after:
            continue
        entity = env.entity_of_table(table)
        created: dict[str, dict[str, Any]] = {}
        for row_id, row in after.items():
            if row_id not in before:
                if row_id in plan.created:
                    match = whole(env, entity, row, specified(env, plan, row_id))
                else:
                    match = {f: row[f] for f in sorted(set(row) - {"id"}) if row[f] is not None}
                created.setdefault(repr(sorted(match.items())), match)
                changed_tables.add(table)
            elif row != before[row_id]:
                match = {"id": row_id, **{f: row[f] for f in sorted(row) if row[f] != before[row_id].get(f)}}
                checks.append(Check(kind="record", env=where, table=table, match=match,
                                    note=f"updated {row_id}"))
                changed_tables.add(table)
                touched.add(row_id)
        for match in created.values():  # as many matching rows as the gold leaves: no more, no fewer
            count = sum(1 for r in after.values() if fits(r, match))
            checks.append(Check(kind="record", env=where, table=table, match=match, count=count, weight=2.0,
                                note=f"created {entity.name if entity else table}"))
        for row_id in before:
            if row_id not in after:
                checks.append(Check(kind="no_record", env=where, table=table, match={"id": row_id},
                                    note=f"deleted {row_id}"))
                changed_tables.add(table)
                touched.add(row_id)
    for row in pinned:
        table = next((t for t, rows in initial.items() if any(r is row for r in rows)), None)
        if table:
            checks.append(pin(env, table, row, f"decoy {row['id']} untouched", where))
    checks += bystanders(env, initial, final, touched, {r["id"] for r in pinned}, where, rng)
    return checks, changed_tables


def bystanders(env: EnvSpec, initial: Tables, final: Tables, touched: set[str], pinned: set[str],
               where: str | None, rng: random.Random) -> list[Check]:
    """Pins on untouched rows that share a changed row's status: a bulk change would move them too."""
    out = []
    for table, rows in sorted(initial.items()):
        entity = env.entity_of_table(table)
        if entity is None or not entity.status_field:
            continue
        states = {r.get(entity.status_field) for r in rows if r["id"] in touched}
        if not states:
            continue
        final_ids = {r["id"]: r for r in final.get(table, [])}
        pool = [r for r in rows if r.get(entity.status_field) in states and r["id"] not in touched
                and r["id"] not in pinned and final_ids.get(r["id"]) == r]
        for row in rng.sample(pool, min(PINS_PER_TABLE, len(pool))):
            out.append(pin(env, table, row, f"bystander {row['id']} untouched", where))
    return out


def side_tables(env: EnvSpec) -> set[str]:
    """Tables a documented workflow adds rows to beside any task's own changes: those a `side_effect` policy
    `creates` (generator/model/policy.py)."""
    return {env.entity(policy.creates).table for policy in getattr(env.bp, "policies", None) or []
            if getattr(policy, "category", None) == "side_effect" and getattr(policy, "creates", None)}


def anchor(env: EnvSpec, follow_up: Entity, acted: Entity, row: dict[str, Any]) -> tuple[str, str] | None:
    """(field, record id): the ref of a follow-up row that names the record an operation acted on (a reply's
    ticket), or the record that row points at (a notice's repair request, for a visit scheduled on it)."""
    refs = [f for f in follow_up.fields if f.type == "ref"]
    for spec in refs:
        if spec.ref == acted.name:
            return spec.name, row["id"]
    for spec in refs:
        via = next((f.name for f in acted.fields if f.type == "ref" and f.ref == spec.ref), None)
        if via and row.get(via):
            return spec.name, str(row[via])
    return None


def side_rows(env: EnvSpec, steps: Sequence[Step], initial: Tables, final: Tables) -> dict[str, SideRows]:
    """Per follow-up table, how many new rows each record may get: the gold's own rows on it, plus one for each
    write of the gold that a `side_effect` policy follows up (a reply per ticket state change)."""
    field: dict[str, str] = {}
    most: dict[str, dict[str, int]] = {}
    for policy in env.bp.policies:
        if policy.category != "side_effect" or not policy.creates:
            continue
        table = env.entity(policy.creates).table
        for step in steps:
            if step.env != env.name or step.op not in policy.operations or not step.target:
                continue
            acted = env.entity(step.entity)
            row = next((r for r in final.get(acted.table, []) if r["id"] == step.target), None)
            found = anchor(env, env.entity(policy.creates), acted, row) if row else None
            if found and field.setdefault(table, found[0]) == found[0]:
                on = most.setdefault(table, {})
                on[found[1]] = on.get(found[1], 0) + 1
    addressed: dict[str, dict[str, dict[str, str]]] = {}
    for table, on in most.items():  # the gold's own rows there (a reply the request asks for)
        before = {r["id"] for r in initial.get(table, [])}
        follow_up = env.entity_of_table(table)
        owner = env.entity(follow_up.field(field[table]).ref)
        records = {r["id"]: r for r in final.get(owner.table, [])}
        to = addressed.setdefault(table, {record: _whom(follow_up, field[table], owner, records.get(record))
                                          for record in on})
        for row in final.get(table, []):
            if row["id"] not in before:
                record = str(row.get(field[table]) or "")
                on[record] = on.get(record, 0) + 1
                for name, whom in to.get(record, {}).items():  # a notice on Leah's request sent to Yusuf: no
                    if str(row.get(name) or "") != whom:         # person asks that, and no check could pin it
                        raise Failed("misaddressed follow-up")
    return {table: SideRows(field=field[table], most=on, addressed={r: w for r, w in addressed[table].items() if w})
            for table, on in sorted(most.items())}


def _whom(follow_up: Entity, anchor_field: str, owner: Entity, record: dict[str, Any] | None) -> dict[str, str]:
    """The refs of a follow-up row its record decides: a notice on a repair request is for the request's resident."""
    out: dict[str, str] = {}
    for spec in follow_up.fields:
        if spec.type != "ref" or spec.name == anchor_field or record is None:
            continue
        via = next((f.name for f in owner.fields if f.type == "ref" and f.ref == spec.ref), None)
        if via and record.get(via):
            out[spec.name] = str(record[via])
    return out


def collateral(env: EnvSpec, initial: Tables, final: Tables, where: str | None, files: set[str] = frozenset(),
               steps: Sequence[Step] = ()) -> Check:
    """The row-level guard: only the gold's changes (fields of existing rows, counts of new rows) may happen;
    tables of documented follow-ups may gain a row per followed-up write of `steps` (the gold's), on its record."""
    rows: dict[str, dict[str, list[str]]] = {}
    grow: dict[str, int] = {}
    for table in sorted(set(initial) | set(final)):
        before = {r["id"]: r for r in initial.get(table, [])}
        after = {r["id"]: r for r in final.get(table, [])}
        for row_id, row in before.items():
            if row_id not in after:
                rows.setdefault(table, {})[row_id] = ["*"]
            elif after[row_id] != row:
                keys = set(row) | set(after[row_id])
                rows.setdefault(table, {})[row_id] = sorted(k for k in keys if row.get(k) != after[row_id].get(k))
        new = sum(1 for row_id in after if row_id not in before)
        if new:
            grow[table] = new
    return Check(kind="collateral", role="guard", env=where, allow=sorted(files), rows=rows, grow=grow,
                 side=side_rows(env, steps, initial, final), note="no collateral changes")
