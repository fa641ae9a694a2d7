"""Beacon Freight fleet maintenance shop MCP server: truck fleet shop: repair orders through diagnosis, parts, repair and QC; parts issued from stock.

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
    "You help the service writer at Beacon Freight's truck maintenance shop. Drivers report problems; a "
    "repair order is opened and the tractor goes into the shop, a mechanic diagnoses it, parts are issued "
    "from the parts room, the repair is done and passes quality check, and the truck returns to service. "
    "Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like "
    "veh-0001: search first, then act on the id. A failed write changes nothing, and a refusal names the "
    "rule that blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the "
    "domain tools (or the `fleetshop` CLI in the shell) and the file tools. Policies: "
    "[brake_trailer_mechanic] Brake and trailer work needs a brakes_and_trailer or ase_master mechanic. "
    "[diesel_mechanic] DEF and engine derates need a diesel or ase_master mechanic. [judgement_1] Issue "
    "parts with part_issue_record; if stock is short, move the order to awaiting_parts. "
    "[shop_procedures_1] Dot_critical complaints (brakes, lights, tires) take the next free bay. "
    "[shop_procedures_2] A truck may not leave the shop (return to service) until all its repair orders "
    "are closed. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("fleet_maintenance_shop", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "fleetshop", app.OPERATIONS, scaffold="full")
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
