"""The grading figures of `envcraft bench`: an answer check and a whole grade, each beside a baseline measured in
the same run.

What is graded: tasks of the store with an answer check, each in its initial state as a farm checks it out (a
workspace materialized from the seed and the task's S0, read back with Snapshot.of), answered with its gold's
own finish answer. Every sample grades a fresh copy of the world deserialized again, as a grading process gets
it for each job: the world index (core/world_index.py) is found by content, not by object.

Ours: the world's index already built (every rollout after a world's first). Baseline: the index forgotten
before each sample, so it is built for that check (for a grade, for that grade), which is what every answer
check cost before the index, plus the digest that finds it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

from envcraft.core import world_index
from envcraft.core.grading import Grade, Snapshot, given, grade, holds
from envcraft.core.tasks import Check, Task, tasks_for
from envcraft.registry.catalog import get
from envcraft.registry.workspaces import WorkspaceRoot


def _answered(task: Task) -> str | None:
    finish = [c for c in task.gold if c.tool == "finish"]
    return str(finish[-1].arguments.get("answer", "")) if finish else None


def _cases(env_name: str, count: int, root: WorkspaceRoot) -> list[tuple[Task, str, Snapshot, str]]:
    """(task, its initial world as JSON, its gold final state, what it states) for up to `count` questions of
    `env_name`: one-environment tasks whose goals are answer checks, so the gold's final state is the initial one
    with its answer (and the grade is the one a gold rollout gets)."""
    env, cases = get(env_name), []
    for task in tasks_for(env_name):
        answer = _answered(task)
        goals = [c.kind for c in task.checks if c.role == "goal"]
        if len(task.envs) != 1 or answer is None or set(goals) != {"answer"}:
            continue
        workspace = root.checkout(env.name, env.seed, task.initial_for(env.name))
        try:
            initial = Snapshot.of(workspace)
        finally:
            root.checkin(env.seed, workspace)
        cases.append((task, initial.model_dump_json(), initial.model_copy(update={"answer": answer}), given(task)))
        if len(cases) == count:
            break
    return cases


def _timed(n: int, prepare: Callable[[], None], fn: Callable[[Snapshot], object], world: str) -> list[float]:
    samples = []
    for _ in range(n):
        fresh = Snapshot.model_validate_json(world)  # a new object each time, as a grading process reads its job
        prepare()
        start = time.perf_counter()
        fn(fresh)
        samples.append(time.perf_counter() - start)
    return samples


def _holds(check: Check, final: Snapshot, stated: str, initial: Snapshot) -> bool:
    return holds(check, initial, final, stated)


def _graded(task: Task, final: Snapshot, initial: Snapshot) -> Grade:
    return grade(task, initial, final)


def grading_samples(env_name: str = "office", tasks: int = 10, n: int = 20) -> dict[str, tuple[list[float], list[float]]]:
    """figure -> (ours, baseline) seconds per sample, over `n` samples of each of up to `tasks` tasks."""
    root = WorkspaceRoot()
    try:
        cases = _cases(env_name, tasks, root)
    finally:
        root.close()
    if not cases:
        raise ValueError(f"{env_name} has no one-environment question task (goals all answer checks): pick another --env")
    out: dict[str, tuple[list[float], list[float]]] = {"answer check": ([], []), "grade (question task)": ([], [])}

    def measured(figure: str, fn: Callable[[Snapshot], object], world: str) -> None:
        out[figure][0].extend(_timed(n, lambda: None, fn, world))
        out[figure][1].extend(_timed(n, world_index.clear, fn, world))

    for task, world, final, stated in cases:
        if _graded(task, final, Snapshot.model_validate_json(world)).reward < 1.0:  # builds the world's index
            continue  # a gold that fails on this catalog is stale: not a grade a trainer asks for
        for check in (c for c in task.checks if c.kind == "answer"):
            measured("answer check", partial(_holds, check, final, stated), world)
        measured("grade (question task)", partial(_graded, task, final), world)
    return out


__all__ = ["grading_samples"]
