"""Replays through the real path: registry, in-process MCP servers, the gold-replay agent, the harness's grading.

`cross_check` runs the audit's mutants of a few tasks both ways (fast path and real servers, the
latter through the harness's runner and gold-replay agent) and pairs the rewards; `replay_store`
replays every task's gold through MCP on fresh registry instances (no rollout records, so it is
fast enough for the whole store), grades gold and no-op, and times it.
They live beside the CLI because they drive the harness, which the generator must not import.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from envcraft.core.grading import Snapshot, grade
from envcraft.core.tasks import TASKS_DIR, Task, ToolCall, load_tasks, task_files

from envcraft.generator.tasks.audit import mutants, reward, sample_tasks
from envcraft.generator.tasks.env import EnvCache, generated_envs
from envcraft.harness.agents.policies import GoldReplayAgent
from envcraft.harness.runner import RolloutLog, run_tasks
from envcraft.harness.schema_cache import share_output_validators
from envcraft.registry import catalog
from envcraft.registry.launch import InProcessLauncher, launch
from envcraft.registry.workspaces import WorkspaceRoot


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


async def replay_task(task: Task, launcher: InProcessLauncher, root: WorkspaceRoot) -> tuple[float, float, str]:
    """(gold reward, no-op reward, first refused call) of one task on fresh instances of its environments:
    the no-op grade is taken before any call, the gold grade after every gold call went through MCP."""
    import contextlib

    async with contextlib.AsyncExitStack() as stack:
        instances = {name: await stack.enter_async_context(launch(catalog.get(name), launcher, root,
                                                                  task.initial_for(name))) for name in task.envs}
        for instance in instances.values():  # as the farm does: output schemas compiled once per process
            await instance.client.list_tools()
            share_output_validators(instance.client)
        initial = {name: Snapshot.of(i.workspace) for name, i in instances.items()}
        noop = grade(task, initial, initial).reward
        refused = ""
        for call in task.gold:
            result = await instances[call.env or task.envs[0]].client.call_tool(call.tool, call.arguments)
            if result.is_error and not refused:
                refused = f"{call.tool}: {str(result.content)[:160]}"
        final = {name: Snapshot.of(i.workspace) for name, i in instances.items()}
        return grade(task, initial, final).reward, noop, refused


async def replay_store(tasks_dir: Path = TASKS_DIR, envs: list[str] | None = None, limit: int | None = None,
                       concurrency: int = 4, log=print) -> dict:
    """Every task's gold through the registry's in-process servers over MCP, graded by the harness's code
    (and the no-op grade of the same fresh instance); counts, failures and seconds."""
    import anyio

    tasks = [t for path in task_files(tasks_dir) for t in load_tasks(path) if not envs or t.envs[0] in envs]
    tasks = tasks[:limit] if limit else tasks
    launcher, root = InProcessLauncher(), WorkspaceRoot()
    limiter = anyio.CapacityLimiter(max(concurrency, 1))
    results: dict[str, tuple[float, float, str]] = {}
    started = time.perf_counter()

    async def one(task: Task) -> None:
        async with limiter:
            try:
                results[task.id] = await replay_task(task, launcher, root)
            except Exception as exc:  # noqa: BLE001 - recorded per task, the replay goes on
                results[task.id] = (0.0, 0.0, f"{type(exc).__name__}: {exc}"[:200])
            if len(results) % 1000 == 0:
                log(f"  {len(results)}/{len(tasks)} tasks, {time.perf_counter() - started:.0f}s")

    try:
        async with anyio.create_task_group() as group:
            for task in tasks:
                group.start_soon(one, task)
    finally:
        root.close()
    seconds = time.perf_counter() - started
    return {"tasks": len(tasks), "seconds": round(seconds, 1),
            "gold_below_one": [(tid, r[0], r[2]) for tid, r in results.items() if r[0] < 1.0],
            "noop_above_zero": [(tid, r[1]) for tid, r in results.items() if r[1] > 0.0]}


__all__ = ["cross_check", "replay_store"]
