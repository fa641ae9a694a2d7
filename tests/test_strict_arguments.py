"""A tool refuses an argument it does not declare, and every other misfit of its arguments, over real MCP.

An unknown filter used to be dropped silently: scooter_search(name="X") listed every scooter, which a careful
agent reads as "X matches everything". Now the call is refused with the unknown name and the accepted ones,
nothing is written (the app state's bytes are compared), and the input schema says `additionalProperties:
false`. The stdio tests run `python server.py` as a child process; the gateway test goes over HTTP.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from envcraft.core.tasks import TASKS_DIR, iter_tasks, task_file, write_tasks
from envcraft.harness.episode import Episode
from envcraft.harness.farm_local import LocalFarm
from envcraft.registry.catalog import get
from envcraft.registry.launch import InProcessLauncher, StdioLauncher, launch, load_server_module
from envcraft.registry.workspaces import WorkspaceRoot
from envcraft_runtime.tool_cache import ToolSpec, register
from mcp import Client
from mcp.server import MCPServer
from typing_extensions import TypedDict

from tests.helpers import REPO, free_port, mail_task, wait_for_port

pytestmark = pytest.mark.anyio


def _state(workspace: Path) -> bytes:
    return (workspace / ".app" / "state.json").read_bytes()


def _text(result) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def _writing_task(env):
    """A one-environment task of the committed store whose gold makes a domain write."""
    writes = {op.__name__ for op in load_server_module(env).app.OPERATIONS if op.writes}
    return next(t for t in iter_tasks(task_file(env.name, TASKS_DIR))
                if t.envs == [env.name] and any(call.tool in writes for call in t.gold))


async def test_an_unknown_argument_is_refused_on_a_search_and_a_write_over_stdio(tmp_path):
    """Generated environment, `python server.py` over stdio: an unknown filter on a search and an unknown argument
    on a write are refused, naming the argument and the accepted ones; the write's state is unchanged, and the
    same write without the extra argument then succeeds (so the refused call would have written)."""
    env = get("scooter_share_ops")
    task = _writing_task(env)
    async with launch(env, StdioLauncher(), WorkspaceRoot(tmp_path), task.initial_for(env.name)) as instance:
        tools = {tool.name: tool for tool in (await instance.client.list_tools()).tools}
        assert all(tool.input_schema.get("additionalProperties") is False for tool in tools.values()), \
            [name for name, tool in tools.items() if tool.input_schema.get("additionalProperties") is not False]

        search = tools["scooter_search"].input_schema["properties"]
        assert "name" not in search
        before = _state(instance.workspace)
        refused = await instance.client.call_tool("scooter_search", {"name": "no such scooter"})
        assert refused.is_error and "'name'" in _text(refused), _text(refused)
        assert all(field in _text(refused) for field in search), _text(refused)
        assert not refused.structured_content  # no rows came back

        writes = 0
        for call in task.gold:
            tool = tools[call.tool]
            if not tool.annotations.read_only_hint and call.tool not in ("finish", "write_file", "edit_file"):
                before = _state(instance.workspace)
                refused = await instance.client.call_tool(call.tool, {**call.arguments, "reason": "as asked"})
                assert refused.is_error and "no argument 'reason'" in _text(refused), _text(refused)
                assert _state(instance.workspace) == before, f"a refused {call.tool} changed the app state"
                writes += 1
            done = await instance.client.call_tool(call.tool, call.arguments)
            assert not done.is_error, (call.tool, _text(done))
        assert writes and _state(instance.workspace) != _state(get(env.name).seed), "the gold wrote nothing"


async def test_wrong_types_missing_and_null_arguments_are_named_and_write_nothing(tmp_path):
    """office over stdio: each misfit is refused naming the argument, and the mail table is unchanged."""
    async with launch(get("office"), StdioLauncher(), WorkspaceRoot(tmp_path)) as instance:
        before = _state(instance.workspace)
        good = {"to": ["priya.shah@northwind.studio"], "subject": "hi", "body": "on track"}
        cases = [({**good, "bcc": ["x@example.com"]}, "no argument 'bcc'"),
                 ({**good, "to": "priya.shah@northwind.studio, x@example.com"}, "argument 'to'"),
                 ({"to": good["to"], "subject": "hi"}, "argument 'body' is required"),
                 ({**good, "subject": None}, "argument 'subject' is null"),
                 ({**good, "to": [{"address": "priya.shah@northwind.studio"}]}, "argument 'to[0]'")]
        for arguments, expected in cases:
            result = await instance.client.call_tool("mail_send", arguments)
            assert result.is_error and expected in _text(result), (arguments, _text(result))
            assert "it takes: to, subject, body, cc, in_reply_to" in _text(result), _text(result)
        limit = await instance.client.call_tool("read_file", {"path": "SKILL.md", "limit": "ten"})
        assert limit.is_error and "argument 'limit' is 'ten'" in _text(limit), _text(limit)
        assert _state(instance.workspace) == before
        assert not (await instance.client.call_tool("mail_send", good)).is_error  # the honest call still works
        assert _state(instance.workspace) != before


class Point(TypedDict):
    x: int
    y: int


async def place(point: Point, label: str = "") -> str:  # async, as every tool the adapter registers
    """Place a point."""
    return f"{point['x']},{point['y']} {label}"


async def test_extra_keys_inside_an_object_argument_are_refused(tmp_path, monkeypatch):
    """No tool of ours takes an object today; the runtime refuses unknown keys inside one all the same."""
    monkeypatch.setenv("ENVCRAFT_CACHE_DIR", str(tmp_path / "cache"))
    for how in ("derived", "cached"):  # schemas derived now, then read from the cache
        server = MCPServer("toy")
        assert register(server, tmp_path, [ToolSpec(place, read_only=True)]) == how
        async with Client(server) as client:
            schema = (await client.list_tools()).tools[0].input_schema
            assert schema["additionalProperties"] is False
            result = await client.call_tool("place", {"point": {"x": 1, "y": 2, "z": 3}})
            assert result.is_error and "'point.z' is not a key it takes" in _text(result), _text(result)
            assert not (await client.call_tool("place", {"point": {"x": 1, "y": 2}})).is_error
            # a flood of long unknown names gets a short refusal that counts them, not an echo of them
            flood = await client.call_tool("place", {"point": {"x": 1, "y": 2}, **{f"{i:04d}" + "k" * 2000: 1
                                                                                     for i in range(500)}})
            assert flood.is_error and "and 495 more" in _text(flood) and len(_text(flood)) < 1000, _text(flood)[:300]


async def test_a_refused_call_is_logged_as_a_call_and_is_not_a_sandbox_failure(tmp_path):
    """Through the farm the harness uses: a run_shell call with a misspelt argument, an empty command or one past
    the length cap is the agent's mistake, read as an error reply, never a SandboxFailure that would end the
    episode as the infrastructure's fault."""
    task = mail_task(0)
    write_tasks(tmp_path / "office.jsonl", [task])
    async with LocalFarm(InProcessLauncher(), tasks_dir=tmp_path) as farm:
        info = await farm.create(task.id)
        episode = Episode(info, farm)
        [reply] = await episode.act([("call_0", "run_shell", {"cmd": "touch made.txt"})])
        assert reply.is_error and "no argument 'cmd'" in reply.text and "command" in reply.text, reply.text
        assert episode.messages[-1] == {"role": "tool", "tool_call_id": "call_0", "content": reply.text}
        assert len(episode.tool_seconds) == 1  # counted as a call
        listing = await farm.call_tool(info.id, "list_dir", {})
        assert "made.txt" not in listing.text
        for command, expected in (("", "the command is empty"), ("x" * 200_000, "the limit is")):  # the shell's own
            reply = await farm.call_tool(info.id, "run_shell", {"command": command})
            assert reply.is_error and expected in reply.text, reply.text[:200]
        await farm.delete(info.id)


