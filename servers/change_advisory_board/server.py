"""Northwind Logistics IT change management MCP server: iT change management - change requests through CAB approval, implementation, rollback.

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
    "You assist the change manager of Northwind Logistics' IT department. Engineers draft change requests "
    "against configuration items (servers, databases, network gear); the change advisory board votes on "
    "them; approved changes are implemented in their planned window and end as completed or rolled back. "
    "Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like "
    "ci-0001: search first, then act on the id. A failed write changes nothing, and a refusal names the "
    "rule that blocks it. There are no files here: read_policies lists every rule the tools enforce. "
    "Policies: [judgement_1] Normal changes need two approve votes before approval. [judgement_1b] A "
    "normal change with a reject vote is not approved. [judgement_1c] A high-risk normal change also "
    "needs the IT Director's vote. [judgement_2] Emergency changes may be approved by the IT Director "
    "alone. [judgement_3] Changes to tier1 items must have a backout plan before they are submitted or "
    "approved. [change_request_complete_when] A change request is marked completed from the day of its "
    "planned start until 3 days after it; before that day leave it in progress. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("change_advisory_board", instructions=INSTRUCTIONS, version="1.0.0")
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
