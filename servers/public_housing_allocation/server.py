"""Millbrook Housing Authority unit allocation MCP server: public housing authority - match waitlisted households to vacant units, offers, leases.

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
    "You assist allocation officers at the Millbrook Housing Authority. Households wait on a list with a "
    "priority category, household size, income and accessibility needs; vacant units have a district, "
    "bedroom count, maximum occupancy and rent. Officers match households to units under the allocation "
    "policy, make one offer per unit at a time, and sign a tenancy when an offer is accepted. Today is "
    "Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like hap-0001: "
    "search first, then act on the id. A failed write changes nothing, and a refusal names the rule that "
    "blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the domain tools "
    "(or the `millbrook` CLI in the shell) and the file tools. Policies: [judgement_1] Match by the "
    "allocation policy: priority order, bedroom standard, occupancy, accessibility, 30%-of-income rent "
    "cap, then district preference. [judgement_2] Explain why a household was chosen. "
    "[allocation_policy_1] Household size may not exceed the unit's max_occupancy. [allocation_policy_2] "
    "Accessible units go first to households that need one; others get one only if no waiting household "
    "needs one. [accessible_need_met] A household that needs an accessible unit is offered only an "
    "accessible unit. [bedroom_standard_minimum] Bedroom standard (the least a household is offered): 2 "
    "people need 1 bedroom, 3-4 need 2, 5-6 need 3, 7 or more need 4; one person may take a studio. "
    "[offer_to_listed_household] Units are offered only to a household still on the waitlist (waiting or "
    "offered), never a withdrawn or housed one. [allocation_policy_3] Rent may not exceed 30% of the "
    "household's monthly income (annual_income / 12). [allocation_policy_4] Emergency, then homeless, "
    "then veteran, then standard; within a category, earliest waitlist_date first. [allocation_policy_5] "
    "One open offer per unit; response within 7 days; two declined offers move a standard household to "
    "the end of its category. [unit_offer_expire_when] A unit offer is marked expired only after its "
    "respond-by date has passed; until then leave it pending. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("public_housing_allocation", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "millbrook", app.OPERATIONS, scaffold="full")
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
