"""One task, every consumer: the system prompt, user turns and tools each one shows a model are byte-identical.

The consumers, each driven as its users drive it: the claw agent (the real openai client over HTTP
against the scripted stand-in model, harness/scripted_model.py), the SFT, verl and SkyRL exports
(`envcraft export` on a real run folder), SkyRL's `init()`, OpenEnv's own `MCPToolClient.reset()`, and
the gateway's create response.
"""

from __future__ import annotations

import json

import httpx2
import pytest
from envcraft.core.rendering import tools_text
from envcraft.core.tasks import TASKS_DIR, iter_tasks, task_file, write_tasks
from envcraft.harness.agents.claw import ClawAgent
from envcraft.harness.episode import EpisodeBudget
from envcraft.harness.export import export
from envcraft.harness.farm_local import LocalFarm
from envcraft.harness.runner import RolloutLog, run_episode
from envcraft.harness.scripted_model import Script, build_app, serving

pytestmark = pytest.mark.slow  # servers, subprocesses or whole runs: out of the fast lane

pytest.importorskip("skyrl_gym", reason="install the [trainers] extra: pip install 'envcraft[trainers]'")
pytest.importorskip("openenv.core", reason="install the [trainers] extra: pip install 'envcraft[trainers]'")

TOKEN = "parity-token"


def catalog_task():
    """A scenario environment's one-environment task (a single episode and a group then show the same thing): its
    server instructions carry the scenario, "Today is ..." and rules."""
    return next(t for t in iter_tasks(task_file("field_crew_dispatch", TASKS_DIR)) if len(t.envs) == 1)


def openai_form(tool) -> dict:
    """An OpenEnv tool as the OpenAI function tool it was made from."""
    return {"type": "function", "function": {"name": tool.name, "description": tool.description,
                                             "parameters": tool.input_schema}}


@pytest.fixture(scope="module")
def shown(tmp_path_factory):
    """What every consumer showed a model for the same task: {consumer: (system, turns, tools)}."""
    import anyio

    task = catalog_task()
    folder = tmp_path_factory.mktemp("parity")
    write_tasks(folder / "tasks" / f"{task.envs[0]}.jsonl", [task])
    seen: dict[str, tuple[str, list[str], list[dict]]] = {}

    async def claw():
        with serving(build_app(Script.from_tasks([task]))) as url:
            agent = ClawAgent(base_url=url, api_key="test", model="scripted")
            async with LocalFarm(tasks_dir=folder / "tasks") as farm:
                return await run_episode(task, agent, farm, EpisodeBudget(), "parity")

    rollout = anyio.run(claw)
    assert rollout.failure is None and rollout.reward == 1.0, (rollout.failure, rollout.checks)
    system, user = rollout.messages[0], rollout.messages[1]
    assert system["role"] == "system" and user["role"] == "user"
    seen["claw"] = (system["content"], [user["content"]], rollout.tools)

    RolloutLog(folder / "run" / "rollouts.jsonl").append(rollout)
    for fmt in ("sft", "verl", "skyrl"):
        export(folder / "run", fmt, folder / f"{fmt}.jsonl", tasks_dir=folder / "tasks")
    [sft] = [json.loads(line) for line in (folder / "sft.jsonl").read_text().splitlines()]
    seen["sft"] = (sft["messages"][0]["content"], [sft["messages"][1]["content"]], json.loads(sft["tools"]))
    [verl] = [json.loads(line) for line in (folder / "verl.jsonl").read_text().splitlines()]
    seen["verl"] = (verl["prompt"][0]["content"], [verl["prompt"][1]["content"]],
                    json.loads(verl["extra_info"]["tools"]))
    [skyrl] = [json.loads(line) for line in (folder / "skyrl.jsonl").read_text().splitlines()]
    seen["skyrl-row"] = skyrl

    import skyrl_gym
    from envcraft.harness.adapters.skyrl_env import register_env
    from envcraft.harness.adapters.sync_farm import close_shared

    env = skyrl_gym.make(register_env(), env_config={"tasks_dir": str(folder / "tasks")},
                         extras={"task_id": task.id})
    prompt, info = env.init()
    env.close()
    close_shared()  # the in-process farm SkyRL's env opened, with its grading processes
    seen["skyrl-init"] = {"prompt": prompt, "tools": info["tools"]}

    from envcraft.harness.adapters.openenv_env import openenv_app
    from envcraft.harness.adapters.sync_farm import SyncFarm
    from openenv.core.mcp_client import MCPToolClient

    async def openenv():
        farm = SyncFarm(tasks_dir=folder / "tasks")
        try:
            with serving(openenv_app(farm=farm)) as url:
                async with MCPToolClient(base_url=url.removesuffix("/v1")) as client:
                    return (await client.reset(task_id=task.id)).observation
        finally:
            farm.close()

    observation = anyio.run(openenv)
    seen["openenv"] = (observation.metadata["system_prompt"], observation.metadata["turns"],
                       [openai_form(tool) for tool in observation.tools])
    seen["openenv-instruction"] = observation.metadata["instruction"]

    async def gateway():
        from envcraft.registry.gateway import Gateway
        from envcraft.registry.workspaces import WorkspaceRoot

        served = Gateway(TOKEN, root=WorkspaceRoot(folder / "ws"), tasks_dir=folder / "tasks")
        async with served.running(), httpx2.AsyncClient(transport=httpx2.ASGITransport(app=served),
                                                        base_url="http://127.0.0.1") as http:
            headers = {"Authorization": f"Bearer {TOKEN}"}
            single = await http.post("/control/episodes", json={"env": task.envs[0], "task_id": task.id},
                                     headers=headers)
            group = await http.post("/control/groups", json={"task_id": task.id}, headers=headers)
            return single.json(), group.json()

    single, group = anyio.run(gateway)
    seen["gateway-episode"] = (single["system_prompt"], single["turns"], single["tools"])
    seen["gateway-group"] = (group["system_prompt"], group["turns"], group["tools"])
    return task, seen


CONSUMERS = ["sft", "verl", "openenv", "gateway-episode", "gateway-group"]


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_each_consumer_shows_what_the_claw_agent_is_shown(shown, consumer):
    task, seen = shown
    system, turns, tools = seen["claw"]
    assert "Today is" in system and "SKILL.md" in system and turns == task.turns[:1]  # the server's instructions
    theirs = seen[consumer]
    assert theirs[0] == system  # byte for byte
    assert theirs[1][: len(turns)] == turns
    assert json.dumps(theirs[2], sort_keys=True) == json.dumps(tools, sort_keys=True)


def test_skyrl_rows_and_init_show_the_same_prompt_with_the_tools_written_out(shown):
    _, seen = shown
    system, turns, tools = seen["claw"]
    row, init = seen["skyrl-row"], seen["skyrl-init"]
    assert row["prompt"] == init["prompt"]  # an exported row's prompt is what init() builds
    assert row["prompt"][0]["content"] == system + "\n\n" + tools_text(tools)  # SkyRL templates without tools
    assert row["prompt"][1] == {"role": "user", "content": turns[0]}
    assert init["tools"] == tools and json.loads(row["extra_info"]["tools"]) == tools


def test_openenv_reset_carries_the_instruction(shown):
    task, seen = shown
    assert seen["openenv-instruction"] == task.turns[0]
