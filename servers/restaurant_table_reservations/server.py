"""Osteria Lume reservations and host stand MCP server: restaurant host stand - table reservations by party size and time, waitlist, no-shows.

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
    "You run reservations and the host stand at Osteria Lume, a 20-table Italian restaurant with a main "
    "room, patio, bar and private room. Guests book by phone, email and the website; each reservation "
    "holds one table for the party's seating window. Walk-ins join the waitlist and are texted when a "
    "table frees up. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. "
    "Records have ids like din-0001: search first, then act on the id. A failed write changes nothing, "
    "and a refusal names the rule that blocks it. Start by reading SKILL.md (the workspace, its data and "
    "its rules). Use the domain tools and the file tools. Policies: [table_seats_party] A party is booked "
    "only at a table that seats all of it. [seating_window] Book the seating window by party size: 1-4 "
    "guests get 90 minutes, 5-8 get 120, 9+ get 150. [judgement_2] Check the table's bookings before "
    "promising a time. [reservation_policy_1] Parties of 9 or more go to the private room only. "
    "[reservation_policy_1b] Parties of 9 or more pay a 25.00 per person deposit. [reservation_policy_2] "
    "Patio tables are booked only for May-September; from October to April do not book the patio. "
    "[reservation_policy_3] Give a table no more than 2 seats larger than the party when possible. "
    "[reservation_policy_4] Dinner is served daily: dinner seatings arrive 17:00-21:30. "
    "[reservation_policy_4b] Lunch is served Friday-Sunday: lunch seatings arrive 12:00-14:30. "
    "[table_reservation_seat_when] A table reservation is marked seated only on the day of its arrival; "
    "before that day leave it booked. [table_reservation_complete_when] A table reservation is marked "
    "completed from the day of its arrival until 3 days after it; before that day leave it seated. "
    "[table_reservation_mark_no_show_when] A table reservation is marked no show from the day of its "
    "arrival until 3 days after it; before that day leave it booked. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("restaurant_table_reservations", instructions=INSTRUCTIONS, version="1.0.0")
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
