"""Ironwood Machining production scheduling MCP server: job-shop scheduling: operation runs need a work center, fixture and certified operator.

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
    "You are the production scheduler's assistant at Ironwood Machining, a contract job shop. Each "
    "manufacturing order is broken into operation runs; a run occupies a work center, a tooling fixture "
    "and a certified machine operator for its whole time window, and none of them can be double-booked. "
    "Orders move from released to scheduled, running and completed, or go on hold. Today is Tuesday "
    "2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like wc-0001: search "
    "first, then act on the id. A failed write changes nothing, and a refusal names the rule that blocks "
    "it. There are no files here: read_policies lists every rule the tools enforce. Policies: "
    "[operator_certified_for_process] A run's operator is certified for its work center's process. "
    "[fixture_fits_process] A run's fixture is compatible with its work center's process. "
    "[first_shift_start] A first-shift operator's run starts between 06:00 and 14:30. "
    "[second_shift_start] A second-shift operator's run starts between 14:30 and 23:00. "
    "[operation_run_finish_when] An operation run is marked done from the day of its start until 3 days "
    "after it; before that day leave it in progress. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("production_line_scheduling", instructions=INSTRUCTIONS, version="1.0.0")
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
