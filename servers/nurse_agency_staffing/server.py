"""CareBridge nurse staffing agency MCP server: per-diem nurse agency - match licensed nurses to hospital shift requests by criteria.

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
    "You work for CareBridge, a per-diem nurse staffing agency. Hospitals post shift requests with a unit "
    "specialty, a licence level, minimum experience and a number of positions. You propose agency nurses "
    "who fit, without double-booking them or exceeding how many shifts they want a week, then confirm "
    "placements once the nurse accepts. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like nrs-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools (or the `carebridge` CLI in the shell) and "
    "the file tools. Policies: [no_placement_on_cancelled_shift] A cancelled shift request takes no "
    "placement, and its placements are not confirmed or completed. [certification_by_unit] ICU and "
    "emergency shifts need a verified, unexpired ACLS; pediatrics needs PALS; labor_delivery needs NRP. "
    "[no_more_than_positions] Propose no more nurses than positions. [judgement_1] Apply all five "
    "matching rules (licence, specialty, experience, bill-rate cap, credentials) before proposing; check "
    "nurse_credential_search for expiry against today. [matching_rules_1] `license_type` equals "
    "`license_required` (an RN may cover an LPN request only if the facility agrees in writing). "
    "[license_never_below] A nurse's `license_type` is never below the request's `license_required` (CNA "
    "< LPN < RN): an LPN never covers an RN request. [specialty_matches] `specialty` equals "
    "`unit_specialty`. [experience_meets] `years_experience` >= `min_years`. [matching_rules_2] "
    "`hourly_rate` plus the 35% agency margin stays within the facility's `bill_rate_cap`. "
    "[placement_complete_when] A placement is marked completed from the day of its start until 3 days "
    "after it; before that day leave it confirmed. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("nurse_agency_staffing", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "carebridge", app.OPERATIONS, scaffold="full")
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
