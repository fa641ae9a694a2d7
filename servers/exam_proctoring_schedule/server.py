"""Final exam halls and proctor scheduling MCP server: schedule final exams into halls that fit the cohort and staff proctors without clashes.

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
    "You help the university exams office build the final exam timetable. Each exam sitting is held in a "
    "hall; proctors are assigned shifts. Sittings are drafted, published to students, run and closed; the "
    "exam regulations are in the workspace. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like hal-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools and the file tools. Policies: "
    "[proctor_live_sittings] Proctor shifts are assigned or confirmed only for a sitting that is draft, "
    "published or in progress, never a cancelled or completed one. [hall_fits_students] A sitting is only "
    "held in a hall with at least as many seats as its expected students. [judgement_1] Use the "
    "regulations to size proctor teams and set shift times. [exam_regulations_1] Computer-based exams "
    "only in halls with computer_based = true. [exam_regulations_2] Proctor shifts start 30 minutes "
    "before the exam and end 15 minutes after it. [exam_regulations_3] Exams start Monday to Saturday, "
    "09:00-14:00. [exam_sitting_close_when] An exam sitting is marked completed from the day of its start "
    "until 3 days after it; before that day leave it in progress. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("exam_proctoring_schedule", instructions=INSTRUCTIONS, version="1.0.0")
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
