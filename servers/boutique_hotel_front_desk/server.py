"""The Linden boutique hotel front desk MCP server: 24-room boutique hotel - reservations, check-in/out, housekeeping and guest folios.

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
    "You assist the front desk of The Linden, a 24-room boutique hotel. Guests reserve rooms by date "
    "range. Stays move from reserved to checked in to checked out (or are cancelled or marked no-show), "
    "housekeeping flags each room's state, and extras are posted to the guest's folio during the stay. "
    "Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like "
    "rm-0001: search first, then act on the id. A failed write changes nothing, and a refusal names the "
    "rule that blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the "
    "domain tools (or the `linden` CLI in the shell) and the file tools. Policies: [inspected_rooms_only] "
    "Arriving guests are checked in only to inspected rooms. [room_occupancy] Junior suites sleep 3 "
    "adults; all other rooms 2. [judgement_1] Check a room's stays before reserving, and post "
    "cancellation or no-show fees as folio charges per the policy. [front_desk_policies_1] Flexible rate: "
    "free cancellation until 48 hours before arrival; non-refundable stays are charged the first night on "
    "cancellation (post as `room`). [stay_check_in_when] A stay is marked checked in only on the day of "
    "its check in; before that day leave it reserved. [stay_check_out_when] A stay is marked checked out "
    "from the day of its check in until 3 days after its check out; before that day leave it checked in. "
    "[stay_mark_no_show_when] A stay is marked no show from the day of its check in until 3 days after "
    "its check out; before that day leave it reserved. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("boutique_hotel_front_desk", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "linden", app.OPERATIONS, scaffold="full")
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
