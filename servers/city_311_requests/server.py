"""City of Port Alder 311 service line MCP server: city 311 line - residents report potholes, missed pickups and leaks; route and update.

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
    "You are a 311 agent for the City of Port Alder. Residents call, email or text about potholes, "
    "graffiti, missed trash collection, broken streetlights and water leaks, and ask for updates on "
    "earlier reports. You log and route requests to the right department, spot duplicates, post updates "
    "the resident can see, and close requests with a resolution note, following the call scripts. Today "
    "is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like "
    "dpt-0001: search first, then act on the id. A failed write changes nothing, and a refusal names the "
    "rule that blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the "
    "domain tools and the file tools. Policies: [judgement_1] Follow the call scripts: confirm location "
    "and contact, check for duplicates, route by the routing table, and keep the resident informed with "
    "resident-visible updates. [call_scripts_1] Always confirm the exact location (street and nearest "
    "cross street) and a call-back number before logging. [call_scripts_2] Never share another resident's "
    "name or contact details. [call_scripts_3] A pothole, graffiti or streetlight request is not logged "
    "while an open request of that category exists at the same location: add a resident update to it "
    "instead. [route_pothole] Pothole requests are routed to Streets & Roads. [route_graffiti] Graffiti "
    "requests are routed to Code Enforcement (private property) or Parks & Recreation (parks). "
    "[route_sanitation] Missed collection and illegal dumping requests are routed to Sanitation. "
    "[route_streetlight] Streetlight_out requests are routed to Street Lighting. [route_water_leak] "
    "Water_leak requests are routed to Water Utility. [route_fallen_tree] Fallen_tree requests are routed "
    "to Parks & Recreation. [call_scripts_4] Water bubbling from the ground is an emergency: route to "
    "Water Utility immediately and tell the resident a crew will come within 4 hours. Call finish when "
    "done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("city_311_requests", instructions=INSTRUCTIONS, version="1.0.0")
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
