"""The reference server as any MCP client sees it: the MCP Inspector CLI over stdio and HTTP."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from envcraft.registry.catalog import get
from envcraft.registry.launch import InProcessLauncher, launch
from envcraft.registry.workspaces import WorkspaceRoot, materialize
from mcp import Client

from tests.helpers import REPO, free_port, inspector, wait_for_port

SERVER = REPO / "servers" / "office" / "server.py"


@pytest.fixture
def workspace(tmp_path):
    folder = tmp_path / "ws"
    materialize(get("office").seed, folder)
    return folder


@pytest.mark.slow
def test_inspector_lists_and_calls_tools_over_stdio(workspace):
    listed = inspector(sys.executable, str(SERVER), "--workspace", str(workspace), "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    names = {tool["name"] for tool in json.loads(listed.stdout)["tools"]}
    assert {"read_file", "run_shell", "finish", "mail_search", "calendar_create"} <= names
    called = inspector(sys.executable, str(SERVER), "--workspace", str(workspace), "--method", "tools/call",
                       "--tool-name", "contacts_search", "--tool-arg", "query=design")
    assert called.returncode == 0, called.stderr
    reply = json.loads(called.stdout)
    assert reply["isError"] is False
    assert all("email" in row for row in reply["structuredContent"]["result"])


@pytest.mark.slow
def test_inspector_lists_and_calls_tools_over_http(workspace):
    port = free_port()
    server = subprocess.Popen([sys.executable, str(SERVER), "--workspace", str(workspace), "--http", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port)
        url = f"http://127.0.0.1:{port}/mcp"
        listed = inspector(url, "--transport", "http", "--method", "tools/list")
        assert listed.returncode == 0, listed.stderr
        assert len(json.loads(listed.stdout)["tools"]) == 22
        called = inspector(url, "--transport", "http", "--method", "tools/call", "--tool-name", "write_file",
                           "--tool-arg", "path=notes/hello.txt", "--tool-arg", "content=from the inspector")
        assert json.loads(called.stdout)["isError"] is False
        assert (workspace / "notes" / "hello.txt").read_text() == "from the inspector"
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.anyio
async def test_bad_calls_are_tool_errors_that_say_what_to_do(tmp_path):
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        client: Client = instance.client
        cases = {
            ("mail_read", json.dumps({})): "message_id",  # missing argument
            ("calendar_create", json.dumps({"title": "x", "start": "tomorrow", "end": "later", "attendees": []})): "YYYY-MM-DD",
            ("mail_read", json.dumps({"message_id": "msg-9999"})): "mail_search",
            ("read_file", json.dumps({"path": "../../etc/passwd"})): "leaves the workspace",
            ("read_file", json.dumps({"path": "/etc/passwd"})): "relative",
            ("write_file", json.dumps({"path": ".app/state.json", "content": "{}"})): "domain tools",
            ("nonexistent_tool", json.dumps({})): "Unknown tool",
        }
        for (name, args), hint in cases.items():
            result = await client.call_tool(name, json.loads(args))
            assert result.is_error, name
            assert hint.lower() in result.content[0].text.lower(), (name, result.content[0].text)
        ok = await client.call_tool("list_dir", {})
        assert not ok.is_error and "SKILL.md" in ok.content[0].text


@pytest.mark.anyio
async def test_symlink_escape_is_refused(tmp_path):
    async with launch(get("office"), InProcessLauncher(), WorkspaceRoot(tmp_path)) as instance:
        (instance.workspace / "escape").symlink_to("/etc")
        result = await instance.client.call_tool("read_file", {"path": "escape/hostname"})
        assert result.is_error and "symlink" in result.content[0].text
