"""The seam a foreign benchmark plugs into: where its tasks come from, how one episode is served, how it is graded.

A benchmark is one module exposing `BENCHMARK`, an object of the `Benchmark` shape below. Its tasks are
our `Task` (user turns; gold as tool calls per turn; no checks of ours: its own grader decides), so every
consumer (run loop, gold and no-op policies, exports, reports) takes them as they are. Its episodes are
MCP servers built per episode, served by the farm like ours: in process, or behind the gateway at a URL
any MCP client can use. Reset, turns and grading are control-plane calls, never MCP tools.
"""

from __future__ import annotations

from typing import Any, Protocol

from envcraft.core.grading import Grade
from envcraft.core.tasks import Task
from pydantic import BaseModel, ConfigDict


class BenchEnvironment(BaseModel):
    """One environment of a benchmark as `envcraft list` shows it (data: no benchmark code is run to list it)."""

    model_config = ConfigDict(frozen=True)
    name: str  # e.g. "bfcl_multi_turn_base"
    kind: str  # e.g. "bfcl"
    tools: int  # tools its tasks can draw on
    tasks: int
    description: str = ""


class BenchEpisode(Protocol):
    """One live episode of a benchmark task."""

    server: Any  # the episode's own MCP server (mcp.server.lowlevel.Server): the agent plane
    turn: int  # the user turn now open (0 at start)

    async def begin_turn(self, index: int) -> bool:
        """Control plane: open user turn `index` (the next one); True when the tool list changed, in which
        case connected clients were sent tools/list_changed."""
        ...

    async def reset(self) -> None:
        """Control plane: back to the task's initial state and turn 0 (telling clients if the tools change)."""
        ...

    def grade(self) -> Grade:
        """The benchmark's own checker on what the episode did; reward 1 or 0 as it scores, its verdict kept.
        Synchronous: callers run it off the event loop."""
        ...

    def close(self) -> None: ...


class Benchmark(Protocol):
    name: str  # what `envcraft run --bench NAME` takes, e.g. "bfcl-multi-turn"
    kind: str  # the kind `envcraft list` shows its environments under
    env_names: tuple[str, ...]  # its environments (categories): the farm routes a task here by its first env

    def installed(self) -> str | None:
        """None when usable; otherwise what to install (e.g. the package missing), said plainly."""
        ...

    def environments(self) -> list[BenchEnvironment]: ...

    def tasks(self, category: str | None = None) -> list[Task]:
        """Its tasks as ours, all categories or one (an env name)."""
        ...

    def task(self, task_id: str) -> Task | None: ...

    def open(self, task: Task) -> BenchEpisode:
        """A fresh episode of `task` (state built from the task's initial configuration)."""
        ...


__all__ = ["BenchEnvironment", "BenchEpisode", "Benchmark"]
