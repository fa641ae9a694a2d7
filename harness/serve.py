"""`envcraft serve <env>`: one environment for any MCP client, with a ready mcpServers snippet."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from envcraft.registry.catalog import get
from envcraft.registry.launch import load_server_module
from envcraft.registry.workspaces import WorkspaceRoot, materialize


def mcp_servers_snippet(name: str, *, url: str | None = None, workspace: str | None = None) -> dict:
    """The `mcpServers` entry Claude Desktop, Claude Code and Cursor read."""
    if url:
        return {"mcpServers": {name: {"url": url}}}
    args = ["serve", name, "--stdio"] + (["--workspace", workspace] if workspace else [])
    return {"mcpServers": {name: {"command": shutil.which("envcraft") or "envcraft", "args": args}}}


def serve(name: str, *, http: bool, host: str, port: int, workspace: str | None) -> int:
    env = get(name)
    root = None
    if workspace:
        folder = Path(workspace).resolve()
        if not (folder / ".app" / "state.json").exists():
            materialize(env.seed, folder)
    else:
        root = WorkspaceRoot()
        folder = root.create(name)
        materialize(env.seed, folder)
    server = load_server_module(env).build_server(folder)
    try:
        if http:
            url = f"http://{host}:{port}/mcp"
            print(json.dumps(mcp_servers_snippet(name, url=url), indent=2))
            print(f"serving {name} at {url} (workspace {folder}); stdio instead: "
                  + json.dumps(mcp_servers_snippet(name)), file=sys.stderr, flush=True)
            server.run("streamable-http", host=host, port=port)
        else:
            print("add to your MCP client: " + json.dumps(mcp_servers_snippet(name, workspace=workspace)), file=sys.stderr)
            server.run()
    finally:
        if root:
            root.close()
    return 0
