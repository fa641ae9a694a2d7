"""Every task is validated before it ships, on fresh tables with the harness's own grading code.

  credited_at_start  no goal check may hold in the initial state
  gold               the gold solution scores 1.0
  noop               doing nothing scores 0
  ablation_remove    the gold without any one of its write calls scores below 1.0
  ablation_alter     the gold with one argument of a write call altered scores below 1.0
  random_agent       a few random calls with plausible arguments do not pass (the rate is reported)
  ambiguous_reference the instruction says "the new X" while the task creates several X (lint)
  answer_in_question a question states its own expected answer ("... for the report (total 1475.31)?")
A task that fails any of these is dropped, counted under that reason.
"""

from __future__ import annotations

import random
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from envcraft.core.answers import names
from envcraft.core.grading import credited_at_start, grade
from envcraft.core.tasks import Task, ToolCall
from envcraft.generator.seeds.invariants import check_invariants
from envcraft.generator.tasks.decoys import shifted
from envcraft.generator.tasks.describe import words
from envcraft.generator.tasks.env import EnvCache
from envcraft.generator.tasks.quality import glitches
from envcraft.generator.tasks.replay import World, parse_flags, shell_command

WRITING = {"write_file", "edit_file", "run_shell", "finish"}


@dataclass
class Verdict:
    ok: bool
    reason: str = ""
    random_reward: float = 0.0
    random_passed: bool = False
    stats: dict[str, Any] = field(default_factory=dict)


def score(cache: EnvCache, task: Task, calls: list[ToolCall]) -> float:
    world = World(cache, task)
    world.run(calls)
    return grade(task, world.start, world.final()).reward


def is_write(cache: EnvCache, task: Task, call: ToolCall) -> bool:
    """Calls that change what the checks look at (finish only when an answer is checked)."""
    env = cache[call.env or task.envs[0]]
    if call.tool in env.ops:
        return env.ops[call.tool].writes
    if call.tool == "finish":
        return any(c.kind == "answer" for c in task.checks)
    return call.tool in WRITING


def altered(cache: EnvCache, task: Task, call: ToolCall, rng: random.Random, world: World) -> ToolCall | None:
    """The call with one argument changed to another plausible value."""
    env = cache[call.env or task.envs[0]]
    if call.tool == "finish":
        return call.model_copy(update={"arguments": {"answer": "I could not find it."}})
    if call.tool == "write_file":
        return call.model_copy(update={"arguments": {**call.arguments, "content": "(empty)"}})
    tool, args = call.tool, dict(call.arguments)
    if tool == "run_shell":
        words = args["command"].split()
        tool = words[1].replace("-", "_") if len(words) > 1 else ""
        if tool not in env.ops:
            return None
        args = parse_flags(env, tool, shlex.split(args["command"])[2:])
    op = env.ops.get(tool)
    if op is None:
        return None
    entity = env.entity(op.entity)
    keys = sorted(args)
    rng.shuffle(keys)
    tables = world.tables[call.env or task.envs[0]]
    for key in keys:
        value = args[key]
        if key == f"{entity.name}_id":
            others = [r["id"] for r in tables.get(entity.table, []) if r["id"] != value]
            new: Any = rng.choice(others) if others else None
        else:
            spec = next((p.spec for p in env.params[tool] if p.name == key and p.spec is not None), None)
            if spec is None:
                continue
            new = shifted(env, entity, spec, value, rng, tables) if spec.type != "bool" else not value
            if spec.type == "float" and isinstance(new, int):
                new = float(new)
        if new is None or new == value:
            continue
        args[key] = new
        if call.tool == "run_shell":
            command = shell_command(env, tool, args)
            return call.model_copy(update={"arguments": {"command": command}}) if command else None
        return call.model_copy(update={"arguments": args})
    return None


