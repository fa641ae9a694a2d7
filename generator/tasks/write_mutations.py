"""Harmful mutations of the write side: the gold's writes done, plus a write nobody asked for that looks like work.

- `invented_optional_field`: a create also fills an optional field the request never states, with a value the
  world makes plausible (another person's e-mail, an existing assignee, a figure like its column's others);
- `side_effect_unrelated`: documented follow-up rows (a ticket reply, a resident notice) posted on records the
  task never mentions.
Neither may keep full reward (verify.py checks a created row whole and scopes follow-ups to touched records).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from envcraft.core.tasks import Task, ToolCall
from envcraft.generator.blueprint import Entity, FieldSpec
from envcraft.generator.tasks.calls import as_call, before_finish, domain_call
from envcraft.generator.tasks.env import EnvCache, EnvSpec, Tables
from envcraft.generator.tasks.order import ID
from envcraft.generator.tasks.replay import World
from envcraft.generator.tasks.verify import anchor

FOLLOW_UP_TEXT = "Quick update: we have picked this up and will be in touch shortly."


def plausible(env: EnvSpec, entity: Entity, spec: FieldSpec, tables: Tables, rng: random.Random) -> Any:
    """A value for a field that reads as real: an existing row for a ref, a value its column already holds."""
    if spec.type == "ref":
        rows = tables.get(env.entity(spec.ref).table, [])
        return rng.choice(rows)["id"] if rows else None
    if spec.type == "enum":
        return rng.choice(spec.values)
    if spec.type == "bool":
        return True
    pool = [r[spec.name] for r in tables.get(entity.table, []) if r.get(spec.name) not in (None, "", [])]
    if pool:
        value = rng.choice(pool)
        return float(value) if spec.type == "float" else value
    if spec.type in ("int", "float") and spec.min is not None and spec.max is not None:
        value = rng.uniform(spec.min, spec.max)
        return round(value, 2) if spec.type == "float" else int(value)
    return FOLLOW_UP_TEXT if spec.type in ("str", "text") else None


def _outcomes(cache: EnvCache, task: Task, calls: list[ToolCall]) -> tuple[list[bool], dict[str, Tables]]:
    world = World(cache, task)
    return [ok for ok, _ in world.run(calls)], world.tables


def invented_optional_field(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    gold_ok, gold_tables = _outcomes(cache, task, task.gold)
    creates = [i for i, c in enumerate(task.gold)
               if (d := domain_call(cache, task, c)) and d[0].ops[d[1]].kind == "create"]
    rng.shuffle(creates)
    for index in creates:
        env, op_name, args = domain_call(cache, task, task.gold[index])
        entity = env.entity(env.ops[op_name].entity)
        unasked = [p for p in env.params[op_name] if p.spec is not None and not p.required and p.name not in args]
        for param in rng.sample(unasked, len(unasked)):
            value = plausible(env, entity, param.spec, gold_tables[env.name], rng)
            changed = as_call(task.gold[index], env, op_name, {**args, param.name: value}) if value is not None else None
            if changed is None:
                continue
            calls = task.gold[:index] + [changed] + task.gold[index + 1:]
            ok, tables = _outcomes(cache, task, calls)
            if ok == gold_ok and tables != gold_tables:  # taken, and it shows in the world
                return calls
    return None


def _follow_up_args(env: EnvSpec, op_name: str, field: str, record: str, acted: dict[str, Any], tables: Tables,
                    rng: random.Random) -> dict[str, Any] | None:
    """A follow-up on `record` as a careless agent would post it: the acted row's own refs where they fit (the
    request's resident), plausible values for the rest of what the call requires."""
    entity = env.entity(env.ops[op_name].entity)
    args: dict[str, Any] = {}
    for param in env.params[op_name]:
        if param.spec is None or not (param.required or param.spec.name == field):
            continue
        spec = param.spec
        if spec.name == field:
            value: Any = record
        elif spec.type == "ref" and acted.get(spec.name):
            value = acted[spec.name]
        else:
            value = plausible(env, entity, spec, tables, rng)
        if value is None:
            return None
        args[param.name] = value
    return args


def side_effect_unrelated(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    mentioned = {i for c in task.gold for i in ID.findall(repr(c.arguments))}
    gold_ok, gold_tables = _outcomes(cache, task, task.gold)
    for name in task.envs:
        env = cache[name]
        start = {r["id"]: r for rows in World(cache, task).tables[name].values() for r in rows}
        changed = {r["id"] for rows in gold_tables[name].values() for r in rows if start.get(r["id"]) != r}
        for policy in env.bp.policies:
            if policy.category != "side_effect" or not policy.creates:
                continue
            follow_up = env.entity(policy.creates)
            post = next((op.name for op in env.bp.operations if op.kind == "create" and op.entity == follow_up.name), None)
            acted = env.entity(env.ops[policy.operations[0]].entity)
            rows = [r for r in gold_tables[name].get(acted.table, []) if r["id"] not in mentioned | changed]
            extra: list[ToolCall] = []
            for row in rng.sample(rows, len(rows)):
                found = anchor(env, follow_up, acted, row)
                if post is None or found is None or found[1] in mentioned | changed:
                    continue
                args = _follow_up_args(env, post, found[0], found[1], row, gold_tables[name], rng)
                if args is not None:
                    extra.append(ToolCall(tool=post, env=name, arguments=args))
                    mentioned.add(found[1])
                if len(extra) == 2:
                    break
            if extra:
                end = len(task.gold) - 1 if task.gold[-1].tool == "finish" else len(task.gold)  # as before_finish
                ok, _ = _outcomes(cache, task, before_finish(task.gold, extra))
                if ok == gold_ok[:end] + [True] * len(extra) + gold_ok[end:]:  # every follow-up taken
                    return before_finish(task.gold, extra)
    return None


WRITE_MUTATIONS: dict[str, Callable[[EnvCache, Task, random.Random], list[ToolCall] | None]] = {
    "invented_optional_field": invented_optional_field,
    "side_effect_unrelated": side_effect_unrelated,
}

__all__ = ["WRITE_MUTATIONS", "invented_optional_field", "side_effect_unrelated"]
