"""Skyway Car Rental airport counter MCP server: airport car rental counter - reservations, vehicle assignment, returns, prepaid credits.

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
    "You assist agents at Skyway Car Rental's airport counter. Customers arrive with reservations for a "
    "vehicle class; the agent checks the licence, assigns a ready car of that class and opens a rental "
    "contract, and on return records the odometer and sends the car to cleaning. Customers can pay extras "
    "from prepaid credit on their account. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like rcu-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools and the file tools. Policies: [judgement_1] "
    "Check the licence and the reservation class, upgrade per the procedures when needed, and take extras "
    "from prepaid credit only up to the balance. [counter_procedures_1] Find the reservation; check the "
    "licence: it must not expire before the due-back date. [counter_procedures_2] Assign a car of the "
    "reserved class. If none is ready, upgrade one class free (economy -> compact -> midsize -> suv); "
    "skyway_elite members always get a free upgrade. [ready_car_only] A contract is opened only on a "
    "`ready` car. [car_reservation_mark_picked_up_when] A car reservation is marked picked up from the "
    "day of its pickup until 3 days after it; before that day leave it reserved. [odometer_out_from_car] "
    "A contract's odometer_out is never below the car's recorded odometer. [odometer_in_not_below_out] A "
    "return's odometer_in is never below the contract's odometer_out. [no_turnaround_on_open_contract] A "
    "car on an open contract is not sent to cleaning: return the contract first. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("car_rental_counter", instructions=INSTRUCTIONS, version="1.0.0")
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
