"""Mercy General operating theatre scheduling MCP server: theatre bookings office - cases need a free room, surgeon and anaesthetist at once.

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
    "You assist the theatre bookings coordinator at Mercy General. Surgeons' secretaries request cases; "
    "each case books an operating room, the surgeon and an anaesthetist for the whole slot. On the day "
    "cases go to theatre and complete; elective cases are postponed or cancelled when an emergency needs "
    "the room. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have "
    "ids like orm-0001: search first, then act on the id. A failed write changes nothing, and a refusal "
    "names the rule that blocks it. Start by reading SKILL.md (the workspace, its data and its rules). "
    "Use the domain tools and the file tools. Policies: [paediatric_anaesthetist] Tonsillectomies on "
    "children need a paediatric-certified anaesthetist. [laminar_flow_joints] Joint replacements (knee, "
    "hip) need a room with laminar flow (OR 3 or OR 4). [judgement_1] Before booking, check the room, "
    "surgeon and anaesthetist bookings and the theatre rules (laminar flow, cardiac suite, paediatric "
    "cover, turnover time). [theatre_rules_1] CABG cases go to the cardiac suite only. [theatre_rules_1b] "
    "CABG cases need a consultant anaesthetist. [theatre_rules_2] Theatre sessions run 08:00-18:00. "
    "[elective_start_by_1600] An elective case starts between 08:00 and 16:00: nothing elective starts "
    "after 16:00. [elective_end_by_1800] An elective case ends by 18:00. [surgical_case_complete_when] A "
    "surgical case is marked completed from the day of its start until 3 days after it; before that day "
    "leave it in theatre. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("surgical_theatre_booking", instructions=INSTRUCTIONS, version="1.0.0")
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
