"""Podcast network studio booking MCP server: book podcast studios and audio engineers for shows, sized for guests, without double-booking.

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
    "You help the production coordinator of a podcast network. Shows book recording sessions in studios "
    "of different sizes, each with an audio engineer. Sessions are pencilled, confirmed, recorded and "
    "wrapped, or cancelled; the studio house rules are in the workspace. Today is Tuesday 2026-12-01; "
    "dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like rst-0001: search first, then "
    "act on the id. A failed write changes nothing, and a refusal names the rule that blocks it. Start by "
    "reading SKILL.md (the workspace, its data and its rules). Use the domain tools and the file tools. "
    "Policies: [judgement_1] Count host plus guests as `people`. [studio_seats_cover_people] A session "
    "goes only in a studio whose seats cover its people. [judgement_2] Video podcasts are recorded only "
    "in a studio with video. [judgement_2b] Video podcasts need a video engineer. [studio_house_rules_1] "
    "Sessions run in whole hours; add 30 minutes of engineer setup before video sessions. "
    "[sessions_start_from_0800] Sessions start no earlier than 08:00. [sessions_end_by_2200] Sessions end "
    "by 22:00. [studio_house_rules_2] Pencilled sessions are released if not confirmed 48 hours before "
    "start. [studio_session_wrap_when] A studio session is marked wrapped from the day of its start until "
    "3 days after it; before that day leave it recording. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("podcast_studio_booking", instructions=INSTRUCTIONS, version="1.0.0")
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
