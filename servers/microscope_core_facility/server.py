"""Imaging core facility instrument booking MCP server: book confocal, TEM and cryo-EM time at an imaging core; track training and sessions.

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
    "You assist the manager of a university imaging core. Researchers from many labs book sessions on "
    "shared microscopes. Users are trained on microscopes, sessions are confirmed, run and finished, and "
    "scopes go offline for service. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like mic-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools (or the `corebook` CLI in the shell) and "
    "the file tools. Policies: [max_session_length] A session lasts at most 4 h on confocal/widefield, 8 "
    "h on cryo-EM (Thermo Krios), 3 h on TEM. [judgement_1] Before booking an unassisted session, check "
    "scope_training_search for a passed training on that microscope; otherwise book an assisted session "
    "in working hours. [core_rules_1] Unassisted sessions require a `passed` training on that exact "
    "microscope; untrained users book `assisted: true` sessions. [core_rules_2] Assisted sessions only "
    "start 09:00-17:00 on weekdays. [core_rules_3] A session cancelled less than 24 h ahead is billed in "
    "full: tell the user when they cancel late. [core_rules_3b] Two no-shows suspend a user's booking "
    "rights: a user with two no-shows on record books no new session. [scope_session_finish_when] A scope "
    "session is marked completed from the day of its start until 3 days after it; before that day leave "
    "it in use. [scope_session_mark_no_show_when] A scope session is marked no show from the day of its "
    "start until 3 days after it; before that day leave it confirmed. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("microscope_core_facility", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "corebook", app.OPERATIONS, scaffold="full")
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
