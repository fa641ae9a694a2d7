"""One grading step for both farms: the same gold through a real gateway (its control API, MCP over HTTP)
and in process gives the same grade and the same state_diff, single- and multi-environment."""

from __future__ import annotations

import subprocess
import sys

import anyio
import pytest
from envcraft.core.tasks import TASKS_DIR, iter_tasks, task_file, write_tasks
from envcraft.harness.agents.policies import GoldReplayAgent
from envcraft.harness.farm_local import LocalFarm
from envcraft.harness.farm_remote import RemoteFarm
from envcraft.harness.runner import RolloutLog, run_tasks

from tests.helpers import REPO, free_port, wait_for_port
from tests.test_gateway_groups import cross_task

pytestmark = pytest.mark.slow  # servers, subprocesses or whole runs: out of the fast lane

TOKEN = "state-diff-token"


def writing_task():
    """A scenario task whose gold creates, schedules and completes records."""
    return next(t for t in iter_tasks(task_file("field_crew_dispatch", TASKS_DIR))
                if len(t.envs) == 1 and any(c.tool == "crew_job_schedule" for c in t.gold))  # one env: one MCP url


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    folder = tmp_path_factory.mktemp("state-diff")
    chosen = [writing_task(), cross_task()]
    for task in chosen:
        write_tasks(folder / f"{task.id}.jsonl", [task])
    return folder, chosen


@pytest.fixture(scope="module")
def gateway(tasks):
    folder, _ = tasks
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "envcraft.cli", "serve", "--all", "--port", str(port),
                                "--token", TOKEN, "--tasks-dir", str(folder)], cwd=REPO,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    wait_for_port(port, timeout=120)
    yield f"http://127.0.0.1:{port}"
    process.terminate()
    process.wait(timeout=30)


async def run_gold(tasks, farm, log):
    async with farm:
        return await run_tasks(tasks, GoldReplayAgent({t.id: t.gold for t in tasks}), None, log, run_id="diff",
                               farm=farm)


def gold_rollouts(tasks, farm, log):
    return anyio.run(run_gold, tasks, farm, log)


def test_gateway_rollouts_carry_the_in_process_state_diff(tasks, gateway, tmp_path):
    folder, chosen = tasks
    local = gold_rollouts(chosen, LocalFarm(tasks_dir=folder), RolloutLog(tmp_path / "local.jsonl"))
    remote = gold_rollouts(chosen, RemoteFarm(gateway, TOKEN), RolloutLog(tmp_path / "remote.jsonl"))
    for here, there, task in zip(local, remote, chosen):
        assert here.failure is None and there.failure is None, (here.failure, there.failure)
        assert here.reward == there.reward == 1.0
        assert set(here.state_diff) == set(task.envs)
        assert any(diff.tables for diff in here.state_diff.values()), task.id  # the gold changed something
        assert {env: diff.model_dump() for env, diff in there.state_diff.items()} == \
               {env: diff.model_dump() for env, diff in here.state_diff.items()}, task.id


@pytest.mark.anyio
async def test_a_single_gateway_episode_grades_with_its_state_diff(tasks, gateway, tmp_path):
    """POST /control/episodes, the gold over MCP as any client would send it, POST .../grade: the diff is there."""
    import httpx2
    from mcp import Client

    folder, chosen = tasks
    task = chosen[0]
    [local] = await run_gold([task], LocalFarm(tasks_dir=folder), RolloutLog(tmp_path / "local.jsonl"))
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx2.AsyncClient(base_url=gateway, headers=headers, timeout=60) as http:
        created = (await http.post("/control/episodes", json={"env": task.envs[0], "task_id": task.id})).json()
        async with Client(created["url"]) as agent:
            for call in task.gold:
                assert not (await agent.call_tool(call.tool, call.arguments)).is_error, call.tool
        graded = (await http.post(f"/control/episodes/{created['episode']}/grade")).json()
        await http.delete(f"/control/episodes/{created['episode']}")
    assert graded["reward"] == 1.0
    assert graded["state_diff"] == {env: diff.model_dump(mode="json") for env, diff in local.state_diff.items()}
