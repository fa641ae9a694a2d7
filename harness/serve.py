"""`envcraft serve <env>`: one environment for any MCP client, with the entry that client reads (clients.py).

The entry goes to stdout (so `envcraft serve office --client vscode > entry.json` captures only it);
everything else, access logs included, goes to stderr. SIGTERM and Ctrl-C remove the temporary workspace.
"""

from __future__ import annotations

import contextlib
import json
import signal
import sys
from pathlib import Path

from envcraft.registry.catalog import get
from envcraft.registry.clients import Client, client_entry
from envcraft.registry.launch import load_server_module
from envcraft.registry.workspaces import WorkspaceRoot, materialize


def _stop_on_sigterm() -> None:
    """SIGTERM unwinds like Ctrl-C does, so the temporary workspace is removed on the way out."""
    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)


def serve(name: str, *, http: bool, host: str, port: int, workspace: str | None,
          client: Client | None = None) -> int:
    env = get(name)
    if client and not http:  # the entry launches `serve --stdio` itself: print it, nothing to serve here
        print(json.dumps(client_entry(name, client, workspace=workspace), indent=2))
        return 0
    root = None
    if workspace:
        folder = Path(workspace).resolve()
        if not (folder / ".app" / "state.json").exists():
            materialize(env.seed, folder)
    else:
        root = WorkspaceRoot()
        folder = root.create(name)
        materialize(env.seed, folder)
    _stop_on_sigterm()
    server = load_server_module(env).build_server(folder)
    try:
        if http:
            url = f"http://{host}:{port}/mcp"
            print(json.dumps(client_entry(name, client, url=url), indent=2), flush=True)
            print(f"serving {name} at {url} (workspace {folder}); Ctrl-C stops it. Over stdio instead: "
                  + json.dumps(client_entry(name, client, workspace=workspace)), file=sys.stderr, flush=True)
            with contextlib.redirect_stdout(sys.stderr):  # the server's logs never mix with the entry
                server.run("streamable-http", host=host, port=port)
        else:
            print("add to your MCP client: " + json.dumps(client_entry(name, client, workspace=workspace)),
                  file=sys.stderr)
            server.run()
    except KeyboardInterrupt:
        pass  # Ctrl-C is how a server is stopped
    finally:
        if root:
            root.close()
        print(f"stopped serving {name}", file=sys.stderr)
    return 0
