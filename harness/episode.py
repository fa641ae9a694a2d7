"""What an agent sees of one episode: the user's turns, the tools, and a transcript in OpenAI chat format.

The episode is the agent plane only. It reaches the farm through the episode API's tool calls and
nothing else: no workspace path, no task checks, no gold solution, no reset, no grade.
"""

from __future__ import annotations

import json
import time
from typing import Any

from envcraft.core.rollout import Usage
from envcraft.harness.client import EpisodeInfo, Farm, ToolResult
from envcraft.harness.errors import EpisodeStop
from pydantic import BaseModel


class EpisodeBudget(BaseModel):
    """What one episode may spend (steps, tokens, time); not the shell's resource limits (envcraft_runtime.Limits)."""

    max_steps: int = 40  # assistant messages (model calls) per episode
    max_tokens: int = 32_768  # episode budget: the transcript's length (last prompt + its completion)
    max_call_tokens: int = 2_048  # per-call completion budget (the request's max_tokens)
    max_seconds: float = 600.0  # wall clock per episode
    tool_seconds: float = 120.0  # one tool call; longer is a server failure


ToolReply = ToolResult  # the older name


class Episode:
    def __init__(self, info: EpisodeInfo, farm: Farm, limits: EpisodeBudget = EpisodeBudget()):
        self.info, self.farm, self.limits = info, farm, limits
        self.task_id, self.turns, self.envs = info.task_id, info.turns, info.envs
        self.openai_tools = info.tools
        self.finish_name = info.tool_name(None, "finish")
        self.messages: list[dict[str, Any]] = []
        self.usage = Usage()
        self.steps = 0
        self.finished = False
        self.tool_seconds: list[float] = []
        self.started = time.monotonic()

    def tool_name(self, env: str | None, tool: str) -> str:
        return self.info.tool_name(env, tool)

    def system(self, text: str) -> None:
        self.messages.append({"role": "system", "content": text})

    def user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})

    async def next_turn(self, text: str) -> None:
        """Open the next user turn: the farm hears of it first (a benchmark whose tools change between turns,
        as BFCL's missing-function turns do, lists them anew), then the user's message is recorded."""
        index = sum(1 for m in self.messages if m["role"] == "user")
        begin = getattr(self.farm, "begin_turn", None)  # a farm of our own always has it
        if begin is not None:
            self.openai_tools = await begin(self.info.id, index)
        self.user(text)

    def count_step(self, prompt_tokens: int = 0, completion_tokens: int = 0) -> str | None:
        """Book one assistant step; returns the limit it crossed, if any. The caller records the step's
        message first and then calls `stop()`, so the completion that crosses a budget is kept."""
        self.steps += 1
        self.usage.model_calls += 1 if (prompt_tokens or completion_tokens) else 0
        self.usage.prompt_tokens += prompt_tokens
        self.usage.completion_tokens += completion_tokens
        if prompt_tokens + completion_tokens > self.limits.max_tokens:
            return "max_tokens"
        if self.steps > self.limits.max_steps:
            return "max_steps"
        return None

    def stop(self, crossed: str | None) -> None:
        if crossed == "max_tokens":
            raise EpisodeStop("max_tokens", f"the transcript passed {self.limits.max_tokens} tokens")
        if crossed:
            raise EpisodeStop(crossed, f"{self.limits.max_steps} steps taken")

    async def call_tool(self, name: str, arguments: str | dict[str, Any]) -> ToolResult:
        """One tool call; malformed calls come back as error replies, infrastructure failures raise typed."""
        reply = await self.farm.call_tool(self.info.id, name, arguments)
        self.tool_seconds.append(reply.seconds)
        if name == self.finish_name and not reply.is_error:
            self.finished = True
        return reply

    async def act(self, calls: list[tuple[str, str, str | dict[str, Any]]], content: str | None = None,
                  extra: dict[str, Any] | None = None, execute: bool = True) -> list[ToolResult]:
        """Record an assistant message with tool calls (id, name, arguments), run them, record the replies.
        `execute=False` records the message only (the completion that crossed a budget)."""
        message: dict[str, Any] = {"role": "assistant", "content": content, "tool_calls": [
            {"id": call_id, "type": "function", "function": {
                "name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}
            for call_id, name, args in calls]}
        if extra:
            message.update(extra)
        self.messages.append(message)
        replies: list[ToolResult] = []
        for call_id, name, args in calls if execute else []:
            reply = await self.call_tool(name, args)
            self.messages.append({"role": "tool", "tool_call_id": call_id, "content": reply.text})
            replies.append(reply)
        return replies

    def say(self, content: str, extra: dict[str, Any] | None = None) -> None:
        """Record an assistant message with no tool calls."""
        self.messages.append({"role": "assistant", "content": content, **(extra or {})})
