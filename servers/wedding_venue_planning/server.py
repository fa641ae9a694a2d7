"""Willowbrook Estate wedding & event coordination MCP server: wedding venue coordinators - inquiries to contracts to planning checklists to event day.

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
    "You assist the event coordinators at Willowbrook Estate, a countryside wedding venue with five "
    "spaces. Couples start as inquiries holding a space for their date, sign a contract, then move "
    "through a planning checklist (deposit, tasting, floor plan, final headcount, vendor confirmations) "
    "until the event is finalized. Each step is a task with an owner and due date. Today is Tuesday "
    "2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like vsp-0001: search "
    "first, then act on the id. A failed write changes nothing, and a refusal names the rule that blocks "
    "it. Start by reading SKILL.md (the workspace, its data and its rules). Use the domain tools and the "
    "file tools. Policies: [judgement_1] Walk each event through the checklist in order; an event moves "
    "on only when its tasks for the current phase are done. [judgement_2] Use planning_task_search to see "
    "what is outstanding. [planning_checklist_1] An event may move to planning only after deposit_paid is "
    "done. [planning_checklist_1b] An event may be finalized only when every task of the event is done. "
    "[packages_1] Classic: essentials + 3-course dinner + bar package; vendors from the preferred list "
    "only. [packages_2] Signature: classic + rehearsal dinner + any vendor (non-preferred vendors must "
    "show insurance 30 days before). [live_event_tasks] A cancelled or completed event takes no new "
    "planning tasks, and its open tasks are not worked. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("wedding_venue_planning", instructions=INSTRUCTIONS, version="1.0.0")
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
