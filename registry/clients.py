"""The entry each MCP client reads for one environment: a URL (HTTP) or a command it starts (stdio).

- claude-code: `mcpServers`, `"type": "http"` for a URL (without it, Claude Code expects a command)
- cursor:      `mcpServers`, a `url` entry
- vscode:      `servers`, `"type": "http"` or `"type": "stdio"`
- claude-desktop: stdio only; a URL goes through the `mcp-remote` bridge (npx)

Stdio entries name this interpreter and absolute paths, never whichever `envcraft` comes first on PATH.
`envcraft serve` prints one of these; the gateway's create responses carry them for every client.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Literal
from urllib.parse import urlparse

Client = Literal["claude-code", "claude-desktop", "cursor", "vscode"]
CLIENTS: tuple[str, ...] = ("claude-code", "claude-desktop", "cursor", "vscode")
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def stdio_command(name: str, workspace: str | None = None) -> tuple[str, list[str]]:
    """This interpreter, running this package's CLI: the same install that printed the entry."""
    args = ["-m", "envcraft.cli", "serve", name, "--stdio"]
    if workspace:
        args += ["--workspace", str(Path(workspace).resolve())]
    return sys.executable, args


def client_entry(name: str, client: Client | None = None, *, url: str | None = None,
                 workspace: str | None = None) -> dict:
    """The JSON a client reads for this server: over HTTP when `url` is given, else a stdio command."""
    key = "servers" if client == "vscode" else "mcpServers"
    if url:
        if client == "claude-desktop":  # Desktop takes no URL entries: bridge it to stdio
            bridge = ["-y", "mcp-remote", url]
            if url.startswith("http://") and urlparse(url).hostname not in LOOPBACK:
                bridge.append("--allow-http")  # mcp-remote refuses plain HTTP beyond loopback without it
            return {key: {name: {"command": shutil.which("npx") or "npx", "args": bridge}}}
        if client == "cursor":
            return {key: {name: {"url": url}}}
        return {key: {name: {"type": "http", "url": url}}}  # claude-code, vscode, and the default
    command, args = stdio_command(name, workspace)
    entry: dict = {"command": command, "args": args}
    if client in ("claude-code", "vscode"):
        entry = {"type": "stdio", **entry}
    return {key: {name: entry}}


def client_entries(urls: dict[str, str]) -> dict[str, dict]:
    """Every client's config for a set of servers reached over HTTP (name -> URL), one file's worth each."""
    configs: dict[str, dict] = {}
    for client in CLIENTS:
        for name, url in urls.items():
            [(key, servers)] = client_entry(name, client, url=url).items()
            configs.setdefault(client, {}).setdefault(key, {}).update(servers)
    return configs