@pytest.mark.slow
async def test_an_unknown_argument_is_refused_through_the_gateway(tmp_path):
    """`envcraft serve --all`, MCP over HTTP: the refused send leaves no state diff; the honest one then does."""
    import httpx2

    task = mail_task(0)
    write_tasks(tmp_path / "office.jsonl", [task])
    port, token = free_port(), "strict-arguments-token"
    process = subprocess.Popen([sys.executable, "-m", "envcraft.cli", "serve", "--all", "--port", str(port),
                                "--token", token, "--max-episodes", "2", "--tasks-dir", str(tmp_path)], cwd=REPO,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for_port(port, timeout=120)
        send = next(call for call in task.gold if call.tool == "mail_send")
        async with httpx2.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60,
                                      headers={"Authorization": f"Bearer {token}"}) as http:
            created = (await http.post("/control/episodes", json={"env": "office", "task_id": task.id})).json()
            grade = f"/control/episodes/{created['episode']}/grade"
            async with Client(created["url"]) as agent:
                tools = (await agent.list_tools()).tools
                assert all(tool.input_schema.get("additionalProperties") is False for tool in tools)
                refused = await agent.call_tool("mail_send", {**send.arguments, "bcc": ["boss@example.com"]})
                assert refused.is_error and "no argument 'bcc'" in _text(refused), _text(refused)
                assert not any(diff["tables"] for diff in (await http.post(grade)).json()["state_diff"].values())
                assert not (await agent.call_tool("mail_send", send.arguments)).is_error
                assert any(diff["tables"] for diff in (await http.post(grade)).json()["state_diff"].values())
            await http.delete(f"/control/episodes/{created['episode']}")
    finally:
        process.terminate()
        process.wait(timeout=30)
