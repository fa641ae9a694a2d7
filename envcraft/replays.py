"""Replays through the real path: registry, in-process MCP servers, the gold-replay agent, the harness's grading.

`cross_check` runs the audit's mutants of a few tasks both ways (fast path and real servers) and
pairs the rewards; `replay_store` replays every task's gold and no-op through MCP and times it.
They live beside the CLI because they drive the harness, which the generator must not import.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from envcraft.core.tasks import TASKS_DIR, Task, ToolCall, load_tasks, task_files
from envcraft.generator.tasks.audit import mutants, reward, sample_tasks
from envcraft.generator.tasks.env import EnvCache, generated_envs
from envcraft.harness.agents.policies import GoldReplayAgent, NoOpAgent
from envcraft.harness.runner import RolloutLog, run_tasks
from envcraft.registry.launch import InProcessLauncher


async def cross_check(count: int, seed: int = 0, tasks_dir: Path = TASKS_DIR,
                      cache: EnvCache | None = None) -> list[tuple[str, str, float, float]]:
    """(task, mutation, fast-path reward, MCP reward) for the mutants of `count` sampled tasks."""
    cache = cache or EnvCache(generated_envs())
    runs: list[tuple[Task, str, list[ToolCall], float]] = []
    for task in sample_tasks(count, seed, tasks_dir, set(cache.names)):
        for name, calls in mutants(cache, task, seed).items():
            runs.append((task.model_copy(update={"id": f"{task.id}~{name}"}), name, calls, reward(cache, task, calls)))
    gold = {t.id: calls for t, _, calls, _ in runs}
    with tempfile.TemporaryDirectory() as scratch:
        rollouts = await run_tasks([t for t, *_ in runs], GoldReplayAgent(gold), InProcessLauncher(),
                                   RolloutLog(Path(scratch) / "audit.jsonl"), run_id="audit", concurrency=4)
    by_id = {r.task_id: r.reward for r in rollouts}
    return [(t.id.split("~")[0], name, fast, by_id.get(t.id, -1.0)) for t, name, _, fast in runs]


async def replay_store(tasks_dir: Path = TASKS_DIR, envs: list[str] | None = None, limit: int | None = None,
                       concurrency: int = 8, noop: bool = True, log=print) -> dict:
    """Every task's gold (and a no-op agent) through the registry and MCP; counts, failures and seconds."""
    tasks = [t for path in task_files(tasks_dir) for t in load_tasks(path) if not envs or t.envs[0] in envs]
    tasks = tasks[:limit] if limit else tasks
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        gold = await run_tasks(tasks, GoldReplayAgent({t.id: t.gold for t in tasks}), InProcessLauncher(),
                               RolloutLog(Path(scratch) / "gold.jsonl"), run_id="gold", concurrency=concurrency)
        gold_seconds = time.perf_counter() - started
        log(f"gold: {len(gold)} tasks in {gold_seconds:.1f}s")
        empty = await run_tasks(tasks, NoOpAgent(), InProcessLauncher(), RolloutLog(Path(scratch) / "noop.jsonl"),
                                run_id="noop", concurrency=concurrency) if noop else []
    seconds = time.perf_counter() - started
    return {"tasks": len(tasks), "gold_seconds": round(gold_seconds, 1), "seconds": round(seconds, 1),
            "gold_below_one": [(r.task_id, r.reward, r.failure.message if r.failure else None)
                               for r in gold if r.reward < 1.0],
            "noop_above_zero": [(r.task_id, r.reward) for r in empty if r.reward > 0.0]}


__all__ = ["cross_check", "replay_store"]
