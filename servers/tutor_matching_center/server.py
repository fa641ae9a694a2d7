"""Peer tutoring centre matching MCP server: pair students with peer tutors by subject, level, language and time, within tutor capacity.

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
    "You coordinate a college's peer tutoring centre. Students (tutees) ask for help in a subject at a "
    "level, in a preferred language and time of day; peer tutors list their subject, the highest level "
    "they tutor, languages, availability and how many weekly pairings they can take. You propose pairings "
    "that satisfy both sides, activate them, pause or end them, and log sessions. Today is Tuesday "
    "2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like tut-0001: search "
    "first, then act on the id. A failed write changes nothing, and a refusal names the rule that blocks "
    "it. There are no files here: read_policies lists every rule the tools enforce. Policies: "
    "[judgement_1] A tutor fits a tutee when the tutor's max_level is at or above the tutee's level "
    "(intro < intermediate < advanced). [judgement_1b] Pair a tutor only with a tutee who prefers the "
    "tutor's language. [judgement_1c] Pair a tutor only with a tutee whose availability is the tutor's. "
    "[tutor_subject_matches] Pair a tutor only with a tutee whose subject_need is the tutor's subject. "
    "[judgement_2] Prefer higher-rated tutors. [judgement_3] Ask the student for anything missing before "
    "proposing. [tutoring_pair_end_when] A tutoring pair is marked ended only once the day of its start "
    "date has come; before then leave it proposed. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("tutor_matching_center", instructions=INSTRUCTIONS, version="1.0.0")
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
