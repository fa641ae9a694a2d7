"""inspect_ai: EnvCraft tasks as one inspect task, registered through inspect's entry points.

    inspect eval envcraft/inspect -T env=office -T split=test -T limit=5 --model openai/gpt-4.1
    inspect eval envcraft/inspect -T gateway_url=http://HOST:8765 ...   # token: ENVCRAFT_GATEWAY_TOKEN
    inspect eval envcraft/inspect -T bench=bfcl-multi-turn -T category=multi_turn_base -T limit=5 ...

Each sample is a task. The solver opens the task's episode and shows the model its rendering
(core/rendering.py: the system prompt, the user turns one by one, the tools), each tool a call on
the episode through the episode API; the scorer is our grade (reward 0..1), with the check
breakdown in the score's metadata (a foreign benchmark's own verdict too), and ends the episode. Each user
turn is opened on the episode first, so a benchmark whose turns offer new tools (BFCL's missing-function
turns) shows the model each turn's tools. The bridge goes through the farm rather
than inspect's own MCP client: that client is written against mcp 1.x, and a farm episode spans
several servers (multi-environment tasks) under one grade.
"""

from __future__ import annotations

from typing import Any

import anyio.to_thread
from envcraft.core.extras import require
from envcraft.harness.adapters.sync_farm import SyncFarm, shared_farm
from envcraft.harness.client import EpisodeInfo

require("inspect_ai", "inspect", "the inspect_ai task")
from inspect_ai import Task, task  # noqa: E402
from inspect_ai.dataset import MemoryDataset, Sample  # noqa: E402
from inspect_ai.model import ChatMessageSystem, ChatMessageUser  # noqa: E402
from inspect_ai.scorer import Score, Target, mean, scorer  # noqa: E402
from inspect_ai.solver import Generate, TaskState, solver  # noqa: E402
from inspect_ai.tool import ToolDef, ToolError, ToolParams  # noqa: E402

EPISODE = "envcraft_episode"  # the sample store key holding the episode id


def _farm(gateway_url: str | None, tasks_dir: str | None) -> SyncFarm:
    from envcraft.registry.settings import Settings

    token = Settings.from_env().gateway_token if gateway_url else None
    if gateway_url and not token:
        raise ValueError("set ENVCRAFT_GATEWAY_TOKEN to the gateway's control token (printed when it starts)")
    return shared_farm(gateway_url, token, tasks_dir)


def episode_tool(farm: SyncFarm, info: EpisodeInfo, tool: dict[str, Any]) -> ToolDef:
    """One of the episode's tools as inspect calls it: a refused or malformed call is a ToolError the model reads."""
    function = tool["function"]

    async def call(**arguments: Any) -> str:
        reply = await anyio.to_thread.run_sync(farm.call_tool, info.id, function["name"], arguments)
        if reply.is_error:
            raise ToolError(reply.text)
        return reply.text

    schema = function["parameters"]
    properties = {name: {**spec, "description": spec.get("description") or spec.get("title") or name}
                  for name, spec in schema.get("properties", {}).items()}  # inspect refuses a parameter without one
    params = ToolParams(properties=properties, required=schema.get("required", []))
    return ToolDef(call, name=function["name"], description=function["description"] or function["name"],
                   parameters=params)


@solver
def episode(gateway_url: str | None = None, tasks_dir: str | None = None):
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        farm = _farm(gateway_url, tasks_dir)
        info = await anyio.to_thread.run_sync(farm.create, state.metadata["task_id"])
        state.store.set(EPISODE, info.id)
        shown = info.rendering()
        state.messages = [ChatMessageSystem(content=shown.system)]
        for index, turn in enumerate(shown.turns):
            tools = await anyio.to_thread.run_sync(farm.begin_turn, info.id, index)
            state.tools = [episode_tool(farm, info, tool) for tool in tools]
            state.messages.append(ChatMessageUser(content=turn))
            state = await generate(state, tool_calls="loop")
        return state

    return solve


@scorer(metrics=[mean()])
def grade(gateway_url: str | None = None, tasks_dir: str | None = None):
    async def score(state: TaskState, target: Target) -> Score:
        farm = _farm(gateway_url, tasks_dir)
        episode_id = state.store.get(EPISODE)
        if episode_id is None:
            return Score(value=0.0, explanation="the episode never started")
        try:
            result = await anyio.to_thread.run_sync(farm.grade, episode_id)
        finally:
            await anyio.to_thread.run_sync(farm.delete, episode_id)
        failed = [f"{c.kind} ({c.role}){': ' + c.note if c.note else ''}" for c in result.checks if not c.passed]
        return Score(value=result.reward, answer=None,
                     explanation="all checks passed" if result.passed else f"failed: {', '.join(failed)}",
                     metadata={"passed": result.passed, "checks": [c.model_dump() for c in result.checks],
                               "verdict": result.verdict.model_dump() if result.verdict else None})

    return score


@task(name="inspect")
def envcraft_inspect(env: str | None = None, split: str = "all", limit: int | None = None,
                     tasks_dir: str | None = None, gateway_url: str | None = None, bench: str | None = None,
                     category: str | None = None) -> Task:
    """EnvCraft tasks (`env`: one environment, default every one with tasks; `split`; `limit` per environment),
    or a foreign benchmark's (`bench`, e.g. bfcl-multi-turn; `category`; `limit` per category), as `envcraft run`
    takes them."""
    from envcraft.harness.run import RunSettings, load_run_tasks

    tasks = load_run_tasks(RunSettings(envs=[env] if env else None, split=split, limit=limit, tasks_dir=tasks_dir,
                                       bench=bench, category=category))
    samples = [Sample(id=t.id, input=t.turns[0], metadata={"task_id": t.id, "envs": t.envs, "split": t.split})
               for t in tasks]
    return Task(dataset=MemoryDataset(samples, name="envcraft"), solver=episode(gateway_url, tasks_dir),
                scorer=grade(gateway_url, tasks_dir))
