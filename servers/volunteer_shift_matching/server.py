"""Hands Together volunteer center placements MCP server: volunteer center - match volunteers to partner agencies' shifts by skill, clearance, time.

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
    "You coordinate placements at Hands Together, a county volunteer center serving food pantries, "
    "literacy programs, senior services and park clean-ups. Partner agencies post shifts needing a skill, "
    "sometimes a cleared background check, and a number of volunteers. You place volunteers who fit, "
    "confirm them, and record attendance afterwards. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD "
    "and times YYYY-MM-DDTHH:MM. Records have ids like vol-0001: search first, then act on the id. A "
    "failed write changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md "
    "(the workspace, its data and its rules). Use the domain tools and the file tools. Policies: "
    "[no_work_on_cancelled_shift] A cancelled shift takes no assignment, and its assignments are not "
    "confirmed, completed or marked no-show. [judgement_1] Match volunteers to shifts with the placement "
    "rules (skill, clearance, availability, fewer hours first), checking slots and the volunteer's other "
    "placements. [placement_rules_1] The volunteer's skill must equal the shift's skill_required; "
    "`general` shifts take anyone. [placement_rules_2] Shifts with needs_background_check take only "
    "volunteers with background_check `cleared`. [placement_rules_2b] Youth and senior programs always "
    "need a volunteer with background_check `cleared`. [placement_rules_3] Meal delivery drivers must "
    "have skill `driving`. [placement_rules_4] Volunteers with two no-shows this year are offered only "
    "general shifts. [partner_requests_week49_1] ReadUp Literacy: reading buddies are cleared volunteers "
    "only. [partner_requests_week49_1b] ReadUp Literacy: reading buddies start on a Tuesday or Thursday, "
    "16:30-18:00. [partner_requests_week49_1c] ReadUp Literacy: reading buddies end on a Tuesday or "
    "Thursday, 16:30-18:00. [mornings_start] A weekday_mornings volunteer's placement starts on a weekday "
    "between 07:00 and 12:00. [mornings_end] A weekday_mornings volunteer's placement ends on a weekday "
    "between 07:00 and 12:00. [evenings_start] A weekday_evenings volunteer's placement starts on a "
    "weekday between 16:00 and 21:00. [evenings_end] A weekday_evenings volunteer's placement ends on a "
    "weekday between 16:00 and 21:00. [weekends_start] A weekends volunteer's placement starts on a "
    "Saturday or Sunday, at any time. [shift_assignment_complete_when] A shift assignment is marked "
    "completed from the day of its start until 3 days after it; before that day leave it ... "
    "(read_policies lists all) Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("volunteer_shift_matching", instructions=INSTRUCTIONS, version="1.0.0")
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
