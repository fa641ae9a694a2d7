"""OpenEnv: every EnvCraft task served as an OpenEnv environment.

Infrastructure side (what trainers and the OpenEnv server call): `reset(task_id=...)` starts an
episode of that task, `step(action)`, `state`. Agent side (RFC 003, MCP through step):
`ListToolsAction` lists the episode's tools, `CallToolAction` calls one. Reset, grading and
deletion are never tools. When the agent calls `finish` the episode is graded from outside the
agent's reach: that observation is `done` and carries the reward. With a gateway farm the reset
observation also names each environment's MCP URL, for agents that speak MCP directly.

OpenEnv's own MCP path (`/mcp`, JSON-RPC tools/list and tools/call, which MCPToolClient uses in
production mode, and the `mcp` message on `/ws`) reaches the same episode through `mcp_client`, the
attribute OpenEnv's handler calls. A `/ws` session's MCP calls go to the episode its reset started;
an app serving one task (`openenv_app(task_id=...)`) starts that task's episode on a session's first
MCP call, so an MCP-only client needs no reset.

    app = openenv_app()                               # a FastAPI app: /ws, /reset, /step, /state, /mcp
    async with MCPToolClient(base_url=URL) as env:    # OpenEnv's own client
        await env.reset(task_id="office-001")
        await env.call_tool("list_dir")
"""

from __future__ import annotations

import uuid
from typing import Any

import anyio.to_thread
from envcraft.core.extras import require
from envcraft.harness.adapters.sync_farm import shared_farm
from pydantic import model_serializer

require("openenv.core.env_server", "trainers", "the OpenEnv adapter")  # named with its install line if missing
from openenv.core.env_server.interfaces import Environment  # noqa: E402
from openenv.core.env_server.mcp_types import (  # noqa: E402
    CallToolAction,
    CallToolObservation,
    ListToolsAction,
    ListToolsObservation,
    Tool,
    ToolError,
    ToolErrorType,
)
from openenv.core.env_server.types import Action, EnvironmentMetadata, Observation, State  # noqa: E402


class TaskObservation(Observation):
    """What reset returns: the task's user turns, its tools (OpenEnv's MCPToolClient reads these as a tool
    listing), the system prompt (the episode's rendering, core/rendering.py) and, on a gateway farm, each
    environment's MCP URL. `metadata` repeats the task as the instruction (the first user turn), the turns
    and the system prompt: the one field besides the tools that MCPToolClient keeps from a reset."""

    task_id: str
    turns: list[str]
    envs: list[str]
    tools: list[Tool]
    system_prompt: str
    mcp_urls: dict[str, str] = {}  # noqa: RUF012 - a pydantic field: each instance gets its own copy

    @model_serializer(mode="wrap")
    def _with_metadata(self, handler: Any) -> dict[str, Any]:
        """OpenEnv's serialize_observation excludes `metadata` from every observation it sends; a reset's is
        the task itself, so it goes on the wire regardless."""
        data = handler(self)
        data.setdefault("metadata", self.metadata)
        return data


def _tools(info: Any) -> list[Tool]:
    return [Tool(name=t["function"]["name"], description=t["function"]["description"],
                 input_schema=t["function"]["parameters"]) for t in info.tools]


