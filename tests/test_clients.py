"""`envcraft serve ENV --client ...`: the entry each MCP client reads, on stdout and nothing else there."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from envcraft.registry.clients import client_entry
from mcp import Client, StdioServerParameters

from tests.helpers import REPO, free_port, wait_for_port
from tests.test_run import ENVCRAFT, envcraft

URL = "http://127.0.0.1:8765/mcp"


def test_http_entries_per_client():
    assert client_entry("office", "claude-code", url=URL) == {"mcpServers": {"office": {"type": "http", "url": URL}}}
    assert client_entry("office", "vscode", url=URL) == {"servers": {"office": {"type": "http", "url": URL}}}
    assert client_entry("office", "cursor", url=URL) == {"mcpServers": {"office": {"url": URL}}}
    desktop = client_entry("office", "claude-desktop", url=URL)["mcpServers"]["office"]
    assert "url" not in desktop and Path(desktop["command"]).name == "npx"  # Desktop takes no URL entries
    assert desktop["args"] == ["-y", "mcp-remote", URL]
    remote = client_entry("office", "claude-desktop", url="http://10.0.0.5:8765/mcp")["mcpServers"]["office"]
    assert remote["args"][-1] == "--allow-http"  # mcp-remote wants it for plain HTTP beyond loopback


@pytest.mark.parametrize("client", ["claude-code", "claude-desktop", "cursor", "vscode"])
def test_stdio_entries_name_this_interpreter_and_absolute_paths(client, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    entries = client_entry("office", client, workspace="ws")
    [(name, entry)] = entries["servers" if client == "vscode" else "mcpServers"].items()
    assert name == "office" and entry["command"] == sys.executable and Path(entry["command"]).is_absolute()
    assert entry["args"] == ["-m", "envcraft.cli", "serve", "office", "--stdio", "--workspace", str(tmp_path / "ws")]
    assert entry.get("type") == ("stdio" if client in ("claude-code", "vscode") else None)


@pytest.mark.slow
@pytest.mark.anyio
async def test_the_printed_stdio_entry_starts_a_working_server(tmp_path):
    """What Claude Desktop would do with the entry: run its command, from anywhere, and talk MCP over stdio."""
    done = envcraft("serve", "office", "--client", "claude-desktop", "--stdio", "--workspace", str(tmp_path / "ws"))
    assert done.returncode == 0, done.stderr
    entry = json.loads(done.stdout)["mcpServers"]["office"]  # stdout is the entry alone
    params = StdioServerParameters(command=entry["command"], args=entry["args"], cwd="/")
    async with Client(params) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert {"mail_search", "finish"} <= names
    assert (tmp_path / "ws" / ".app" / "state.json").exists()  # the absolute workspace was used


@pytest.mark.slow
def test_http_serving_prints_only_the_entry_on_stdout_logs_go_to_stderr():
    port = free_port()
    server = subprocess.Popen([*ENVCRAFT, "serve", "office", "--client", "vscode", "--port", str(port)], cwd=REPO,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        wait_for_port(port, timeout=120)  # a loaded 2-core machine can take a while to start a server
        with pytest.raises(urllib.error.HTTPError):  # any request at all, so the access log has a line to write
            urllib.request.urlopen(f"http://127.0.0.1:{port}/mcp", timeout=10)
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=30)
    finally:
        server.kill()
    assert json.loads(out) == {"servers": {"office": {"type": "http", "url": f"http://127.0.0.1:{port}/mcp"}}}
    assert "GET /mcp" in err  # the access log went to stderr
