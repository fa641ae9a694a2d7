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
import anyio.to_thread
from envcraft.core.outcomes import infrastructure_failure
from envcraft.core.rollout import Failure, Rollout
from envcraft.core.tasks import Task
from envcraft.harness.agents.base import Agent
from envcraft.harness.client import Farm
from envcraft.harness.episode import Episode, EpisodeBudget
from envcraft.harness.errors import AgentFailure, EpisodeStop, InfraFailure, ServerFailure, TaskFailure, leaf
from envcraft.harness.farm_local import LocalFarm
from envcraft.registry.launch import InProcessLauncher, Launcher


def _failure(exc: BaseException, default: type[InfraFailure]) -> InfraFailure:
    """The typed failure inside an exception (groups unwrapped); anything else is `default`'s."""
    cause = leaf(exc)
    if isinstance(cause, InfraFailure):
        return cause
    return default(f"{type(cause).__name__}: {cause}")


async def run_episode(task: Task, agent: Agent, farm: Farm, limits: EpisodeBudget, run_id: str, attempt: int = 0,
                      launcher_name: str = "inprocess") -> Rollout:
    rollout = Rollout(run_id=run_id, task_id=task.id, task_hash=task.content_hash, envs=task.envs, split=task.split,
                      agent=agent.name, model=agent.model, attempt=attempt, launcher=launcher_name)
    timings = rollout.timings
    start = time.perf_counter()
    episode = None
    failure: InfraFailure | None = None
    try:
        info = await farm.create(task)
    except Exception as exc:  # noqa: BLE001 - recorded, never raised: one broken episode must not stop the run
        failure = _failure(exc, ServerFailure)
    else:
        timings.acquire_seconds = time.perf_counter() - start
        episode = Episode(info, farm, limits)
        rollout.tools = info.tools
        agent_start = time.perf_counter()
        try:
            with anyio.fail_after(limits.max_seconds):
                rollout.stop_reason = await agent.run(episode)
        except EpisodeStop as stop:
            rollout.stop_reason = stop.reason
        except TimeoutError:
            rollout.stop_reason = "time_limit"
        except Exception as exc:  # noqa: BLE001 - a crash in the agent's own code is the agent's failure
            stop = leaf(exc)
            if isinstance(stop, EpisodeStop):
                rollout.stop_reason = stop.reason
            else:
                failure = _failure(exc, AgentFailure)
        timings.agent_seconds = time.perf_counter() - agent_start
        if failure is None:
            grade_start = time.perf_counter()
            try:
                result = await farm.grade(info.id)
                if result.unfinished:  # the workspace the agent left could not be graded in bounds: its failure
                    raise TaskFailure(f"the grade did not finish: {result.unfinished}")
                rollout.reward, rollout.passed, rollout.checks = result.reward, result.passed, result.checks
                rollout.state_diff = result.state_diff
                rollout.verdict = result.verdict
            except Exception as exc:  # noqa: BLE001
                failure = _failure(exc, TaskFailure)
            timings.grade_seconds = time.perf_counter() - grade_start
        with contextlib.suppress(Exception):  # a failure on teardown leaves the grade standing
            await farm.delete(info.id)
    if failure is not None:
        rollout.failure = Failure(boundary=failure.boundary, message=failure.message)
        rollout.stop_reason = f"error:{failure.boundary}"
        rollout.reward, rollout.passed, rollout.checks = 0.0, False, []
    if episode is not None:
        rollout.messages = episode.messages
        rollout.steps = episode.steps
        rollout.usage = episode.usage
        timings.tool_calls = len(episode.tool_seconds)
        timings.tool_seconds_mean = sum(episode.tool_seconds) / len(episode.tool_seconds) if episode.tool_seconds else 0.0
    timings.total_seconds = time.perf_counter() - start
    return rollout


async def run_pairs(todo: list[tuple[Task, int]], agent: Agent, launcher: Launcher | None, log: RolloutLog, *,
                    run_id: str, limits: EpisodeBudget = EpisodeBudget(), concurrency: int = 4, farm: Farm | None = None,
                    on_done: Callable[[Rollout], None] | None = None) -> None:
    """Run exactly these (task, attempt) episodes, appending each rollout to the log as it finishes."""
    limiter = anyio.CapacityLimiter(max(concurrency, 1))
    writer = anyio.CapacityLimiter(1)  # one append at a time, in finishing order
    launcher = launcher or InProcessLauncher()

    async def one(target: Farm, task: Task, attempt: int) -> None:
        async with limiter:
            rollout = await run_episode(task, agent, target, limits, run_id, attempt, launcher.name)
        # Off the event loop: each append waits for its fsync, which must not stall the other episodes.
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(log.append, rollout, limiter=writer)
        if on_done:
            on_done(rollout)

    async def run_all(target: Farm) -> None:
        async with anyio.create_task_group() as group:
            for task, attempt in todo:
                group.start_soon(one, target, task, attempt)

    if farm is not None:
        await run_all(farm)
        return
    async with LocalFarm(launcher, tool_seconds=limits.tool_seconds) as local:
        per_env = Counter(env for task, _ in todo for env in task.envs)
        local.prewarm({name: min(concurrency, count) for name, count in per_env.items()})
        await run_all(local)


class RolloutLog:
    """Append-only JSONL of rollouts; reading it back tells which episodes are done.

    `done` holds the latest rollout per (task, agent, attempt); `failures` counts the infrastructure
    failures recorded per key, so a resume can retry them a bounded number of times.
    """

    def __init__(self, path: Path):
        self.path = Path(path)  # its folder is made on the first append: reading a log creates nothing
        self.done: dict[tuple[str, str, int], Rollout] = {}
        self.failures: Counter[tuple[str, str, int]] = Counter()
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
            good.append(line)
            self._book(rollout)
        if len(good) != len(lines):  # only a damaged log is rewritten; reading one for a report changes nothing
            self.path.write_text("".join(line + "\n" for line in good), "utf-8")

    def _book(self, rollout: Rollout) -> None:
        kept = self.done.get(rollout.key)
        if kept is None or infrastructure_failure(kept):  # a counted episode is final; a retry replaces the other
            self.done[rollout.key] = rollout
        self.failures[rollout.key] += infrastructure_failure(rollout)

    def pending(self, key: tuple[str, str, int], retries: int) -> bool:
        """Not yet run, or failed at the infrastructure no more than `retries` times so far."""
        kept = self.done.get(key)
        return kept is None or (infrastructure_failure(kept) and self.failures[key] <= retries)

    def append(self, rollout: Rollout) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(rollout.model_dump_json() + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        self._book(rollout)


async def run_tasks(tasks: list[Task], agent: Agent, launcher: Launcher | None, log: RolloutLog, *, run_id: str,
                    limits: EpisodeBudget = EpisodeBudget(), concurrency: int = 4, attempts: int = 1, retries: int = 0,
                    farm: Farm | None = None, on_done: Callable[[Rollout], None] | None = None) -> list[Rollout]:
    """Run every (task, attempt) the log does not hold yet (or holds as an infrastructure failure, at most
    `retries` times over); returns this agent's rollouts, old and new, in task order. Episodes go through
    `farm` when given, else through an in-process farm over `launcher`."""
    todo = [(task, attempt) for task in tasks for attempt in range(attempts)
            if log.pending((task.id, agent.name, attempt), retries)]
    await run_pairs(todo, agent, launcher, log, run_id=run_id, limits=limits, concurrency=concurrency, farm=farm,
                    on_done=on_done)
    wanted = [(task.id, agent.name, attempt) for task in tasks for attempt in range(attempts)]
    return [log.done[key] for key in wanted if key in log.done]
