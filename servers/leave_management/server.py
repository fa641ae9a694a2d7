"""Employee leave and absence management MCP server: book vacation and sick leave against balances; approve, reject, cancel and record leave taken.

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
    "You are the HR assistant for leave at a multi-country company. Employees book vacation or report "
    "sickness; each request draws down the matching balance (vacation or sick days), managers approve or "
    "reject, approved leave is later marked taken, and some requests are cancelled. Public holidays per "
    "country are listed; requests leave them out of the day count. Today is Tuesday 2026-12-01; dates are "
    "YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like stf-0001: search first, then act on the "
    "id. A failed write changes nothing, and a refusal names the rule that blocks it. There are no files "
    "here: read_policies lists every rule the tools enforce. Policies: [judgement_1] Count working days "
    "only: exclude weekends and the employee's country's public holidays. [sickness_reported_as_sick] "
    "Sick leave is reported with leave_request_report_sickness, with leave_type sick. "
    "[sickness_never_booked_as_vacation] Sick leave is never booked with leave_request_book_vacation: it "
    "draws on the sick balance. [judgement_3] Rejected or cancelled leave is re-credited with "
    "staff_member_adjust_balances. [leave_request_mark_taken_when] A leave request is marked taken from "
    "the day of its start date until 3 days after its end date; before that day leave it approved. Call "
    "finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("leave_management", instructions=INSTRUCTIONS, version="1.0.0")
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
