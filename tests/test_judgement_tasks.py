"""Judgement tasks from related-record rules: the request asks, among allowed things, for a new record a rule
about another row refuses (a duty on a standard bus for a run that needs an articulated one). Graded by the
harness's code on a fresh generation: the agent that does only the allowed parts and names the blocking fact
scores 1; one that gets the refused record in anyway (changing the blocking row first, or past the tool)
scores below 1, and so does one that says nothing of why it held back."""

from __future__ import annotations

import random

import pytest
from envcraft.core.tasks import ToolCall, load_tasks
from envcraft.generator.tasks.env import SERVERS, EnvCache, copy_tables, generated_envs
from envcraft.generator.tasks.execute import Step, bind, call, write_args
from envcraft.generator.tasks.generate import generate
from envcraft.generator.tasks.replay import World
from envcraft.generator.tasks.validate import grade, score

ENVS = ["bus_driver_rostering", "volunteer_shift_matching"]


@pytest.fixture(scope="module")
def refused(tmp_path_factory):
    out = tmp_path_factory.mktemp("tasks")
    generate(seed=3, per_env=30, envs=ENVS, out=out, workers=1, log=lambda *a: None)
    cache = EnvCache(generated_envs(SERVERS))
    tasks = [t for path in sorted(out.glob("*.jsonl")) for t in load_tasks(path)]
    return cache, [t for t in tasks if any(tag.startswith("refused:") for tag in t.tags)]


def _parts(cache, task):
    env = cache[task.envs[0]]
    op_name = next(t.split(":", 1)[1] for t in task.tags if t.startswith("refused:"))
    guard = next(c for c in task.checks if c.kind == "no_record")
    pin = next(c for c in task.checks if c.role == "guard" and c.note.startswith("blocking row"))
    return env, op_name, guard, pin


def _create_args(env, op_name, guard, world):
    """The refused create's arguments: its references as the request names them, the rest bound validly."""
    plan = bind(env, [op_name], copy_tables(world.tables[env.name]), random.Random(0))
    assert plan is not None
    return write_args(env, Step(env.name, op_name, "create", env.ops[op_name].entity,
                                fields={**plan.steps[0].fields, **guard.match}))


@pytest.mark.slow
def test_a_related_record_judgement_task_pays_only_the_careful_agent(refused):
    cache, tasks = refused
    assert len(tasks) >= 2, "the family makes tasks in environments with related-record rules"
    worked_around = 0
    for task in tasks:
        env, op_name, guard, pin = _parts(cache, task)
        gold, finish = task.gold[:-1], task.gold[-1]
        assert score(cache, task, task.gold) == 1.0  # the allowed parts, nothing refused, the fact named
        assert score(cache, task, gold + [finish.model_copy(update={"arguments": {"answer": "Done."}})]) < 1.0
        answer = next(c for c in task.checks if c.kind == "answer")
        assert answer.contains[0].lower() not in " ".join(task.turns).lower()  # the agent must look it up
        # the tool itself refuses the record, citing the rule
        world = World(cache, task)
        world.run(gold)
        args = _create_args(env, op_name, guard, world)
        ok, message = call(env, copy_tables(world.tables[env.name]), op_name, args)
        rule = next(t.split(":", 1)[1] for t in task.tags if t.startswith("rule:"))
        assert not ok and f"(rule {rule}:" in message, message
        # an agent that gets the record in anyway (past the tool) is paid less than 1, even naming the fact
        forced = World(cache, task)
        forced.run(gold)
        table = env.entity(env.ops[op_name].entity).table
        forced.tables[env.name][table].append({"id": "zz-9999", **args})
        forced.run([finish])
        assert grade(task, forced.start, forced.final()).reward < 1.0
        # ... and so is one that changes the blocking row so the tool accepts it
        blocking = env.entity_of_table(pin.table)
        row_id = pin.match["id"]
        for op in env.bp.operations:
            if op.kind != "update" or op.entity != blocking.name:
                continue
            for name in op.params:
                spec = blocking.field(name)
                for value in (spec.values if spec.type == "enum" else [True, False] if spec.type == "bool" else []):
                    after = World(cache, task)
                    steps = gold + [ToolCall(tool=op.name, arguments={f"{blocking.name}_id": row_id, name: value}),
                                    ToolCall(tool=op_name, arguments=args)]
                    results = after.run(steps)
                    if all(ok for ok, _ in results):
                        worked_around += 1
                        assert score(cache, task, steps + [finish]) < 1.0
                        break
    print("related-record judgement tasks:", len(tasks), "worked around through an update:", worked_around)
