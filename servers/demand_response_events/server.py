"""GridFlex demand response operations MCP server: demand response: curtailment events scheduled per program; site dispatch signals acknowledged.

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
    "You operate GridFlex, a utility's demand response platform. On hot afternoons the grid operator "
    "calls curtailment events for a program (smart thermostats, commercial curtailment, managed EV "
    "charging, home batteries). Each enrolled site receives a dispatch signal over OpenADR, SMS, email or "
    "a thermostat API; signals go pending, delivered and acknowledged, and customers may opt out. Today "
    "is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like "
    "drp-0001: search first, then act on the id. A failed write changes nothing, and a refusal names the "
    "rule that blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the "
    "domain tools and the file tools. Policies: [program_operations_1] Channels: thermostats via "
    "thermostat_api (or a fallback). [channel_openadr] Batteries, C&I and EV via openadr (or a fallback). "
    "[channel_fallback_after_failure] Sms or email only as a fallback after a failed signal to the same "
    "site for the same event. [program_operations_2] Sites with 3 opt-outs this season are removed from "
    "the next event (do not signal them). [program_operations_3] Commercial curtailment: 2-hour notice "
    "minimum, events up to 6 hours. [program_operations_4] Failed signals are retried once on the "
    "fallback channel within 15 minutes. [curtailment_event_complete_when] A curtailment event is marked "
    "completed from the day of its start until 3 days after it; before that day leave it active. "
    "[notify_before_start] Sites are notified before an event starts: an event whose start has passed is "
    "not notified. [activate_on_event_day] An event is made active only on the day of its window, never "
    "after the window has passed. [signal_live_events_only] Dispatch signals are sent and worked "
    "(delivered, failed, acknowledged, opted out) only while their event is scheduled, notified or "
    "active, never once it is cancelled or completed. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("demand_response_events", instructions=INSTRUCTIONS, version="1.0.0")
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
