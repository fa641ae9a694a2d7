"""verl: a tool class for verl's tool agent loop that runs every call in the trajectory's own episode on
a gateway, and grades the episode through the control API when the policy calls `finish`.

verl creates, executes and releases a tool instance per call, so the episode is keyed by the
trajectory (`agent_data.request_id`) and bound to its task by the dataset row's
`extra_info.tools_kwargs.envcraft.create_kwargs.task_id` (`envcraft export --format verl`). The
graded reward is the `finish` call's step reward; `compute_score` (verl_reward.py) returns it.

verl needs torch and is not a dependency: this class subclasses verl's BaseTool when verl is
importable and is a plain class otherwise (the tests drive it against a live gateway that way).
"""

from __future__ import annotations

import os
from typing import Any, ClassVar
from uuid import uuid4

import anyio
import anyio.to_thread
from envcraft.harness.adapters.sync_farm import SyncFarm, shared_farm

try:  # pragma: no cover - verl is not installable here (torch)
    from verl.tools.base_tool import BaseTool
    from verl.tools.schemas import ToolResponse
except ImportError:  # the same shapes, so the class works and is tested without verl
    BaseTool = object

    class ToolResponse:  # type: ignore[no-redef]
        def __init__(self, text: str | None = None, **_: Any):
            self.text = text

BINDING = "envcraft"  # the one tools_kwargs key every row carries (one schema for the whole parquet)


class _Trajectories:
    """Per process: the gateway farm and each trajectory's episode."""

    episodes: ClassVar[dict[str, str]] = {}  # request_id -> episode id
    finished: ClassVar[dict[str, float]] = {}  # request_id -> graded reward
    locks: ClassVar[dict[str, anyio.Lock]] = {}  # one creation per trajectory, even with parallel tool calls


class EnvCraftTool(BaseTool):
    """One of an episode's tools (its OpenAI schema comes from the exported tool config)."""

    def __init__(self, config: dict, tool_schema: Any):
        self.config = dict(config or {})
        self.tool_schema = tool_schema
        function = tool_schema.function if hasattr(tool_schema, "function") else tool_schema["function"]
        self.name = function.name if hasattr(function, "name") else function["name"]
        self.gateway_url = self.config.get("gateway_url") or os.environ.get("ENVCRAFT_GATEWAY_URL")
        self.token = os.environ.get(self.config.get("token_env", "ENVCRAFT_GATEWAY_TOKEN"))
        if not self.gateway_url or not self.token:
            raise ValueError("EnvCraftTool needs config.gateway_url (or ENVCRAFT_GATEWAY_URL) and the control token "
                             "in the variable named by config.token_env (default ENVCRAFT_GATEWAY_TOKEN)")

    def get_openai_tool_schema(self) -> Any:
        return self.tool_schema

    def _farm(self) -> SyncFarm:
        # The farm lives in its own thread and loop: verl calls tools from short-lived tasks, and a farm's
        # connections must be entered and left in one task.
        return shared_farm(self.gateway_url, self.token)

    async def _run(self, fn: Any, *args: Any) -> Any:
        return await anyio.to_thread.run_sync(fn, *args)

    async def create(self, instance_id: str | None = None, **kwargs: Any) -> tuple[str, Any]:
        return instance_id or str(uuid4()), ToolResponse()

    async def execute(self, instance_id: str, parameters: dict[str, Any], **kwargs: Any) -> tuple[Any, float, dict]:
        agent_data = kwargs.get("agent_data")
        key = getattr(agent_data, "request_id", None) or instance_id
        if key in _Trajectories.finished:
            return ToolResponse(text="the task is finished: no more tool calls"), 0.0, {}
        farm = self._farm()
        async with _Trajectories.locks.setdefault(key, anyio.Lock()):
            if key not in _Trajectories.episodes:
                binding = (getattr(agent_data, "tools_kwargs", None) or {}).get(BINDING) or {}
                task_id = (binding.get("create_kwargs") or {}).get("task_id")
                if not task_id:
                    return ToolResponse(text="this trajectory has no EnvCraft task binding"), 0.0, {"error": "unbound"}
                _Trajectories.episodes[key] = (await self._run(farm.create, task_id)).id
        episode = _Trajectories.episodes[key]
        reply = await self._run(farm.call_tool, episode, self.name, parameters)
        if self.name == "finish" and not reply.is_error:
            grade = await self._run(farm.grade, episode)
            _Trajectories.finished[key] = grade.reward
            await self._run(farm.delete, _Trajectories.episodes.pop(key))
            return ToolResponse(text=reply.text), grade.reward, {"passed": grade.passed}
        return ToolResponse(text=reply.text), 0.0, {}

    async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
        return 0.0

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        return None  # the episode lives as long as its trajectory, not one call
