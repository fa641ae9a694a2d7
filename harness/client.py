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
from envcraft.core.tasks import Task
from mcp.types import Tool
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


class Farm(Protocol):
    """The episode API; `LocalFarm` (in-process) and `RemoteFarm` (gateway) implement it."""

    async def create(self, task: str | Task) -> EpisodeInfo: ...

    async def call_tool(self, episode_id: str, name: str, arguments: dict[str, Any]) -> ToolResult: ...

    async def begin_turn(self, episode_id: str, index: int) -> list[dict[str, Any]]:
        """User turn `index` opens; the episode's tools for it (a benchmark's may change between turns)."""
        ...

    async def grade(self, episode_id: str) -> Grade: ...

    async def delete(self, episode_id: str) -> None: ...


def openai_tool(tool: Tool, name: str | None = None) -> dict[str, Any]:
    """An MCP tool as an OpenAI function tool (names already fit ^[A-Za-z0-9_-]{1,64}$)."""
    return {"type": "function", "function": {
        "name": name or tool.name, "description": tool.description or "", "parameters": tool.input_schema}}


def reply_text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


def exposed_names(listed: list[tuple[str, list[Tool]]]) -> dict[str, str]:
    """"env/tool" -> the name the agent sees. Names unique across the episode's environments stay as
    they are; a clash (the scaffold tools of two workspaces) gets the environment as a prefix.
    `finish` is the first environment's alone."""
    counts: dict[str, int] = {}
    for _, tools in listed:
        for tool in tools:
            counts[tool.name] = counts.get(tool.name, 0) + 1
    names = {}
    for index, (env, tools) in enumerate(listed):
        for tool in tools:
            if tool.name == "finish" and index > 0:
                continue
            clash = counts[tool.name] > 1 and tool.name != "finish"
            names[f"{env}/{tool.name}"] = f"{env}__{tool.name}"[:64] if clash else tool.name
    return names


def episode_tools(listed: list[tuple[str, list[Tool]]]) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """(exposed names, OpenAI tools) of an episode whose environments listed these tools."""
    exposed = exposed_names(listed)
    tools = [openai_tool(tool, exposed[f"{env}/{tool.name}"]) for env, group in listed for tool in group
             if f"{env}/{tool.name}" in exposed]
    return exposed, tools


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


__all__ = ["EpisodeInfo", "Farm", "ToolResult", "episode_tools", "parse_arguments", "reply_text"]
