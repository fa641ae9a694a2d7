"""The verifiers environment's parts, each one EnvCraft's own through the gateway's control API:

- taskset: GET /control/tasks lists an environment's tasks as a model is shown them (core/rendering.py: the
  system prompt and user turns every other consumer gets), one verifiers Task each;
- task setup: POST /control/groups starts the episode, each environment from its own initial state;
- harness: verifiers' own chat program (its `null` harness) with the episode's MCP server added;
- reward: POST /control/groups/<id>/grade is our grade (its checks go to the trace's info), then the episode
  is deleted. A rollout that never reached its grade leaves the episode to the gateway's idle reaper.

- environment: one agent seat, as verifiers' single-agent env; a task's later user turns are sent, in order, on
  verifiers' user channel (an interaction), each once the agent has answered the turn before.

Served: tasks of one environment. Tasks over several environments would show the chat program's server-prefixed
tool names instead of the rendering's; they are left out of the listing, and the count left out is logged.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from typing import Any, Literal

import httpx
from pydantic import Field
from verifiers.v1.agent import Agents
from verifiers.v1.clients import ModelContext
from verifiers.v1.envs.single_agent import SingleAgentEnv
from verifiers.v1.harnesses.null.harness import NullHarness
from verifiers.v1.runtimes import ProgramResult, Runtime
from verifiers.v1.state import State
from verifiers.v1.task import Task, TaskConfig, TaskData
from verifiers.v1.taskset import Taskset, TasksetConfig
from verifiers.v1.trace import Trace
from verifiers.v1.utils.decorators import reward

logger = logging.getLogger(__name__)


class EnvCraftTaskConfig(TaskConfig):
    gateway_url: str = "http://127.0.0.1:8765"
    """The gateway (`envcraft serve --all`) whose control API runs the episodes."""
    token_var: str = "ENVCRAFT_GATEWAY_TOKEN"
    """Environment variable holding the gateway's control token (printed when it starts)."""
    timeout: float = Field(120.0, gt=0)
    """Seconds for one control call (a grade runs under the gateway's own, shorter, limit)."""


class EnvCraftConfig(TasksetConfig):
    env: str = "office"
    """Environment whose tasks to serve."""
    split: Literal["all", "train", "test"] = "all"
    limit: int | None = Field(None, ge=1)
    """At most this many tasks, in the task file's order (before the single-turn filter)."""
    task: EnvCraftTaskConfig = EnvCraftTaskConfig()


class EnvCraftData(TaskData):
    envs: list[str]
    turns: list[str]
    """The user's turns; the first is the prompt."""


class EnvCraftState(State):
    group: str = ""
    """The episode (a gateway group) this rollout acts on."""
    urls: dict[str, str] = Field(default_factory=dict)
    """Its MCP URL per environment."""


def _client(config: EnvCraftTaskConfig) -> dict[str, Any]:
    token = os.environ.get(config.token_var)
    if not token:
        raise RuntimeError(f"set ${config.token_var} to the gateway's control token (printed when it starts)")
    return {"base_url": config.gateway_url.rstrip("/"), "timeout": config.timeout,
            "headers": {"Authorization": f"Bearer {token}"}}


def _answer(response: httpx.Response) -> Any:
    """The body; a refusal raises with the gateway's own message (it says what to do)."""
    body = response.json() if response.content else {}
    if response.status_code >= 400:
        request = response.request
        raise RuntimeError(f"the gateway refused {request.method} {request.url.path} ({response.status_code}): "
                           f"{body.get('error', body)}")
    return body


async def control(config: EnvCraftTaskConfig, method: str, path: str, **kwargs: Any) -> Any:
    async with httpx.AsyncClient(**_client(config)) as http:
        return _answer(await http.request(method, f"/control{path}", **kwargs))


class EnvCraftTask(Task[EnvCraftData, EnvCraftState, EnvCraftTaskConfig]):
    @property
    def key(self) -> str:
        return self.data.id or self.hash  # the EnvCraft task id: durable and unique

    async def setup(self, trace: Trace, runtime: Runtime) -> None:
        created = await control(self.config, "POST", "/groups", json={"task_id": self.data.id})
        trace.state.group, trace.state.urls = created["episode"], created["urls"]

    @reward(weight=1.0)
    async def envcraft(self, trace: Trace) -> float:
        """EnvCraft's grade of the episode's final state (0..1)."""
        if not trace.state.group:
            return 0.0
        try:
            graded = await control(self.config, "POST", f"/groups/{trace.state.group}/grade")
        finally:
            await control(self.config, "DELETE", f"/groups/{trace.state.group}")
        trace.info["envcraft"] = {"passed": graded["passed"], "checks": graded["checks"],
                                  "unfinished": graded.get("unfinished")}
        trace.record_metric("checks_passed", float(sum(c["passed"] for c in graded["checks"])))
        return float(graded["reward"])


class EnvCraftTaskset(Taskset[EnvCraftTask, EnvCraftConfig]):
    def load(self) -> Iterator[EnvCraftTask]:
        config = self.config
        query = {"env": config.env, "split": config.split, **({"limit": config.limit} if config.limit else {})}
        with httpx.Client(**_client(config.task)) as http:  # load() is synchronous
            listed = _answer(http.get("/control/tasks", params=query))
        served = [t for t in listed if len(t["envs"]) == 1]
        if len(served) < len(listed):
            logger.warning("envcraft: %d of %d %s tasks left out (several environments)",
                           len(listed) - len(served), len(listed), config.env)
        for shown in served:
            yield EnvCraftTask(EnvCraftData(id=shown["task_id"], name=shown["task_id"], prompt=shown["turns"][0],
                                            system_prompt=shown["system_prompt"], envs=shown["envs"],
                                            turns=shown["turns"]), config.task)


class EnvCraftHarness(NullHarness):
    """verifiers' chat program, given the episode's MCP server unnamed, so its tools keep the names the
    rendering (and every other consumer) shows."""

    async def launch(self, ctx: ModelContext, trace: Trace, runtime: Runtime, endpoint: str, secret: str,
                     mcp_urls: dict[str, str], data: TaskData, tool_interception_url: str | None = None,
                     ) -> ProgramResult:
        [url] = trace.state.urls.values()  # the listing serves one environment's tasks
        return await super().launch(ctx, trace, runtime, endpoint, secret, {**mcp_urls, "": url}, data,
                                    tool_interception_url)


class EnvCraftEnv(SingleAgentEnv):
    """verifiers' single-agent env, with a task's later user turns sent one by one after the agent's answer."""

    async def run(self, task: EnvCraftTask, agents: Agents) -> None:
        if len(task.data.turns) == 1:
            await agents.agent.run(task)
            return
        async with agents.agent.interaction(task) as conversation:
            answered = await conversation.turn()  # the prompt, the first user turn, opens
            for turn in task.data.turns[1:]:
                if answered.terminated:  # the run ended (a limit, an error): the later turns go unsent
                    return
                answered = await conversation.turn(turn)
