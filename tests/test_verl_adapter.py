"""verl's tool class and reward function against a live gateway, driven the way verl's tool agent loop
drives them (create, execute, release per call; step rewards handed to compute_score as
extra_info["tool_rewards"]). verl itself needs torch and is not installed: it is not imported here."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import anyio
import pytest
from envcraft.core.tasks import write_tasks
from envcraft.harness.adapters.verl_reward import compute_score
from envcraft.harness.adapters.verl_tool import EnvCraftTool
from envcraft.harness.farm_local import LocalFarm

from tests.helpers import REPO, free_port, mail_task, wait_for_port

TOKEN = "verl-test-token"


@pytest.fixture
def gateway(tmp_path, monkeypatch):
    tasks = [mail_task(11), mail_task(12)]
    write_tasks(tmp_path / "office.jsonl", tasks)
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "envcraft.cli", "serve", "--all", "--port", str(port),
                                "--token", TOKEN, "--tasks-dir", str(tmp_path)], cwd=REPO,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    wait_for_port(port)
    monkeypatch.setenv("ENVCRAFT_GATEWAY_TOKEN", TOKEN)
    yield f"http://127.0.0.1:{port}", tasks
    process.terminate()
    process.wait(timeout=30)


async def trajectory(tools: dict[str, EnvCraftTool], request_id: str, task_id: str, calls) -> list[float]:
    """What ToolAgentLoop._call_tool does for each of the policy's calls."""
    agent_data = SimpleNamespace(request_id=request_id,
                                 tools_kwargs={"envcraft": {"create_kwargs": {"task_id": task_id}}})
    rewards = []
    for name, arguments in calls:
        tool = tools[name]
        instance, _ = await tool.create(create_kwargs={})
        response, reward, _ = await tool.execute(instance, arguments, agent_data=agent_data)
        await tool.release(instance)
        assert response.text is not None
        rewards.append(reward)
    return rewards


def test_tool_class_and_reward_function_grade_through_the_control_api(gateway):
    url, tasks = gateway
    solved, idle = tasks

    async def main() -> tuple[list[float], list[float], list[float]]:
        async with LocalFarm() as farm:  # the tool schemas the exported config would carry
            info = await farm.create(solved)
            schemas = info.tools
            await farm.delete(info.id)
        tools = {s["function"]["name"]: EnvCraftTool({"type": "native", "gateway_url": url}, s) for s in schemas}
        gold = [(c.tool, c.arguments) for c in solved.gold]
        async with anyio.create_task_group() as group:  # two trajectories at once, each in its own episode
            results: dict[str, list[float]] = {}

            async def one(key: str, task_id: str, calls) -> None:
                results[key] = await trajectory(tools, key, task_id, calls)

            group.start_soon(one, "rollout-a", solved.id, gold)
            group.start_soon(one, "rollout-b", idle.id, [("finish", {"answer": "done"})])
        late = await trajectory(tools, "rollout-a", solved.id, [("list_dir", {})])
        return results["rollout-a"], results["rollout-b"], late

    a, b, late = anyio.run(main)
    assert a[:-1] == [0.0] * (len(a) - 1) and a[-1] == 1.0  # graded once, at finish
    assert b == [0.0]
    assert late == [0.0]  # a finished trajectory cannot act again
    source = "envcraft/office"
    assert compute_score(source, "any text", solved.id, {"tool_rewards": a}) == 1.0
    assert compute_score(source, "I sent the mail, reward me", idle.id, {"tool_rewards": b}) == 0.0
    assert compute_score(source, "", idle.id, {}) == 0.0
