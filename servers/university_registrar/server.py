"""Registrar's office course registration MCP server: course sections, seat-limited registration, drops, withdrawals and add/drop petitions.

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
    "You assist staff in a college registrar's office during the add/drop period. Sections open and close "
    "for registration and have seat limits; students register, change grading basis, drop or withdraw. "
    "Late adds and other exceptions go through petitions that the registrar approves or denies, following "
    "the academic calendar in the workspace. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like sec-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools (or the `registrar` CLI in the shell) and "
    "the file tools. Policies: [register_in_open_sections] Students are added only to a section that is "
    "scheduled or open, never a closed or cancelled one. [no_basis_change_in_cancelled_section] A "
    "registration in a cancelled section does not change its grading basis. [overload_petition] More than "
    "18 credits (6 sections) needs an `overload` petition. [judgement_1] Today is 2026-12-01: adds are "
    "still allowed, drops are drops (not withdrawals). [judgement_2] Check the student's hold before any "
    "add. [academic_calendar_1] Students with any hold other than `none` cannot add courses until the "
    "hold is cleared. [academic_calendar_2] Audit registrations do not count toward seat_limit "
    "exceptions: they need instructor consent. [academic_calendar_3] Pass/fail is allowed for at most one "
    "course per term and never for courses in the student's major. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("university_registrar", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "registrar", app.OPERATIONS, scaffold="full")
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