def random_calls(cache: EnvCache, task: Task, rng: random.Random) -> list[ToolCall]:
    """A random-tool agent: 2-6 domain calls with plausible arguments drawn from the state, then finish."""
    world = World(cache, task)
    calls = []
    for _ in range(rng.randint(2, 6)):
        env_name = rng.choice(task.envs)
        env = cache[env_name]
        tables = world.tables[env_name]
        op = rng.choice([o for o in env.bp.operations if o.writes] * 2 + list(env.bp.operations))
        entity = env.entity(op.entity)
        args: dict[str, Any] = {}
        for param in env.params[op.name]:
            if param.spec is None and param.name == f"{entity.name}_id":
                rows = tables.get(entity.table, [])
                if rows:
                    args[param.name] = rng.choice(rows)["id"]
                continue
            if param.spec is None or not (param.required or rng.random() < 0.3):
                continue
            spec = param.spec
            if spec.type == "ref":
                rows = tables.get(env.entity(spec.ref).table, [])
                value = rng.choice(rows)["id"] if rows else None
            else:
                pool = [r.get(spec.name) for r in tables.get(entity.table, []) if r.get(spec.name) is not None]
                value = rng.choice(pool) if pool else None
                if value is not None and rng.random() < 0.5:
                    value = shifted(env, entity, spec, value, rng, tables) if spec.type != "bool" else not value
            if value is not None:
                args[param.name] = float(value) if spec.type == "float" and isinstance(value, int) else value
        call = ToolCall(tool=op.name, env=env_name, arguments=args)
        world.apply(call)
        calls.append(call)
    first = cache[task.envs[0]]
    rows = [r for rows in world.tables[task.envs[0]].values() for r in rows]
    row = rng.choice(rows) if rows else {}
    answer = str(rng.choice([v for v in row.values() if v is not None] or [""]))
    if "finish" in first.scaffold:
        calls.append(ToolCall(tool="finish", env=task.envs[0], arguments={"answer": answer}))
    return calls


def breaks_invariants(cache: EnvCache, task: Task, start: dict, world: World) -> bool:
    """The gold leaves a contradiction the world did not have (a shift on another day than its sitting,
    a total that no longer adds up): generator/seeds/invariants.py."""
    for name in task.envs:
        bp = cache[name].bp
        if set(check_invariants(bp, world.tables[name])) - set(check_invariants(bp, start[name].tables)):
            return True
    return False


def ambiguous(cache: EnvCache, task: Task) -> str | None:
    """A reference to "the new X" (or "the X you just created") when the task creates more than one X."""
    text = " ".join(task.turns).lower()
    for check in task.checks:
        if check.kind != "collateral":
            continue
        env = cache[check.env or task.envs[0]]
        for table, count in check.grow.items():
            entity = env.entity_of_table(table)
            if entity is None or count < 2:
                continue
            what = re.escape(words(entity.name))
            if re.search(rf"\b(the|that) new {what}\b|\b{what} you just created\b", text):
                return f"{count} new {entity.name} rows but the instruction says 'the new {words(entity.name)}'"
    return None


def answer_given(task: Task) -> str | None:
    """An expected answer the task's own text already states (read as the answer is: typed, whole values),
    so the question pays for copying it back."""
    text = "\n".join(task.turns)
    for check in task.checks:
        if check.kind == "answer":
            for expected in check.contains:
                if names(text, expected)[0]:
                    return expected
    return None


def validate(cache: EnvCache, task: Task, rng: random.Random) -> Verdict:
    if ambiguous(cache, task):
        return Verdict(False, "ambiguous_reference")
    if answer_given(task) is not None:
        return Verdict(False, "answer_in_question")
    world = World(cache, task)
    fresh = World(cache, task)
    start = world.start
    if credited_at_start(task, start):
        return Verdict(False, "credited_at_start")
    if not any(c.role == "goal" for c in task.checks):
        return Verdict(False, "no_goal")
    world.run(task.gold)
    if grade(task, start, world.final()).reward < 1.0:
        return Verdict(False, "gold_fails")
    if breaks_invariants(cache, task, start, world):
        return Verdict(False, "gold_breaks_invariant")
    if grade(task, start, start).reward > 0.0:
        return Verdict(False, "noop_scores")
    noise = random_calls(cache, task, rng)
    random_reward = score(cache, task, noise)
    verdict = Verdict(True, random_reward=random_reward, random_passed=random_reward >= 1.0)
    writes = [i for i, c in enumerate(task.gold) if is_write(cache, task, c)]
    for index in writes:
        if score(cache, task, task.gold[:index] + task.gold[index + 1:]) >= 1.0:
            return Verdict(False, "ablation_remove", random_reward, verdict.random_passed)
    tried = 0
    for index in rng.sample(writes, len(writes)):
        changed = altered(cache, task, task.gold[index], rng, fresh)
        if changed is None:
            continue
        tried += 1
        if score(cache, task, task.gold[:index] + [changed] + task.gold[index + 1:]) >= 1.0:
            return Verdict(False, "ablation_alter", random_reward, verdict.random_passed)
        if tried >= 2:
            break
    if tried == 0:
        return Verdict(False, "ablation_alter_none", random_reward, verdict.random_passed)
    if verdict.random_passed:
        return Verdict(False, "random_agent_passes", random_reward, True)
    if any(glitches(turn) for turn in task.turns):  # last, so the RNG stream of every other task is unchanged
        return Verdict(False, "text_glitch", random_reward, False)
    return verdict
