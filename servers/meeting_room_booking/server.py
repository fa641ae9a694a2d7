"""Campus meeting room and AV booking MCP server: book conference rooms and AV kits across three office buildings without double-booking.

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
    "You are the workplace assistant for Halden & Co's three-building campus. Employees ask you to find "
    "and hold conference rooms that fit their attendee count, move meetings, check in on arrival, and "
    "reserve portable AV kits (projectors, speakerphones, video bars) for a meeting. Unconfirmed holds "
    "are released. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records "
    "have ids like cfr-0001: search first, then act on the id. A failed write changes nothing, and a "
    "refusal names the rule that blocks it. There are no files here: read_policies lists every rule the "
    "tools enforce. Policies: [kit_for_live_reservation] A kit is reserved or handed out only for a room "
    "reservation that is not cancelled. [judgement_1] Prefer rooms with video for hybrid meetings. "
    "[room_seats_cover_attendees] A room is booked only when its seats cover the attendee count. "
    "[no_kit_needing_repair] Never book a kit in `needs_repair` condition. "
    "[room_reservation_check_in_when] A room reservation is marked checked in only on the day of its "
    "start; before that day leave it confirmed. [kit_loan_hand_out_when] A kit loan is marked handed out "
    "from the day of its start until 3 days after it; before that day leave it reserved. Call finish when "
    "done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("meeting_room_booking", instructions=INSTRUCTIONS, version="1.0.0")
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
