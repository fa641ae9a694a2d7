"""One episode API for every consumer: the harness runner, trainer adapters, benchmarks.

    async with open_farm() as farm:                         # in-process (the registry)
    async with open_farm(url, token=...) as farm:           # remote (a gateway's control API)
    (open_farm is in harness/farms.py)
        episode = await farm.create("office-001")           # one or several environments
        episode.turns, episode.tools                        # user turns; tools in OpenAI format
        reply = await farm.call_tool(episode.id, "list_dir", {})
        tools = await farm.begin_turn(episode.id, 1)       # user turn 1 opens (Episode.next_turn does it)
        grade = await farm.grade(episode.id)                # one grade over every environment
        await farm.delete(episode.id)

Both implementations keep each episode's connections in a task of their own, so create, call and
delete may come from different tasks (or, through an anyio portal, from other threads).
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from envcraft.core.grading import Grade
from envcraft.core.rendering import Rendering, episode_tools, render
from envcraft.core.tasks import Task
from pydantic import BaseModel, ConfigDict, Field


class ToolResult(BaseModel):
    name: str
    text: str
    is_error: bool
    seconds: float = 0.0


class EpisodeInfo(BaseModel):
    """What a trainer or agent needs to start: never the checks, the gold or the workspace."""

    model_config = ConfigDict(frozen=True)
    id: str
    task_id: str
    envs: list[str]
    turns: list[str]
    tools: list[dict[str, Any]]  # OpenAI function tools, names unique across the episode
    exposed: dict[str, str] = Field(default_factory=dict)  # "env/tool" -> the name the agent sees
    urls: dict[str, str] = Field(default_factory=dict)  # env -> MCP URL (remote episodes only)
    instructions: dict[str, str] = Field(default_factory=dict)  # env -> what its server says (scenario, date, rules)

    def tool_name(self, env: str | None, tool: str) -> str:
        """The exposed name of `tool` of `env` (the first environment when None)."""
        return self.exposed.get(f"{env or self.envs[0]}/{tool}", tool)

    def rendering(self) -> Rendering:
        """The system prompt, turns and tools a model is shown (core/rendering.py, the same for every consumer)."""
        return render(self.turns, self.tools, self.instructions)


class Farm(Protocol):
    """The episode API; `LocalFarm` (in-process) and `RemoteFarm` (gateway) implement it."""

    async def create(self, task: str | Task) -> EpisodeInfo: ...

    async def call_tool(self, episode_id: str, name: str, arguments: dict[str, Any]) -> ToolResult: ...

    async def begin_turn(self, episode_id: str, index: int) -> list[dict[str, Any]]:
        """User turn `index` opens; the episode's tools for it (a benchmark's may change between turns)."""
        ...

    async def grade(self, episode_id: str) -> Grade: ...

    async def delete(self, episode_id: str) -> None: ...


def reply_text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


def parse_arguments(name: str, arguments: str | dict[str, Any] | None) -> dict[str, Any] | ToolResult:
    """Arguments as a dict, or the error reply the agent reads when they are malformed."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except json.JSONDecodeError as exc:
            return ToolResult(name=name, is_error=True,
                              text=f"arguments are not valid JSON ({exc.msg} at position {exc.pos}): send a JSON object")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return ToolResult(name=name, is_error=True, text="arguments must be a JSON object of parameter names")
    return arguments


__all__ = ["EpisodeInfo", "Farm", "ToolResult", "episode_tools", "parse_arguments", "reply_text"]  # episode_tools: core/rendering.py
