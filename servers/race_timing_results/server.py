"""Lakeshore City Marathon timing control MCP server: marathon timing control - chip-read batches applied, retried, dead-lettered; results.

    python server.py --workspace DIR                  # stdio
    python server.py --workspace DIR --http --port N  # streamable HTTP at /mcp

The workspace is a copy of seed/ made by the launcher; all state lives there.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from envcraft_runtime import add_claw_tools
from mcp.server import MCPServer

# Standalone (`python server.py`) or imported as a package by the registry.
if __package__:
    from . import app
else:
    import app

HERE = Path(__file__).resolve().parent
INSTRUCTIONS = (
    "You assist with Lakeshore City Marathon timing control. You assist the timing director of the "
    "Lakeshore City Marathon (marathon, half and 10K). Chip decoders at each timing point send batches of "
    "reads over cellular links; a batch is ingested once, applied to runners' splits, or fails (decoder "
    "clock skew, corrupt packet, link drop) and is retried or dead-lettered. Runners move from registered "
    "to started to finished, DNF or disqualified, and runners can ask for result corrections. Today is "
    "2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like rp-0001: search "
    "first, then act on the id. A failed write changes nothing. Clock-skew and link-drop failures are "
    "retried up to 3 attempts; corrupt packets are dead-lettered at once. A marathoner missing two "
    "consecutive split points is disqualified unless a dead-lettered batch from those points explains the "
    "gap. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("race_timing_results", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, None, app.OPERATIONS, scaffold="none")
    return server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workspace", default=".", help="episode workspace (a copy of seed/)")
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    server = build_server(args.workspace)
    if args.http:
        server.run("streamable-http", host=args.host, port=args.port)
    else:
        server.run()


if __name__ == "__main__":
    main()
