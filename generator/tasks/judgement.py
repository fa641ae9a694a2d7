"""Judgement: part of the request breaks a rule of the environment.

The forbidden part is a state change the environment's own rules refuse for the row it names (a
state guard: "only requested showings can be confirmed"), checked by calling the compiled app
function on the state the allowed parts leave. Full credit means doing the allowed parts, leaving
the forbidden row exactly as it was (a guard pins it, so a workaround through other states costs
half the reward), and naming the blocking fact (the row's current state) in finish.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from envcraft.generator.appcode import typed
from envcraft.generator.blueprint import Entity, Operation, Precondition
from envcraft.generator.humanize import humanize
from envcraft.generator.tasks.env import EnvSpec, Tables, copy_tables, label_field
from envcraft.generator.tasks.execute import Plan, call, searchable

HINTS = ("", "", " If any of that goes against our rules, skip that part and tell me what's in the way.",
         " If something can't be done, leave it and let me know why.")


@dataclass
class Forbidden:
    op: Operation
    entity: Entity
    row: dict[str, Any]
    field: str  # the field whose value blocks the change
    fact: str  # that value, as the answer must name it


def state_guards(env: EnvSpec, op: Operation) -> list[Precondition]:
    """Preconditions on the row's own state: the operation's, and the blueprint policies' that name it."""
    found = [p for p in op.preconditions if p.kind in ("status_in", "field_equals") and p.field]
    for policy in getattr(env.bp, "policies", None) or []:
        check = getattr(policy, "check", None)
        if check is not None and op.name in policy.operations and check.kind in ("status_in", "field_equals") \
                and check.field and check not in found:
            found.append(check)
    return found


def blocking(env: EnvSpec, op: Operation, row: dict[str, Any]) -> Precondition | None:
    entity = env.entity(op.entity)
    for pre in state_guards(env, op):
        allowed = [typed(entity.field(pre.field), v) for v in pre.values]
        if row.get(pre.field) not in allowed:
            return pre
    return None


def pick_forbidden(env: EnvSpec, plan: Plan, rng: random.Random) -> Forbidden | None:
    """A transition the rules refuse on a row the allowed parts leave alone."""
    touched = {s.target for s in plan.steps if s.target} | set(plan.created)
    findable = searchable(env)
    options: list[Forbidden] = []
    for op in env.bp.operations:
        if op.kind != "transition" or op.required or op.entity not in findable:
            continue
        entity = env.entity(op.entity)
        if label_field(entity) is None:
            continue
        initial = {r["id"]: r for r in plan.initial.get(entity.table, [])}
        for row in plan.final.get(entity.table, []):
            if row["id"] in touched or initial.get(row["id"]) != row or row.get(entity.status_field) == op.to_status:
                continue
            pre = blocking(env, op, row)
            value = row.get(pre.field) if pre else None
            if pre is None or not isinstance(value, str):
                continue
            ok, _ = call(env, copy_tables(plan.final), op.name, {f"{entity.name}_id": row["id"]})
            if not ok:
                options.append(Forbidden(op, entity, row, pre.field, humanize(value)))
    return rng.choice(options) if options else None


def answer_for(forbidden: Forbidden, label: str | None) -> str:
    what = label or f"the {forbidden.entity.name.replace('_', ' ')}"
    return f"Not possible for {what}: it is {forbidden.fact}."  # few words: none may be another value of the column


def refused_on(env: EnvSpec, tables: Tables, forbidden: Forbidden) -> bool:
    ok, _ = call(env, copy_tables(tables), forbidden.op.name, {f"{forbidden.entity.name}_id": forbidden.row["id"]})
    return not ok
