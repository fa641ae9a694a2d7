"""Copper Kettle Restaurant Group guest relations MCP server: restaurant group guest relations - reviews and complaints, replies, recovery vouchers.

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
    "You work in guest relations for the Copper Kettle Restaurant Group's six locations. Reviews from "
    "Google, Yelp and Tripadvisor, emails and comment cards come in; you reply publicly or privately in "
    "the group's voice, escalate serious issues (allergy incidents, billing errors) to the location's "
    "general manager, and issue recovery vouchers paid from each location's monthly goodwill budget. "
    "Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like "
    "loc-0001: search first, then act on the id. A failed write changes nothing, and a refusal names the "
    "rule that blocks it. There are no files here: read_policies lists every rule the tools enforce. "
    "Policies: [judgement_1] Reply to every review: 4-5 stars get a short public thank-you; 1-3 stars get "
    "a public apology plus a private email. [judgement_2] Allergy incidents and billing errors are always "
    "escalated to the GM. [judgement_3] Vouchers: 25.00 for cold food, the bill amount for billing "
    "errors. [judgement_3b] A voucher for slow service is 25.00. [judgement_3c] A voucher for staff "
    "attitude is 50.00. [judgement_3d] Never a voucher for praise. [judgement_4] Public replies never "
    "mention vouchers or refunds. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("restaurant_guest_feedback", instructions=INSTRUCTIONS, version="1.0.0")
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
