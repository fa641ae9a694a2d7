"""Every MCP client entry we hand out, read against the format that client documents.

The documented shapes, one checker per client (the pages they come from, as read on 2026-12-01):
- Claude Code (code.claude.com/docs/en/mcp): `mcpServers`; a server without `type` is a stdio command
  and needs `command`; a URL server needs `"type": "http"` (or "sse") and `url`.
- VS Code (code.visualstudio.com/docs/copilot/reference/mcp-configuration): `servers`; `type` is required:
  "stdio" with `command`, or "http"/"sse" with `url`.
- Cursor (cursor.com/docs/mcp): `mcpServers`; either `command` (+ `args`) or `url`.
- Claude Desktop (modelcontextprotocol.io/quickstart/user): `mcpServers` in claude_desktop_config.json;
  each a `command` with `args` (it starts processes; remote servers go through a bridge such as mcp-remote).
"""

from __future__ import annotations

import httpx2
import pytest
from envcraft.core.tasks import write_tasks
from envcraft.registry.clients import CLIENTS, client_entry

from tests.helpers import mail_task

TOKEN = "client-formats-token"


def claude_code(config: dict) -> list[str]:
    problems = []
    for name, entry in config["mcpServers"].items():
        kind = entry.get("type", "stdio")
        if kind == "stdio" and "command" not in entry:
            problems.append(f"{name}: it has a 'url' but no 'type'" if "url" in entry else f"{name}: no command")
        if kind in ("http", "sse") and not entry.get("url", "").startswith("http"):
            problems.append(f"{name}: type {kind} without a url")
        if kind not in ("stdio", "http", "sse"):
            problems.append(f"{name}: unknown type {kind!r}")
    return problems


def vscode(config: dict) -> list[str]:
    problems = [] if set(config) == {"servers"} else [f"top-level keys {sorted(config)}, expected 'servers'"]
    for name, entry in config.get("servers", {}).items():
        kind = entry.get("type")
        if (kind == "stdio" and "command" not in entry) or (kind in ("http", "sse") and "url" not in entry):
            problems.append(f"{name}: type {kind} without its command or url")
        if kind not in ("stdio", "http", "sse"):
            problems.append(f"{name}: 'type' is required (stdio, http or sse), got {kind!r}")
    return problems


def cursor(config: dict) -> list[str]:
    return [f"{name}: needs a command or a url" for name, entry in config["mcpServers"].items()
            if ("command" in entry) == ("url" in entry)]


def claude_desktop(config: dict) -> list[str]:
    return [f"{name}: Desktop starts a command; it takes no url" for name, entry in config["mcpServers"].items()
            if "url" in entry or not isinstance(entry.get("command"), str) or not isinstance(entry.get("args"), list)]


DOCUMENTED = {"claude-code": claude_code, "vscode": vscode, "cursor": cursor, "claude-desktop": claude_desktop}


def test_the_checkers_refuse_what_the_clients_refuse():
    url_only = {"mcpServers": {"office": {"url": "http://127.0.0.1:1/mcp"}}}
    assert claude_code(url_only) == ["office: it has a 'url' but no 'type'"]  # Claude Code's own words
    assert claude_desktop(url_only) and vscode(url_only) and not cursor(url_only)


@pytest.mark.parametrize("client", CLIENTS)
def test_serve_entries_match_the_documented_format(client):
    for entry in (client_entry("office", client, url="http://127.0.0.1:8765/mcp"), client_entry("office", client)):
        assert DOCUMENTED[client](entry) == [], entry


@pytest.mark.anyio
async def test_gateway_create_responses_carry_an_entry_every_client_takes(tmp_path):
    from envcraft.registry.gateway import Gateway
    from envcraft.registry.workspaces import WorkspaceRoot

    task = mail_task(0)
    write_tasks(tmp_path / "tasks" / "office.jsonl", [task])
    gateway = Gateway(TOKEN, root=WorkspaceRoot(tmp_path / "ws"), tasks_dir=tmp_path / "tasks")
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with gateway.running(), \
            httpx2.AsyncClient(transport=httpx2.ASGITransport(app=gateway), base_url="http://127.0.0.1") as http:
        single = (await http.post("/control/episodes", json={"env": "office"}, headers=headers)).json()
        group = (await http.post("/control/groups", json={"task_id": task.id}, headers=headers)).json()
    for created in (single, group):
        assert claude_code({"mcpServers": created["mcpServers"]}) == []  # the top-level entry is Claude Code's
        assert set(created["clients"]) == set(DOCUMENTED)
        for client, config in created["clients"].items():
            assert DOCUMENTED[client](config) == [], (client, config)
            [entry] = next(iter(config.values())).values()
            assert (entry.get("url") or entry["args"][-1]).startswith(gateway.base_url)
