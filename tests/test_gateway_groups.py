"""Multi-environment episodes through the gateway, driven by the remote episode API."""

from __future__ import annotations

import pytest
from envcraft.harness.agents.policies import GoldReplayAgent, NoOpAgent
from envcraft.harness.farm_remote import RemoteFarm
from envcraft.harness.runner import RolloutLog, run_tasks
from mcp import Client

from tests.helpers import cross_task, gateway_process, shows_row

pytestmark = pytest.mark.slow  # a gateway of the whole catalog started for the module: not in the fast lane

TOKEN = "groups-test-token"


@pytest.fixture(scope="module")
def gateway():
    with gateway_process(TOKEN) as url:
        yield url


@pytest.mark.anyio
async def test_a_cross_environment_task_is_graded_one_with_gold_and_zero_with_noop(gateway, tmp_path):
    task = cross_task()
    log = RolloutLog(tmp_path / "rollouts.jsonl")
    async with RemoteFarm(gateway, TOKEN) as farm:
        [gold] = await run_tasks([task], GoldReplayAgent({task.id: task.gold}), None, log, run_id="r", farm=farm)
        [noop] = await run_tasks([task], NoOpAgent(), None, log, run_id="r", farm=farm)
    assert gold.failure is None and noop.failure is None, (gold.failure, noop.failure)
    assert gold.reward == 1.0 and noop.reward == 0.0  # with the first env's S0 in both, gold scored 0.5


@pytest.mark.anyio
async def test_each_environment_gets_its_own_initial_state(gateway):
    task = cross_task()
    first, second = task.envs
    async with RemoteFarm(gateway, TOKEN) as farm:
        info = await farm.create(task.id)
        assert set(info.urls) == {first, second} and all(url.startswith(gateway) for url in info.urls.values())
        for env, url in info.urls.items():  # each row of an environment's own S0 is in that environment
            rows = task.initial_for(env).rows
            assert rows, env
            async with Client(url) as agent:
                for table, added in rows.items():
                    for row in added:
                        assert await shows_row(agent, env, table, row), (env, table, row["id"])
        control = farm.control
        single = await control.request("POST", "/episodes", {"env": first, "task_id": task.id})
        refused = await control.http.post(f"/control/episodes/{single['episode']}/grade")
        assert refused.status_code == 400 and "/control/groups" in refused.json()["error"]
        await control.request("DELETE", f"/episodes/{single['episode']}")
        await farm.delete(info.id)


@pytest.mark.anyio
async def test_deleting_one_member_ends_the_whole_group(gateway):
    """Hole: deleting one member of a group left the other live (its MCP URL answering, its slot held) while the
    group answered 404. Members now live and die together."""
    from mcp import Client

    task = cross_task()
    first, second = task.envs
    async with RemoteFarm(gateway, TOKEN) as farm:
        control = farm.control
        live_before = (await control.request("GET", "/health"))["live"]
        info = await farm.create(task.id)
        members = (await control.http.get("/control/episodes")).json()
        ids = {e["env"]: e["episode"] for e in members if e["url"] in info.urls.values()}
        assert set(ids) == {first, second}
        async with Client(info.urls[second]) as agent:
            assert (await agent.list_tools()).tools  # live before
        assert (await control.http.delete(f"/control/episodes/{ids[first]}")).status_code == 200
        with pytest.raises(Exception):  # noqa: B017 - whatever the client makes of the gateway's 404
            async with Client(info.urls[second]) as agent:
                await agent.list_tools()
        assert (await control.http.post(f"/control/episodes/{ids[second]}/grade")).status_code == 404
        assert (await control.http.post(f"/control/groups/{info.id}/grade")).status_code == 404
        assert (await control.request("GET", "/health"))["live"] == live_before
