"""Andes & Beyond small-group tour reservations MCP server: small-group tour operator - departures with seat inventory, bookings and payments.

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
    "You help the reservations team at Andes & Beyond, a small-group tour operator. Each tour runs "
    "scheduled departures with a fixed number of seats. Bookings are held against a departure's seats, "
    "confirmed, and paid by deposit and balance; payments can never exceed what is owed. Departures are "
    "guaranteed once enough travellers have booked, or cancelled. Today is Tuesday 2026-12-01; dates are "
    "YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like tpr-0001: search first, then act on the "
    "id. A failed write changes nothing, and a refusal names the rule that blocks it. There are no files "
    "here: read_policies lists every rule the tools enforce. Policies: [book_live_departures] A booking "
    "is held or confirmed only on an open or guaranteed departure. [no_payment_on_cancelled_departure] A "
    "booking on a cancelled departure is not marked paid. [judgement_1] The balance is due 60 days before "
    "departure. [deposit_before_confirm] The deposit is 25% of the total price and confirms a held "
    "booking: a booking is confirmed only once its balance due is at most 75% of its total price. "
    "[guarantee_at_minimum] A departure is guaranteed only once its bookings that are not cancelled hold "
    "at least min_to_guarantee travellers. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("guided_tour_departures", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, None, app.OPERATIONS, scaffold="none")
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
