"""What an agent sees of one episode: the user's turns, the tools, and a transcript in OpenAI chat format.

The episode is the agent plane only. It holds an MCP client and nothing else of the instance:
no workspace path, no task checks, no gold solution, no reset.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from mcp import Client
from mcp.types import Tool
from pydantic import BaseModel

from envcraft.harness.errors import EpisodeStop, InfraFailure
from envcraft.core.rollout import Usage


class Limits(BaseModel):
    max_steps: int = 40  # assistant messages (model calls) per episode
    max_tokens: int = 64_000  # prompt + completion tokens over the episode
    max_seconds: float = 600.0


class ToolReply(BaseModel):
    name: str
    text: str
    is_error: bool
    seconds: float


def openai_tool(tool: Tool) -> dict[str, Any]:
    """An MCP tool as an OpenAI function tool (names already fit ^[A-Za-z0-9_-]{1,64}$)."""
    return {"type": "function", "function": {
        "name": tool.name, "description": tool.description or "", "parameters": tool.input_schema}}


def reply_text(result: Any) -> str:
    parts = [block.text for block in result.content if getattr(block, "type", "") == "text"]
    return "\n".join(parts)


@dataclass(frozen=True)
class Toolset:
    """The tools one environment instance offers the episode."""

    env: str
    client: Client
    tools: list[Tool]


def exposed_names(toolsets: list[Toolset]) -> dict[tuple[str, str], str]:
    """(env, tool) -> the name the agent sees. Names unique across the episode's environments stay
    as they are; a clash (the scaffold tools of two workspaces) gets the environment as a prefix.
    `finish` is the first environment's alone."""
    counts: dict[str, int] = {}
    for toolset in toolsets:
        for tool in toolset.tools:
            counts[tool.name] = counts.get(tool.name, 0) + 1
    names = {}
    for index, toolset in enumerate(toolsets):
        for tool in toolset.tools:
            if tool.name == "finish" and index > 0:
                continue
            clash = counts[tool.name] > 1 and tool.name != "finish"
            names[(toolset.env, tool.name)] = f"{toolset.env}__{tool.name}"[:64] if clash else tool.name
    return names


class Episode:
    def __init__(self, task_id: str, turns: list[str], toolsets: list[Toolset], limits: Limits):
        self.task_id = task_id
        self.turns = turns
        self.envs = [toolset.env for toolset in toolsets]
        self.exposed = exposed_names(toolsets)
        self._routes = {}
        self.tools = []
        for toolset in toolsets:
            for tool in toolset.tools:
                if (toolset.env, tool.name) in self.exposed:
                    name = self.exposed[(toolset.env, tool.name)]
                    self._routes[name] = (toolset.client, tool.name)
                    self.tools.append(tool.model_copy(update={"name": name}))
        self.openai_tools = [openai_tool(t) for t in self.tools]
        # What each server says about itself (scenario, date, rules): agents show it to their model.
        self.instructions = [(t.env, getattr(t.client, "instructions", None) or "") for t in toolsets]
        self.limits = limits
        self.messages: list[dict[str, Any]] = []
        self.usage = Usage()
        self.steps = 0
        self.finished = False
        self.tool_seconds: list[float] = []
        self.started = time.monotonic()

    def system(self, text: str) -> None:
        self.messages.append({"role": "system", "content": text})

    def user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})

    def count_step(self, prompt_tokens: int = 0, completion_tokens: int = 0) -> None:
        """Book one assistant step; raises EpisodeStop when a limit is reached."""
        self.steps += 1
        self.usage.model_calls += 1 if (prompt_tokens or completion_tokens) else 0
        self.usage.prompt_tokens += prompt_tokens
        self.usage.completion_tokens += completion_tokens
        if self.usage.prompt_tokens + self.usage.completion_tokens > self.limits.max_tokens:
            raise EpisodeStop("max_tokens", f"{self.limits.max_tokens} tokens used")
        if self.steps > self.limits.max_steps:
            raise EpisodeStop("max_steps", f"{self.limits.max_steps} steps taken")

    async def call_tool(self, name: str, arguments: str | dict[str, Any]) -> ToolReply:
        """One tool call. Malformed calls come back as error replies the agent can read, never as crashes."""
        start = time.perf_counter()
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments or "{}")
            except json.JSONDecodeError as exc:
                return ToolReply(name=name, is_error=True, seconds=0.0,
                                 text=f"arguments are not valid JSON ({exc.msg} at position {exc.pos}): send a JSON object")
        if not isinstance(arguments, dict):
            return ToolReply(name=name, is_error=True, seconds=0.0, text="arguments must be a JSON object of parameter names")
        if name not in self._routes:
            return ToolReply(name=name, is_error=True, seconds=0.0,
                             text=f"there is no tool named {name!r}; available: {', '.join(sorted(self._routes))}")
        client, local_name = self._routes[name]
        try:
            result = await client.call_tool(local_name, arguments)
        except Exception as exc:  # the transport or the server process broke: not the agent's fault
            raise InfraFailure("server", f"{name} call failed: {type(exc).__name__}: {exc}") from exc
        seconds = time.perf_counter() - start
        self.tool_seconds.append(seconds)
        if name == "finish" and not result.is_error:
            self.finished = True
        return ToolReply(name=name, text=reply_text(result), is_error=bool(result.is_error), seconds=seconds)

    async def act(self, calls: list[tuple[str, str, str | dict[str, Any]]], content: str | None = None,
                  extra: dict[str, Any] | None = None) -> list[ToolReply]:
        """Record an assistant message with tool calls (id, name, arguments), run them, record the replies."""
        message: dict[str, Any] = {"role": "assistant", "content": content, "tool_calls": [
            {"id": call_id, "type": "function", "function": {
                "name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}
            for call_id, name, args in calls]}
        if extra:
            message.update(extra)
        self.messages.append(message)
        replies = []
        for call_id, name, args in calls:
            reply = await self.call_tool(name, args)
            self.messages.append({"role": "tool", "tool_call_id": call_id, "content": reply.text})
            replies.append(reply)
        return replies

    def say(self, content: str, extra: dict[str, Any] | None = None) -> None:
        """Record an assistant message with no tool calls."""
        self.messages.append({"role": "assistant", "content": content, **(extra or {})})
