"""Parkside Rentals leasing office MCP server: apartment leasing: match applicants to units by rent, size, pets, area; screen and offer leases.

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
    "You assist the leasing office of Parkside Rentals, which manages apartments across four "
    "neighborhoods. Prospective renters list their budget, household size, pets and preferred area; units "
    "have rent, bedrooms, pet policy and an availability date. You suggest units that fit both sides, "
    "take applications, screen them and send lease offers. Today is Tuesday 2026-12-01; dates are "
    "YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like unt-0001: search first, then act on the "
    "id. A failed write changes nothing, and a refusal names the rule that blocks it. Start by reading "
    "SKILL.md (the workspace, its data and its rules). Use the domain tools (or the `leasing` CLI in the "
    "shell) and the file tools. Policies: [approved_before_offer] A lease offer goes only to an applicant "
    "whose application for that same unit is approved. [offer_available_units] Only an available unit can "
    "be offered; a pending, leased or offline unit is never offered again. [apply_to_open_units] "
    "Applications are taken only for units that are available or have an offer pending. [credit_floor] An "
    "application is approved only when the applicant's credit score is at least 600. [deposit_judgement] "
    "Applicants scoring 600-639 are approved with a double deposit; say so in the offer conversation. "
    "[screening_criteria_1] Neighborhood equals preferred_neighborhood (otherwise offer it only as a "
    "second choice);. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("rental_tenant_matching", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "leasing", app.OPERATIONS, scaffold="full")
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
