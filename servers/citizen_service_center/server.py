"""Eastbrook County citizen service center appointments MCP server: county service center - book residents into counters and certified clerks by the slot.

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
    "You help the appointment line of Eastbrook County's Citizen Service Center, where residents renew "
    "driving licences, apply for passports and resident ID cards, and register vehicles. An appointment "
    "books a counter of the right service line and a clerk certified for that service for its slot. "
    "Residents call to book, move or cancel; on the day they check in and are served or marked no-show. "
    "Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like "
    "svt-0001: search first, then act on the id. A failed write changes nothing, and a refusal names the "
    "rule that blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the "
    "domain tools and the file tools. Policies: [accessible_counter] Residents who need a "
    "wheelchair-accessible desk get an accessible counter. [counter_of_service_line] Book a counter whose "
    "service line is the service's service line. [clerk_certified_for_service] Book a clerk certified for "
    "the service's service line. [judgement_1] When booking, check the counter and the clerk are free, "
    "and tell the resident what to bring. [booking_rules_1] Residents may hold at most one open "
    "appointment per service: move it rather than double-book. [booking_rules_2] Appointments start "
    "Monday-Friday, 08:30-16:00 (the counters close at 16:30). [what_to_bring_1] Driving licence renewal: "
    "current licence, proof of address dated within 90 days. [resident_appointment_check_in_when] A "
    "resident appointment is marked arrived only on the day of its start; before that day leave it "
    "booked. [resident_appointment_mark_served_when] A resident appointment is marked served from the day "
    "of its start until 3 days after it; before that day leave it arrived. "
    "[resident_appointment_mark_no_show_when] A resident appointment is marked no show from the day of "
    "its start until 3 days after it; before that day leave it booked. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("citizen_service_center", instructions=INSTRUCTIONS, version="1.0.0")
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
