"""The rollout loop: launch an instance, let the agent act, grade the final state from outside, record.

Episodes run concurrently up to a bound. A failed episode becomes a rollout with its cause and
the run goes on. Rollouts are appended to JSONL as each finishes, so a killed run resumes
without losing or duplicating any.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import anyio

from envcraft.harness.agents.base import Agent
from envcraft.harness.episode import Episode, Limits, Toolset
from envcraft.harness.errors import EpisodeStop, InfraFailure
from envcraft.core.diff import state_diff
from envcraft.core.grading import Snapshot, grade
from envcraft.core.rollout import Failure, Rollout
from envcraft.core.tasks import Task
from envcraft.registry import catalog
from envcraft.registry.launch import Launcher, launch
from envcraft.registry.workspaces import WorkspaceRoot


def _infra(exc: BaseException) -> InfraFailure | None:
    """The InfraFailure inside an exception (or exception group), if any."""
    if isinstance(exc, InfraFailure):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            if found := _infra(inner):
                return found
    return None


async def run_episode(task: Task, agent: Agent, launcher: Launcher, root: WorkspaceRoot, limits: Limits,
                      run_id: str, attempt: int = 0) -> Rollout:
    rollout = Rollout(run_id=run_id, task_id=task.id, task_hash=task.content_hash, envs=task.envs, split=task.split,
                      agent=agent.name, model=agent.model, attempt=attempt, launcher=launcher.name)
    timings = rollout.timings
    start = time.perf_counter()
    episode = None
    try:
        envs = [catalog.get(name) for name in task.envs]
        async with contextlib.AsyncExitStack() as stack:
            instances = [await stack.enter_async_context(launch(env, launcher, root, task.initial_for(env.name)))
                         for env in envs]
            toolsets = [Toolset(i.env.name, i.client, (await i.client.list_tools()).tools) for i in instances]
            initial = {i.env.name: Snapshot.of(i.workspace) for i in instances}
            timings.acquire_seconds = time.perf_counter() - start
            episode = Episode(task.id, task.turns, toolsets, limits)
            rollout.tools = episode.openai_tools
            agent_start = time.perf_counter()
            try:
                with anyio.fail_after(limits.max_seconds):
                    rollout.stop_reason = await agent.run(episode)
            except EpisodeStop as stop:
                rollout.stop_reason = stop.reason
            except TimeoutError:
                rollout.stop_reason = "time_limit"
            timings.agent_seconds = time.perf_counter() - agent_start
            grade_start = time.perf_counter()
            final = {i.env.name: Snapshot.of(i.workspace) for i in instances}
            result = grade(task, initial, final)
            timings.grade_seconds = time.perf_counter() - grade_start
            rollout.reward, rollout.passed, rollout.checks = result.reward, result.passed, result.checks
            rollout.state_diff = {name: state_diff(initial[name], final[name]) for name in final}
    except Exception as exc:  # recorded, never raised: one broken episode must not stop the run
        failure = _infra(exc) or InfraFailure("task" if isinstance(exc, (KeyError, ValueError)) else "server",
                                              f"{type(exc).__name__}: {exc}")
        if not rollout.checks:  # a failure after grading (e.g. on teardown) leaves the grade standing
            rollout.failure = Failure(boundary=failure.boundary, message=failure.message)
            rollout.stop_reason = f"error:{failure.boundary}"
            rollout.reward, rollout.passed = 0.0, False
    if episode is not None:
        rollout.messages = episode.messages
        rollout.steps = episode.steps
        rollout.usage = episode.usage
        timings.tool_calls = len(episode.tool_seconds)
        timings.tool_seconds_mean = sum(episode.tool_seconds) / len(episode.tool_seconds) if episode.tool_seconds else 0.0
    timings.total_seconds = time.perf_counter() - start
    return rollout


class RolloutLog:
    """Append-only JSONL of rollouts; reading it back tells which episodes are already done."""

    def __init__(self, path: Path):
        self.path = Path(path)  # its folder is made on the first append: reading a log creates nothing
        self.done: dict[tuple[str, str, int], Rollout] = {}
        if self.path.exists():
            self._recover()

    def _recover(self) -> None:
        """Keep every complete line; drop a torn last line left by a killed run."""
        good, lines = [], self.path.read_text("utf-8").splitlines()
        for line in lines:
            try:
                rollout = Rollout.model_validate_json(line)
            except ValueError:
                continue
            if rollout.key not in self.done:
                self.done[rollout.key] = rollout
                good.append(line)
        if len(good) != len(lines):  # only a damaged log is rewritten; reading one for a report changes nothing
            self.path.write_text("".join(line + "\n" for line in good), "utf-8")

    def append(self, rollout: Rollout) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(rollout.model_dump_json() + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        self.done[rollout.key] = rollout


async def run_tasks(tasks: list[Task], agent: Agent, launcher: Launcher, log: RolloutLog, *, run_id: str,
                    limits: Limits = Limits(), concurrency: int = 4, attempts: int = 1,
                    on_done: Callable[[Rollout], None] | None = None) -> list[Rollout]:
    """Run every (task, attempt) not yet in the log; returns this agent's rollouts, old and new, in task order."""
    todo = [(task, attempt) for task in tasks for attempt in range(attempts)
            if (task.id, agent.name, attempt) not in log.done]
    limiter = anyio.CapacityLimiter(max(concurrency, 1))
    root = WorkspaceRoot()
    known = catalog.discover()
    per_env = Counter(env for task, _ in todo for env in task.envs)
    for name in sorted(per_env.keys() & known.keys()):  # as many fresh copies as can run at once, no more
        root.prewarm(name, known[name].seed, min(concurrency, per_env[name]))
    try:
        async def one(task: Task, attempt: int) -> None:
            async with limiter:
                rollout = await run_episode(task, agent, launcher, root, limits, run_id, attempt)
            log.append(rollout)
            if on_done:
                on_done(rollout)

        async with anyio.create_task_group() as group:
            for task, attempt in todo:
                group.start_soon(one, task, attempt)
    finally:
        root.close()
    wanted = [(task.id, agent.name, attempt) for task in tasks for attempt in range(attempts)]
    return [log.done[key] for key in wanted if key in log.done]