class EnvCraftEnvironment(Environment):
    """One OpenEnv session = one EnvCraft episode at a time (a new reset ends the previous one)."""

    SUPPORTS_CONCURRENT_SESSIONS = True  # each session has its own episode, workspace and server binding

    def __init__(self, gateway_url: str | None = None, token: str | None = None, farm: Any = None,
                 task_id: str | None = None):
        super().__init__()
        self.farm = farm or shared_farm(gateway_url, token)
        self.task_id = task_id  # the one task this environment serves, if the app was built for one
        self.info = None
        self._state = State(episode_id=None, step_count=0)
        self.done = False
        self.mcp_client = EpisodeMCP(self)

    def reset(self, seed: int | None = None, episode_id: str | None = None, task_id: str | None = None,
              **kwargs: Any) -> Observation:
        task_id = task_id or self.task_id
        if not task_id:
            raise ValueError("reset needs task_id: the EnvCraft task to start (e.g. reset(task_id='office-001'))")
        self.close()
        self.info = self.farm.create(task_id)
        self.done = False
        self._state = State(episode_id=episode_id or self.info.id, step_count=0, task_id=task_id)
        shown = self.info.rendering()
        return TaskObservation(task_id=task_id, turns=shown.turns, envs=self.info.envs, tools=_tools(self.info),
                               system_prompt=shown.system, mcp_urls=self.info.urls, metadata={
                                   "task_id": task_id, "instruction": shown.turns[0], "turns": shown.turns,
                                   "system_prompt": shown.system, "envs": self.info.envs})

    def step(self, action: Action, timeout_s: float | None = None, **kwargs: Any) -> Observation:
        if self.info is None:
            raise ValueError("call reset(task_id=...) before step")
        self._state.step_count += 1
        if isinstance(action, ListToolsAction):
            return ListToolsObservation(tools=_tools(self.info))
        if not isinstance(action, CallToolAction):
            raise ValueError(f"EnvCraft environments take list_tools and call_tool actions, not {type(action).__name__}")
        return self.call(action.tool_name, action.arguments)

    def call(self, name: str, arguments: dict[str, Any]) -> CallToolObservation:
        """One tool call on the episode, from step or from MCP; `finish` grades it."""
        action = CallToolAction(tool_name=name, arguments=arguments)
        if self.done:
            return CallToolObservation(tool_name=action.tool_name, done=True, reward=self._state.reward, error=ToolError(
                error_type=ToolErrorType.EXECUTION_ERROR, message="the episode is over: reset for a new one"))
        reply = self.farm.call_tool(self.info.id, action.tool_name, action.arguments)
        error = ToolError(error_type=ToolErrorType.EXECUTION_ERROR, message=reply.text) if reply.is_error else None
        if action.tool_name == self.info.tool_name(None, "finish") and not reply.is_error:
            grade = self.farm.grade(self.info.id)
            self.done, self._state.reward = True, grade.reward
            return CallToolObservation(tool_name=action.tool_name, result=reply.text, done=True, reward=grade.reward,
                                       metadata={"passed": grade.passed,
                                                 "checks": [c.model_dump() for c in grade.checks]})
        return CallToolObservation(tool_name=action.tool_name, result=reply.text, error=error, reward=0.0)

    @property
    def state(self) -> State:
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        return EnvironmentMetadata(name="envcraft", version="1", description=(
            "EnvCraft tasks: stateful MCP tool environments graded on their final state; reset(task_id=...)"))

    def close(self) -> None:
        if self.info is not None:
            self.farm.delete(self.info.id)
            self.info = None


class EpisodeMCP:
    """What OpenEnv's `/mcp` handler calls as the environment's MCP client (is_connected, list_tools,
    call_tool): the farm's tools of this session's episode. A tool error is raised, as FastMCP's client
    raises it, so OpenEnv answers a JSON-RPC error; `finish`'s grade rides in the result's `_meta`."""

    def __init__(self, env: EnvCraftEnvironment):
        self.env = env

    async def __aenter__(self) -> EpisodeMCP:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        return None

    def is_connected(self) -> bool:
        return True  # nothing to open: the farm is reached through the environment

    def _episode(self) -> Any:
        if self.env.info is None:
            if not self.env.task_id:
                raise ValueError("no episode in this session: reset(task_id=...) it first, or serve one task "
                                 "with openenv_app(task_id=...)")
            self.env.reset()
        return self.env.info

    async def list_tools(self) -> list[Tool]:
        return _tools(await anyio.to_thread.run_sync(self._episode))

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        def call() -> CallToolObservation:
            self._episode()
            return self.env.call(name, arguments or {})

        seen = await anyio.to_thread.run_sync(call)
        if seen.error is not None:
            raise RuntimeError(seen.error.message)
        meta = {"envcraft/done": True, "envcraft/reward": seen.reward, **seen.metadata} if seen.done else {}
        return {"content": [{"type": "text", "text": seen.result}], "isError": False, "data": seen.result,
                "_meta": meta}


def openenv_app(gateway_url: str | None = None, token: str | None = None, max_sessions: int = 64,
                farm: Any = None, task_id: str | None = None) -> Any:
    """The OpenEnv HTTP/WebSocket server app for every task (in-process farm, a gateway's, or `farm`);
    with `task_id`, for that one task (reset needs no task_id, and MCP alone starts an episode)."""
    from openenv.core.env_server.http_server import create_fastapi_app

    def factory() -> EnvCraftEnvironment:
        return EnvCraftEnvironment(gateway_url, token, farm=farm, task_id=task_id)

    factory.__name__ = f"envcraft-{uuid.uuid4().hex[:6]}"
    return create_fastapi_app(factory, CallToolAction, CallToolObservation, max_concurrent_envs=max_sessions)
