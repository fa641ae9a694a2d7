"""Riverside DC dock appointment scheduling MCP server: distribution-center dock scheduling: doors and unload crews booked per truck appointment.

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
    "You schedule the receiving and shipping docks at the Riverside distribution center. Trucking "
    "companies request appointments to unload or load; each appointment books a dock door and an unload "
    "crew, neither of which can be double-booked. On the day, trucks check in at the gate, move to the "
    "door and complete, or are marked no-show. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and "
    "times YYYY-MM-DDTHH:MM. Records have ids like door-0001: search first, then act on the id. A failed "
    "write changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools (or the `dockyard` CLI in the shell) and "
    "the file tools. Policies: [judgement_1] Check door type, equipment and crew shift against "
    "docs/dock_rules.md before booking. [dock_rules_1] Refrigerated (reefer) loads only at reefer_capable "
    "doors. [dock_rules_2] Outbound live loads only at outbound or both doors. [dock_rules_2b] Inbound "
    "live unloads only at inbound or both doors. [dock_rules_3] A truck more than 2 hours late is marked "
    "no_show and must rebook. [dock_rules_4] Receiving hours 06:00-22:00: an appointment starts from "
    "06:00. [dock_rules_4b] An appointment ends by 22:00. [dock_rules_5] Day crews work 06:00-14:00, "
    "swing crews 14:00-22:00. [dock_appointment_check_in_when] A dock appointment is marked checked in "
    "only on the day of its start; before that day leave it scheduled. "
    "[dock_appointment_call_to_door_when] A dock appointment is marked at door only on the day of its "
    "start; before that day leave it checked in. [dock_appointment_complete_when] A dock appointment is "
    "marked completed from the day of its start until 3 days after it; before that day leave it at door. "
    "[dock_appointment_no_show_when] A dock appointment is marked no show from the day of its start until "
    "3 days after it; before that day leave it scheduled. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("dock_appointment_scheduling", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "dockyard", app.OPERATIONS, scaffold="full")
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
