"""Verifier checks from the diff between a task's initial and gold final state, per environment.

Goals: a created row (`record` with the values the instruction states, count 1), a changed row
(`record` with its id and new values), a deleted row (`no_record` on its id), a written file
(`file_contains`), an answer (`answer`). Guards: `collateral` (row level: only the gold's changes
and exactly its new rows, anywhere), and `record` pins on decoys and on bystander rows in the same
state as a changed row (a bulk change would hit them), which halve the reward when touched.
"""

from __future__ import annotations

import random
from typing import Any

from envcraft.core.tasks import Check
from envcraft.generator.tasks.env import EnvSpec, Tables
from envcraft.generator.tasks.execute import Plan

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
                fields = specified(env, plan, row_id) if row_id in plan.created else set(row) - {"id"}
                match = {f: row[f] for f in sorted(fields) if f in row and row[f] is not None}
                created.setdefault(repr(sorted(match.items())), match)
                changed_tables.add(table)
            elif row != before[row_id]:
                match = {"id": row_id, **{f: row[f] for f in sorted(row) if row[f] != before[row_id].get(f)}}
                checks.append(Check(kind="record", env=where, table=table, match=match,
                                    note=f"updated {row_id}"))
                changed_tables.add(table)
                touched.add(row_id)
        for match in created.values():  # as many matching rows as the gold leaves: no more, no fewer
            count = sum(1 for r in after.values() if all(r.get(k) == v for k, v in match.items()))
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
    `creates` (generator/policy.py)."""
    return {env.entity(policy.creates).table for policy in getattr(env.bp, "policies", None) or []
            if getattr(policy, "category", None) == "side_effect" and getattr(policy, "creates", None)}


def collateral(env: EnvSpec, initial: Tables, final: Tables, where: str | None, files: set[str] = frozenset()) -> Check:
    """The row-level guard: only the gold's changes (fields of existing rows, counts of new rows) may happen;
    tables of operations the blueprint marks as documented side effects may gain rows freely."""
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
    side = side_tables(env)
    return Check(kind="collateral", role="guard", env=where, allow=sorted(side | set(files)), rows=rows, grow=grow,
                 note="no collateral changes")
