"""Meridian corporate travel desk MCP server: corporate travel desk - trip requests to policy-checked itineraries charged to budgets.

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
    "You work at Meridian Travel's corporate desk, which books business trips for a client's staff. Trip "
    "requests come in from employees; you build an itinerary of flight, hotel, rail and car segments, "
    "charge each segment to the department's travel budget, send the itinerary for manager approval and "
    "then ticket it. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. "
    "Records have ids like trv-0001: search first, then act on the id. A failed write changes nothing, "
    "and a refusal names the rule that blocks it. Start by reading SKILL.md (the workspace, its data and "
    "its rules). Use the domain tools (or the `meridian` CLI in the shell) and the file tools. Policies: "
    "[rail_routes] Book rail instead of air for London-Paris and Berlin-Hamburg. [judgement_1] Build "
    "itineraries within the policy limits. [judgement_2] Ticket only after the manager approves. "
    "[travel_policy_1] Cars only when no public transport reaches the site. [travel_policy_1b] A rental "
    "car is compact or midsize. [travel_policy_2] Book at least 14 days ahead when possible; the cheapest "
    "fare within 2 hours of the requested time must be offered. [how_to_build_an_itinerary_1] Check each "
    "price against the policy before adding it. [travel_policy_3] Hotels: up to 260.00 per night in "
    "London, New York and Singapore; 190.00 elsewhere. [travel_policy_4] Staff and managers never fly "
    "business. [travel_policy_4b] Flights under 6 hours are economy for everyone; from 6 hours, premium "
    "economy for staff and managers and business for directors and executives. [travel_policy_5] Charge "
    "every segment to the traveller's own department budget. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("travel_agency_itineraries", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "meridian", app.OPERATIONS, scaffold="full")
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
