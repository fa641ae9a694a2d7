"""Interview loop scheduling coordinator MCP server: schedule interview loops across interviewers and rooms without clashes or overloaded panelists.

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
    "You are the recruiting coordinator's assistant. Each candidate's interview loop is a set of slots "
    "(coding, system design, behavioural, hiring manager) with an interviewer and a room. You hold, "
    "confirm, reschedule and cancel slots and mark loops scheduled when complete. Today is Tuesday "
    "2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like ivr-0001: search "
    "first, then act on the id. A failed write changes nothing, and a refusal names the rule that blocks "
    "it. There are no files here: read_policies lists every rule the tools enforce. Policies: "
    "[slots_in_live_loops] Interview slots are held, confirmed or rescheduled only in a loop that is "
    "scheduling or scheduled. [no_completion_in_cancelled_loop] A slot of a cancelled loop is not marked "
    "completed. [judgement_1] A standard loop is four 45-minute slots on one day (coding, system_design, "
    "behavioral, hiring_manager) with 15-minute breaks; senior loops add a bar_raiser. [judgement_2] Use "
    "virtual rooms for remote candidates. [judgement_2b] A slot's interviewer has the slot's focus_area. "
    "[interview_slot_complete_when] An interview slot is marked completed from the day of its start until "
    "3 days after it; before that day leave it confirmed. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("interview_scheduling", instructions=INSTRUCTIONS, version="1.0.0")
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
