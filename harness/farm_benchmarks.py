"""Foreign-benchmark episodes in the in-process farm (envcraft.benchmarks): the benchmark builds each
episode's MCP server and state; the farm connects to it in memory, opens its turns and asks its grader."""

from __future__ import annotations

import contextlib
import uuid
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
from envcraft.benchmarks import registry
from envcraft.benchmarks.seam import BenchEpisode, Benchmark
from envcraft.core.grading import Grade
from envcraft.core.tasks import Task
from envcraft.harness.farm_base import Opened
from mcp import Client


@dataclass
class BenchState:
    """What an Opened holds for a benchmark episode (ours hold instances and baselines)."""

    episode: BenchEpisode


def benchmark_of(task: Task) -> Benchmark | None:
    return registry.owner(task.envs[0]) if task.envs else None


async def open_bench(stack: contextlib.AsyncExitStack, bench: Benchmark, task: Task) -> Opened:
    episode = await anyio.to_thread.run_sync(bench.open, task)  # builds the task's state (long context: a lot)
    stack.callback(episode.close)
    client: Any = await stack.enter_async_context(Client(episode.server, raise_exceptions=False))
    return Opened(id=uuid.uuid4().hex, task_id=task.id, turns=task.turns, clients={task.envs[0]: client},
                  state=BenchState(episode))


def is_bench(opened: Opened) -> bool:
    return isinstance(opened.state, BenchState)


async def begin_bench_turn(opened: Opened, index: int) -> bool:
    return await opened.state.episode.begin_turn(index) if is_bench(opened) else False


async def grade_bench(opened: Opened) -> Grade:
    return await anyio.to_thread.run_sync(opened.state.episode.grade)
