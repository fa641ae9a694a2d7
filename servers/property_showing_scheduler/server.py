"""Keystone Realty showing desk MCP server: home showings: buyer agents book slots; no listing or agent double-booked; feedback gathered.

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
    "You run the showing desk for Keystone Realty's listings. Buyer agents request showings of listings. "
    "Sellers confirm or decline requests, showings are completed or cancelled, and buyer-agent feedback "
    "is collected for the listing agent. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like hls-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools and the file tools. Policies: "
    "[show_listings_on_market] Showings are requested, confirmed, rescheduled or completed only for a "
    "listing that is active or under contract, never a sold or withdrawn one. [showing_instructions_1] "
    "Occupied homes need the seller's confirmation and 24 hours' notice; vacant homes are auto-confirmed "
    "and use the lockbox (code given only after confirmation). [showing_instructions_2] Ask for feedback "
    "within a day of every completed showing. [showing_complete_when] A showing is marked completed from "
    "the day of its start until 3 days after it; before that day leave it confirmed. Call finish when "
    "done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("property_showing_scheduler", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, None, app.OPERATIONS, scaffold="files")
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
