"""OpenEnv, the real package: a task served as an OpenEnv environment, driven to a reward by OpenEnv's own client."""

from __future__ import annotations

import pytest

pytest.importorskip("openenv.core", reason="install the [trainers] extra: pip install -e .[trainers]")

from envcraft.core.tasks import write_tasks
from envcraft.harness.adapters.openenv_env import openenv_app
from envcraft.harness.adapters.sync_farm import SyncFarm
from envcraft.harness.scripted_model import serving
from openenv.core.env_server.mcp_types import CallToolAction, ListToolsAction
from openenv.core.mcp_client import MCPToolClient

from tests.helpers import mail_task


@pytest.fixture
def server(tmp_path):
    tasks = [mail_task(3), mail_task(4)]
    write_tasks(tmp_path / "office.jsonl", tasks)
    farm = SyncFarm(tasks_dir=tmp_path)
    with serving(openenv_app(farm=farm)) as url:
        yield url.removesuffix("/v1"), tasks, farm
    farm.close()


@pytest.mark.anyio
async def test_openenv_client_drives_an_episode_to_its_reward(server):
    url, tasks, farm = server
    task = tasks[0]
    async with MCPToolClient(base_url=url) as env:
        reset = await env.reset(task_id=task.id)
        assert not reset.done and {t.name for t in reset.observation.tools} >= {"mail_send", "finish"}
        names = {tool.name for tool in (await env.step(ListToolsAction())).observation.tools}
        assert {"mail_send", "finish", "run_shell"} <= names
        assert not names & {"reset", "step", "state", "grade"}  # the control plane is never a tool
        found = await env.call_tool("contacts_search", **task.gold[0].arguments)
        assert task.gold[1].arguments["to"][0] in str(found)
        sent = await env.step(CallToolAction(tool_name="mail_send", arguments=task.gold[1].arguments))
        assert not sent.done and sent.reward == 0.0
        last = await env.step(CallToolAction(tool_name="finish", arguments={"answer": "sent"}))
        assert last.done and last.reward == 1.0
        assert (await env.state()).step_count == 4
        # a second episode in the same session, doing nothing, earns nothing
        await env.reset(task_id=tasks[1].id)
        idle = await env.step(CallToolAction(tool_name="finish", arguments={"answer": "done"}))
        assert idle.done and idle.reward == 0.0
    assert len(farm.farm.live) <= 1  # the first episode was deleted on reset
