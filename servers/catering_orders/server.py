"""Saffron & Salt Catering event pipeline MCP server: catering company - events from inquiry to quote, deposit, final menu, staffing, service.

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
    "You help the catering manager at Saffron & Salt, an off-premise caterer. Every event moves through a "
    "fixed pipeline: inquiry, quote sent, deposit paid, menu and guest count final, fully staffed, "
    "completed. Chefs, servers, bartenders and captains are booked per event. Pricing and staffing ratios "
    "are in the workspace documents. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like ccl-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools and the file tools. Policies: [judgement_1] "
    "Move events through the pipeline in order. [judgement_2] Quote from the price sheet and staff from "
    "the ratios, booking call time 2 hours before and release 1 hour after the event. [price_sheet_1] "
    "Deposit is 40% of the quote; the balance is due 3 days before the event. [staffing_ratios_1] Call "
    "time is 2 hours before the event start; release 1 hour after the end. [staff_live_events_only] Staff "
    "are booked only for an event that is not cancelled or completed. [catering_event_complete_when] A "
    "catering event is marked completed from the day of its event start until 3 days after it; before "
    "that day leave it staffed. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("catering_orders", instructions=INSTRUCTIONS, version="1.0.0")
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
