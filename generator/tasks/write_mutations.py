"""Mutations of the write side. Harmful ones do the gold's writes plus a write nobody asked for that looks like work:

- `invented_optional_field`: a create also fills an optional field the request never states, with a value the
  world makes plausible (another person's e-mail, an existing assignee, a figure like its column's others);
- `side_effect_unrelated`: documented follow-up rows (a ticket reply, a resident notice) posted on records the
  task never mentions;
- `follow_up_misaddressed`: the documented follow-up on the right record, addressed to someone else (a notice on
  the scheduled visit's request sent to another resident).
None may keep full reward (verify.py checks a created row whole and scopes follow-ups to touched records).
The harmless one, `follow_up_documented`, is the careful professional's: one documented follow-up per followed-up
write, on its record (a reply per ticket state change). It must always keep full reward.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from envcraft.core.tasks import Task, ToolCall
from envcraft.generator.model.blueprint import Entity, FieldSpec, Policy
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
    """A create of the gold that also fills one optional parameter the gold leaves out: the call still goes through
    and the new row shows the value."""
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
            changed = as_call(task.gold[index], env, op_name, {**args, param.name: value})
            if value is None or changed is None:
                continue
            calls = task.gold[:index] + [changed] + task.gold[index + 1:]
            ok, tables = _outcomes(cache, task, calls)
            if ok == gold_ok and tables != gold_tables:  # taken, and it shows in the world
                return calls
    return None


def _follow_up(env: EnvSpec, policy: Policy, acted: Entity, row: dict[str, Any], tables: Tables,
               rng: random.Random) -> ToolCall | None:
    """The follow-up a policy documents for a write on `row`, posted on the record it names (a reply on the ticket,
    a notice on the visit's request): that record's and the row's own refs where they fit (the request's
    resident), plausible values for the rest of what the call requires."""
    follow_up = env.entity(policy.creates)
    post = next((op.name for op in env.bp.operations if op.kind == "create" and op.entity == follow_up.name), None)
    found = anchor(env, follow_up, acted, row)
    if post is None or found is None:
        return None
    field, record = found
    owner = env.entity(follow_up.field(field).ref)
    known = {**next((r for r in tables.get(owner.table, []) if r["id"] == record), {}), **row}
    args: dict[str, Any] = {}
    for param in env.params[post]:
        if param.spec is None or not (param.required or param.spec.name == field):
            continue
        spec = param.spec
        if spec.name == field:
            value: Any = record
        elif spec.type == "ref" and known.get(spec.name):
            value = known[spec.name]
        else:
            value = plausible(env, follow_up, spec, tables, rng)
        if value is None:
            return None
        args[param.name] = value
    return ToolCall(tool=post, env=env.name, arguments=args)


def _follow_ups(env: EnvSpec) -> list[Policy]:
    return [p for p in env.bp.policies if p.category == "side_effect" and p.creates]


def _taken(cache: EnvCache, task: Task, gold_ok: list[bool], extra: list[ToolCall]) -> list[ToolCall] | None:
    """The gold with `extra` before its finish, if every gold call still goes through and every extra one does."""
    end = len(task.gold) - 1 if task.gold and task.gold[-1].tool == "finish" else len(task.gold)  # as before_finish
    calls = before_finish(task.gold, extra)
    ok, _ = _outcomes(cache, task, calls)
    return calls if extra and ok == gold_ok[:end] + [True] * len(extra) + gold_ok[end:] else None


def side_effect_unrelated(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """Two follow-ups (replies, notices) on records no gold call names and the gold leaves unchanged."""
    mentioned = {i for c in task.gold for i in ID.findall(repr(c.arguments))}
    gold_ok, gold_tables = _outcomes(cache, task, task.gold)
    for name in task.envs:
        env = cache[name]
        start = {r["id"]: r for rows in World(cache, task).tables[name].values() for r in rows}
        changed = {r["id"] for rows in gold_tables[name].values() for r in rows if start.get(r["id"]) != r}
        for policy in _follow_ups(env):
            acted = env.entity(env.ops[policy.operations[0]].entity)
            rows = [r for r in gold_tables[name].get(acted.table, []) if r["id"] not in mentioned | changed]
            extra: list[ToolCall] = []
            for row in rng.sample(rows, len(rows)):
                call = _follow_up(env, policy, acted, row, gold_tables[name], rng)
                named = {v for v in call.arguments.values() if isinstance(v, str)} if call else set()
                if call is None or named & (mentioned | changed):  # only records the task never mentions
                    continue
                extra.append(call)
                mentioned |= named
                if len(extra) == 2:
                    break
            if (calls := _taken(cache, task, gold_ok, extra)) is not None:
                return calls
    return None


def follow_up_documented(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """What a careful professional adds: for each gold write a `side_effect` policy follows up (a ticket's state
    change, a visit scheduled), the one documented follow-up on the record it changed. Must keep full reward."""
    gold_ok, _ = _outcomes(cache, task, task.gold)
    return _taken(cache, task, gold_ok, _documented(cache, task, rng))


def follow_up_misaddressed(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall] | None:
    """The documented follow-up on the right record, addressed to someone else: a notice on the scheduled visit's
    repair request sent to another resident. Must not keep full reward."""
    gold_ok, _ = _outcomes(cache, task, task.gold)
    tables = World(cache, task).tables
    for call in _documented(cache, task, rng):
        env = cache[call.env or task.envs[0]]
        follow_up = env.entity(env.ops[call.tool].entity)
        anchored = anchor_field(env, follow_up)
        for param in env.params[call.tool]:
            spec = param.spec
            if spec is None or spec.type != "ref" or spec.name == anchored or param.name not in call.arguments:
                continue
            others = [r["id"] for r in tables[env.name].get(env.entity(spec.ref).table, [])
                      if r["id"] != call.arguments[param.name]]
            wrong = call.model_copy(update={"arguments": {**call.arguments, param.name: rng.choice(others)}})
            if others and (calls := _taken(cache, task, gold_ok, [wrong])) is not None:
                return calls
    return None


def anchor_field(env: EnvSpec, follow_up: Entity) -> str | None:
    """The ref of a follow-up row that names its record (a notice's repair request): the one whose entity refers to
    the follow-up's other refs (the request's resident)."""
    refs = [f for f in follow_up.fields if f.type == "ref"]
    for spec in refs:
        owner = env.entity(spec.ref)
        if any(f.type == "ref" and f.ref == other.ref for f in owner.fields for other in refs if other is not spec):
            return spec.name
    return refs[0].name if len(refs) == 1 else None


def _documented(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall]:
    """The documented follow-ups of the gold's writes, one per followed-up write, on the record it changed."""
    world = World(cache, task)
    extra: list[ToolCall] = []
    for gold_call in task.gold:
        found = domain_call(cache, task, gold_call)
        env = found[0] if found else None
        acted = env.entity(env.ops[found[1]].entity) if env else None
        before = {r["id"] for r in world.tables[env.name].get(acted.table, [])} if env else set()
        ok, _ = world.apply(gold_call)
        if not ok or env is None:
            continue
        new = [r for r in world.tables[env.name][acted.table] if r["id"] not in before]
        row = new[0] if new else next((r for r in world.tables[env.name][acted.table]
                                       if r["id"] == found[2].get(f"{acted.name}_id")), None)
        for policy in _follow_ups(env):
            if found[1] in policy.operations and row is not None:
                call = _follow_up(env, policy, acted, row, world.tables[env.name], rng)
                extra += [call] if call else []
    return extra


WRITE_MUTATIONS: dict[str, Callable[[EnvCache, Task, random.Random], list[ToolCall] | None]] = {
    "invented_optional_field": invented_optional_field,
    "side_effect_unrelated": side_effect_unrelated,
    "follow_up_misaddressed": follow_up_misaddressed,
}
WRITE_KEEP: dict[str, Callable[[EnvCache, Task, random.Random], list[ToolCall] | None]] = {
    "follow_up_documented": follow_up_documented,
}

__all__ = ["WRITE_KEEP", "WRITE_MUTATIONS", "follow_up_documented", "follow_up_misaddressed", "invented_optional_field",
           "side_effect_unrelated"]
