"""Northside bus depot daily duty roster MCP server: bus depot dispatch - cover duty runs with an operator and a bus, sick calls, sign-ons.

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
    "You help the dispatcher at the Northside bus depot of a city transit operator. Each day's duty runs "
    "(a route block from report time to clear time) are covered by one bus operator and one depot bus. "
    "Operators sign on, complete runs, or call in sick, which reopens the run for the extra board. Today "
    "is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like "
    "bop-0001: search first, then act on the id. A failed write changes nothing, and a refusal names the "
    "rule that blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the "
    "domain tools (or the `northside-depot` CLI in the shell) and the file tools. Policies: "
    "[no_duty_on_cancelled_run] A cancelled run takes no assignment, and its duties are not signed on, "
    "completed or reported sick. [judgement_1] Offer an open run to the free extra-board operator with "
    "the highest seniority. [judgement_1b] A run that requires an articulated bus gets an "
    "articulated-qualified operator. [judgement_1c] A run that requires an articulated bus gets an "
    "articulated bus. [rostering_rules_1] An operator must have 10 hours off between the clear time of "
    "one run and the report time of the next. [rostering_rules_2] Electric buses may take a run only if "
    "battery_range_km is at least distance_km + 20%. [rostering_rules_3] Open runs are covered from the "
    "extra board first, by seniority (highest first); regular operators only on voluntary overtime. "
    "[rostering_rules_4] A run still open 30 minutes before report time is cancelled and posted as a "
    "service alert. [duty_assignment_sign_on_when] A duty assignment is marked signed on only on the day "
    "of its start; before that day leave it assigned. [duty_assignment_complete_when] A duty assignment "
    "is marked completed from the day of its start until 3 days after it; before that day leave it signed "
    "on. [duty_assignment_report_sick_when] A duty assignment is marked sick called from the day of its "
    "start until 3 days after it; before that day leave it assigned. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("bus_driver_rostering", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(
        server, Path(workspace) if workspace else None, HERE, "northside-depot", app.OPERATIONS, scaffold="full"
    )
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
