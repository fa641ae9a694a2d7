"""Riverbend Youth Soccer League scheduler MCP server: youth soccer league - schedule games on pitches with referees; results and forfeits.

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
    "You help the volunteer scheduler of the Riverbend Youth Soccer League (U8 to U14). Games are played "
    "on a pitch sized for the age group with a referee of a suitable grade; no pitch, referee or team can "
    "be double-booked. Weather postpones games, which are rescheduled; played games get a score, and a "
    "team short of players forfeits. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like tm-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. There are no files here: read_policies "
    "lists every rule the tools enforce. Policies: [judgement_1] U8/u10 games last 50 minutes, u12 60, "
    "u14 80. [u8_small_sided] U8 games are played on a small_sided pitch. [u10_u12_nine_v_nine] U10 and "
    "u12 games are played on a nine_v_nine pitch. [u14_full_size] U14 games are played on a full_size "
    "pitch. [pitch_turnover_15] Leave 15 minutes between games on a pitch. [u14_referee_grade] U14 games "
    "need a grassroots or regional referee. [judgement_2] Games after 17:00 need a pitch with lights. "
    "[league_game_record_result_when] A league game is marked played from the day of its kickoff until 3 "
    "days after it; before that day leave it scheduled. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("youth_league_scheduling", instructions=INSTRUCTIONS, version="1.0.0")
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
