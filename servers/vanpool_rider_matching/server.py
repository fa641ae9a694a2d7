"""MetroRide regional vanpool program MCP server: transit-agency vanpool program - match commuters to vans by route, shift, seats, access.

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
    "You coordinate MetroRide, the regional transit agency's commuter vanpool program. Vans run a fixed "
    "route from a park-and-ride lot to an employer site at a set departure time; commuters sign up with "
    "their home lot, work site, shift start and accessibility needs, and some volunteer to drive. You "
    "offer seats on vans that fit, activate riders, and start or suspend vans as groups form and shrink. "
    "Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like "
    "van-0001: search first, then act on the id. A failed write changes nothing, and a refusal names the "
    "rule that blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the "
    "domain tools and the file tools. Policies: [drivers_can_drive] Driver roles (primary or backup) go "
    "only to commuters who can drive. [judgement_1] Consult all four matching criteria before offering a "
    "seat. [activate_with_driver] A van is activated only when a primary driver holds a seat on it "
    "(pending or active). [activate_with_five_riders] A van is activated only when at least five riders "
    "hold seats on it (pending or active; riders who left do not count). [matching_criteria_1] The van "
    "arrives before the shift: travel time is 45 minutes, plus a 10-minute buffer, so a 07:30 shift needs "
    "a departure at 06:35 or earlier - but no more than 90 minutes before the shift start;. "
    "[matching_criteria_2] Commuters with needs_lift ride only vans with a wheelchair_lift. "
    "[matching_criteria_3] An active van should have a backup_driver as well as its primary_driver. "
    "Drivers ride free. Prefer active vans over forming ones. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("vanpool_rider_matching", instructions=INSTRUCTIONS, version="1.0.0")
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
