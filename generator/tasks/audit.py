"""Reward audit: mutate gold solutions of a seeded task sample and see what the grader pays for them.

For every sampled task and every mutation that applies to it (mutations.py), the mutated calls
run on the fast path (replay.World) and are graded with the harness's grading code; the reward
is tallied as kept full (1.0), partial, or zero. A subset is cross-checked through the real MCP
servers (registry, in-process launcher, gold-replay agent): both paths must give the same reward.

A mutation that applies to fewer than `floor` sampled tasks (a side effect only two blueprints declare) is
topped up from the rest of the store, in the same seeded order, until it has applied `floor` times or the
store runs out: the report says how many tasks each one drew beyond the sample (`topped_up`).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from envcraft.core.grading import grade
from envcraft.core.tasks import TASKS_DIR, Task, ToolCall, load_tasks, task_files
from envcraft.generator.tasks.env import EnvCache, generated_envs
from envcraft.generator.tasks.mutations import MUTATIONS, NAMES, SHOULD_DROP, SHOULD_KEEP
from envcraft.generator.tasks.replay import World
from pydantic import BaseModel


class Tally(BaseModel):
    n: int = 0
    kept_full: int = 0
    partial: int = 0
    zero: int = 0

    def add(self, reward: float) -> None:
        self.n += 1
        if reward >= 1.0:
            self.kept_full += 1
        elif reward <= 0.0:
            self.zero += 1
        else:
            self.partial += 1


class AuditReport(BaseModel):
    sample: int
    mutations: dict[str, Tally]
    gold_below_one: list[str] = []  # sampled tasks whose own gold fails on this catalog: stale, not mutated
    topped_up: dict[str, int] = {}  # mutation -> tasks drawn beyond the sample so that it applied `floor` times


def _drawn(count: int, seed: int, tasks_dir: Path, envs: set[str] | None) -> tuple[list[Task], list[Task]]:
    """The seeded sample, and the rest of the pool in a seeded order of its own (where top-ups come from)."""
    pool = [t for path in task_files(tasks_dir) for t in load_tasks(path)
            if envs is None or set(t.envs) <= envs]
    pool.sort(key=lambda t: t.id)
    sample = random.Random(seed).sample(pool, min(count, len(pool)))
    taken = {t.id for t in sample}
    rest = [t for t in pool if t.id not in taken]
    random.Random(f"{seed}:rest").shuffle(rest)
    return sample, rest


def sample_tasks(count: int, seed: int, tasks_dir: Path = TASKS_DIR, envs: set[str] | None = None) -> list[Task]:
    """A seeded sample of the store's tasks whose environments are all compiled from blueprints."""
    return _drawn(count, seed, tasks_dir, envs)[0]


def reward(cache: EnvCache, task: Task, calls: list[ToolCall]) -> float:
    world = World(cache, task)
    world.run(calls)
    return grade(task, world.start, world.final()).reward


def mutants(cache: EnvCache, task: Task, seed: int) -> dict[str, list[ToolCall]]:
    """name -> mutated calls, for the mutations that apply to this task."""
    out = {}
    for name in NAMES:
        calls = MUTATIONS[name](cache, task, random.Random(f"{seed}:{task.id}:{name}"))
        if calls is not None:
            out[name] = calls
    return out


def audit(sample: int = 300, seed: int = 0, tasks_dir: Path = TASKS_DIR, cache: EnvCache | None = None,
          examples: dict[str, list[tuple[str, float]]] | None = None, floor: int = 15) -> AuditReport:
    cache = cache or EnvCache(generated_envs())
    tasks, rest = _drawn(sample, seed, tasks_dir, set(cache.names))
    tallies = {name: Tally() for name in NAMES}
    stale: list[str] = []

    def tally(task: Task, names: tuple[str, ...]) -> None:
        for name in names:
            calls = MUTATIONS[name](cache, task, random.Random(f"{seed}:{task.id}:{name}"))
            if calls is None:
                continue
            value = reward(cache, task, calls)
            tallies[name].add(value)
            wrong = (name in SHOULD_DROP and value >= 1.0) or (name in SHOULD_KEEP and value < 1.0)
            if examples is not None and wrong:
                examples.setdefault(name, []).append((task.id, value))

    def sound(task: Task) -> bool:  # a mutant of a failing gold says nothing about the grader
        if reward(cache, task, task.gold) >= 1.0:
            return True
        stale.append(task.id)
        return False

    for task in tasks:
        if sound(task):
            tally(task, NAMES)
    topped: dict[str, int] = {}
    for task in rest:  # the rare mutations, until each applied `floor` times
        short = tuple(name for name in NAMES if tallies[name].n < floor)
        if not short:
            break
        applies = tuple(n for n in short if MUTATIONS[n](cache, task, random.Random(f"{seed}:{task.id}:{n}")))
        if applies and sound(task):
            tally(task, applies)
            for name in applies:
                topped[name] = topped.get(name, 0) + 1
    return AuditReport(sample=len(tasks), mutations=tallies, gold_below_one=stale, topped_up=topped)


def table(report: AuditReport) -> str:
    lines = [f"reward audit over {report.sample} sampled tasks (mutated gold solutions)",
             f"{'mutation':<26}{'should':>8}{'n':>6}{'kept 1.0':>10}{'partial':>9}{'zero':>6}"]
    for name, tally in report.mutations.items():
        should = "drop" if name in SHOULD_DROP else "keep"
        extra = f"  ({report.topped_up[name]} tasks beyond the sample)" if name in report.topped_up else ""
        lines.append(f"{name:<26}{should:>8}{tally.n:>6}{tally.kept_full:>10}{tally.partial:>9}{tally.zero:>6}{extra}")
    if report.gold_below_one:
        lines.append(f"not mutated: {len(report.gold_below_one)} tasks whose gold scores below 1.0 on this catalog "
                     f"(the store is stale): {', '.join(report.gold_below_one[:5])}")
    return "\n".join(lines)


def violations(report: AuditReport) -> dict[str, Any]:
    """Mutations that broke their rule: a drop mutation keeping 1.0, a keep mutation losing it."""
    out: dict[str, Any] = {}
    if report.gold_below_one:
        out["gold_below_one"] = f"{len(report.gold_below_one)} sampled tasks' gold fails: regenerate the store"
    for name, tally in report.mutations.items():
        if name in SHOULD_DROP and tally.kept_full:
            out[name] = f"{tally.kept_full}/{tally.n} kept full reward"
        if name in SHOULD_KEEP and tally.kept_full < tally.n:
            out[name] = f"{tally.n - tally.kept_full}/{tally.n} lost reward"
    return out


__all__ = ["AuditReport", "Tally", "audit", "mutants", "reward", "sample_tasks", "table", "violations"]
