"""OpenEnv, the real package: a task served as an OpenEnv environment, driven to a reward by OpenEnv's own client.

OpenEnv is imported inside the tests, not at the top: importing it takes seconds (it pulls in gradio), and
collecting the suite should not pay that."""

from __future__ import annotations

from importlib.util import find_spec

import pytest
from envcraft.core.tasks import write_tasks
from envcraft.harness.adapters.sync_farm import SyncFarm
from envcraft.harness.scripted_model import serving

from tests.helpers import mail_task

pytestmark = pytest.mark.skipif(find_spec("openenv") is None,
                                reason="install the [trainers] extra: pip install -e .[trainers]")


@pytest.fixture
def server(tmp_path):
    from envcraft.harness.adapters.openenv_env import openenv_app

    tasks = [mail_task(3), mail_task(4)]
    write_tasks(tmp_path / "office.jsonl", tasks)
    farm = SyncFarm(tasks_dir=tmp_path)
    with serving(openenv_app(farm=farm)) as url:
        yield url.removesuffix("/v1"), tasks, farm
    farm.close()


@pytest.mark.slow
@pytest.mark.anyio
async def test_openenv_client_drives_an_episode_to_its_reward(server):
    from openenv.core.env_server.mcp_types import CallToolAction, ListToolsAction
    from openenv.core.mcp_client import MCPToolClient

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


@pytest.mark.slow
@pytest.mark.anyio
async def test_openenv_mcp_endpoint_reaches_the_farm_tools_of_the_task_episode(tmp_path):
    """OpenEnv's production path: MCPToolClient over HTTP /mcp (JSON-RPC, its own session), no reset."""
    from envcraft.harness.adapters.openenv_env import openenv_app
    from openenv.core.mcp_client import MCPToolClient

    task = mail_task(5)
    write_tasks(tmp_path / "office.jsonl", [task])
    farm = SyncFarm(tasks_dir=tmp_path)
    try:
        with serving(openenv_app(farm=farm, task_id=task.id)) as url:
            async with MCPToolClient(base_url=url.removesuffix("/v1")) as env:
                env.use_production_mode = True
                names = {tool.name for tool in await env.list_tools()}
                assert {"mail_send", "finish", "contacts_search"} <= names and "grade" not in names
                [live] = farm.farm.live  # the MCP session started the task's episode
                found = await env.call_tool("contacts_search", **task.gold[0].arguments)
                assert task.gold[1].arguments["to"][0] in str(found)
                with pytest.raises(RuntimeError, match="mail_send"):  # a refused call is an MCP error
                    await env.call_tool("mail_send", to=[])
                await env.call_tool("mail_send", **task.gold[1].arguments)
                session = await env._ensure_production_session()
                done = await env._production_mcp_request(
                    "tools/call", {"name": "finish", "arguments": {"answer": "sent"}, "session_id": session})
                assert done["result"]["_meta"]["envcraft/reward"] == 1.0  # graded on the episode MCP acted on
                with pytest.raises(RuntimeError, match="episode is over"):
                    await env.call_tool("contacts_search", **task.gold[0].arguments)
                assert list(farm.farm.live) == [live]
            assert farm.farm.live == {}  # closing the MCP session deleted its episode
    finally:
        farm.close()


@pytest.mark.slow
@pytest.mark.anyio
async def test_openenv_mcp_message_on_a_reset_session_reaches_that_episode(server):
    from openenv.core.env_server.mcp_types import CallToolAction
    from openenv.core.mcp_client import MCPToolClient

    url, tasks, _ = server
    async with MCPToolClient(base_url=url) as env:
        await env.reset(task_id=tasks[0].id)

        async def mcp(method: str, params: dict) -> dict:
            reply = await env._send_and_receive({"type": "mcp", "data": {"jsonrpc": "2.0", "id": 1,
                                                                         "method": method, "params": params}})
            return reply["data"]

        listed = await mcp("tools/list", {})
        assert "mail_send" in {t["name"] for t in listed["result"]["tools"]}
        found = await mcp("tools/call", {"name": "contacts_search", "arguments": tasks[0].gold[0].arguments})
        assert tasks[0].gold[1].arguments["to"][0] in found["result"]["data"]
        await mcp("tools/call", {"name": "mail_send", "arguments": tasks[0].gold[1].arguments})
        last = await env.step(CallToolAction(tool_name="finish", arguments={"answer": "sent"}))
        assert last.done and last.reward == 1.0  # the MCP-sent mail was in the episode the step graded
    async with MCPToolClient(base_url=url) as env:  # the all-tasks app: MCP before any reset is refused
        env.use_production_mode = True
        session = await env._ensure_production_session()
        refused = await env._production_mcp_request("tools/list", {"session_id": session})
        assert "reset(task_id=...)" in refused["error"]["message"]
