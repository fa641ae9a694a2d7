"""Northgate HQ supply room MCP server: office supply room: stock, department budgets, requisitions and vendor restock orders.

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
    "You help Dana, the office manager at Northgate's headquarters, run the supply room. Staff "
    "requisition paper, toner and kitchen supplies against their department's monthly supply budget; Dana "
    "picks and delivers requisitions, and reorders from vendors when stock drops below the reorder level. "
    "Every requisition draws down both shelf stock and the department budget. Today is Tuesday "
    "2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like sup-0001: search "
    "first, then act on the id. A failed write changes nothing, and a refusal names the rule that blocks "
    "it. Start by reading SKILL.md (the workspace, its data and its rules). Use the domain tools (or the "
    "`supplies` CLI in the shell) and the file tools. Policies: [toner_limit] Toner (category `toner`) is "
    "limited to 2 cartridges per requisition; larger needs go through Procurement. "
    "[charge_is_quantity_times_cost] A requisition's `charge` is its quantity x the item's unit_cost, to "
    "the cent. [judgement_3] Check stock first; if it is short, tell the requester and offer to place a "
    "restock order. [supply_room_policy_1] Kitchen supplies are charged to Facilities (CC code of the "
    "Facilities budget), never to the requesting team. [supply_room_policy_2] Budgets reset on the 1st of "
    "each month; the budget owner may approve overspend in writing only. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("office_supply_room", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "supplies", app.OPERATIONS, scaffold="full")
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
