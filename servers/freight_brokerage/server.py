"""Crossroads Logistics freight brokerage desk MCP server: truckload brokerage: match posted loads to carriers by equipment, region, safety and trucks.

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
    "You assist a carrier sales rep at Crossroads Logistics, a truckload freight broker. Shippers post "
    "loads with an equipment type, region, weight and pickup date. You find qualified motor carriers "
    "(right equipment, operating region, acceptable safety rating, enough insurance, trucks available), "
    "tender loads to them at a rate near the lane benchmark, and track covered loads to delivery. Today "
    "is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like "
    "mcr-0001: search first, then act on the id. A failed write changes nothing, and a refusal names the "
    "rule that blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the "
    "domain tools and the file tools. Policies: [equipment_matches_load] The carrier's equipment equals "
    "the load's equipment;. [dry_van_by_van_or_reefer] A dry_van load goes to a dry_van or a reefer "
    "carrier (a reefer hauls dry freight at dry_van rates);. [home_region_matches_load] The carrier's "
    "home_region equals the load's region;. [tender_open_loads_only] Only a posted or tendered load is "
    "tendered to a carrier, never a covered, moving, delivered or cancelled one. [cover_after_acceptance] "
    "A load is marked covered only once a carrier has accepted one of its tenders. "
    "[carrier_matching_rules_1] Safety_rating is satisfactory (conditional only with the manager's "
    "written OK);. [unrated_carrier_never] An unrated carrier is never tendered a load;. "
    "[carrier_matching_rules_2] The carrier has a free truck. Among qualified carriers prefer the one "
    "with the most trucks available. Never tender more than 10% above the lane benchmark. "
    "[rate_within_offered] Tender at or below the load's offered_rate. [carrier_matching_rules_3] The "
    "carrier's cargo_insurance is at least the load's cargo_value;. [freight_load_deliver_when] A freight "
    "load is marked delivered from the day of its pickup date until 3 days after it; before that day "
    "leave it in transit. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("freight_brokerage", instructions=INSTRUCTIONS, version="1.0.0")
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
