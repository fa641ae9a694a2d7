"""Kessler Custom Harvesting crew scheduler MCP server: custom harvesting crew - schedule combines, carts, trucks and operators onto fields.

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
    "You help the dispatcher of Kessler Custom Harvesting, which harvests clients' fields across three "
    "counties. Each harvest job puts one machine and one operator on a field for a time window, and rain "
    "delays jobs. Client field notes and crew rules are in the workspace. Today is Tuesday 2026-12-01; "
    "dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like fld-0001: search first, then "
    "act on the id. A failed write changes nothing, and a refusal names the rule that blocks it. Start by "
    "reading SKILL.md (the workspace, its data and its rules). Use the domain tools and the file tools. "
    "Policies: [header_by_crop] A combine on a corn field carries the 12-row corn head. "
    "[draper_for_small_grains] A combine on a soybean, wheat or canola field carries the 40 ft draper. "
    "[judgement_1] Each job's operator is qualified for its machine: the operator's skill is the "
    "machine's type. [judgement_2] Respect ready dates, headers and the crew rules. [crew_rules_1] A "
    "combine job starts only with a grain cart job on the same field for the same window (scheduled or "
    "under way). [crew_rules_1c] A combine job starts only with a semi truck job on the same field for "
    "the same window (scheduled or under way). [crew_rules_1b] Semi drivers must hold a CDL. "
    "[crew_rules_2] Operators work at most 14 hours a day. [jobs_start_hours] A job starts between 08:00 "
    "and 22:00. [jobs_end_hours] A job ends between 08:00 and 22:00. [crew_rules_3] Never schedule a "
    "field before its ready_date. [client_notes_1] Schultz Farms: wants the Creek Bottom done before "
    "North 80; wet spots in the SE corner. [client_notes_2] Moreno Ranch: Section 14 is 45 minutes from "
    "the yard; start no earlier than 09:00. [harvest_job_finish_when] A harvest job is marked done from "
    "the day of its start until 3 days after it; before that day leave it in progress. Call finish when "
    "done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("harvest_equipment_scheduling", instructions=INSTRUCTIONS, version="1.0.0")
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
