"""Month-end close for Larkspur Software MCP server: month-end close: GL accounts, reconciliations, adjusting journal entries and close tasks.

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
    "You help the controller of Larkspur Software close the November 2026 books. The close runs as a "
    "pipeline: reconcile each balance-sheet account against its statement, raise adjusting journal "
    "entries for the differences, submit and post them, and tick off the close checklist. Today is "
    "Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like gla-0001: "
    "search first, then act on the id. A failed write changes nothing, and a refusal names the rule that "
    "blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the domain tools "
    "and the file tools. Policies: [close_calendar_1] Day 5 (Dec 5): reconciliations reviewed, flux "
    "analysis sent, close package to CFO. [entries_in_open_period] Journal entries are drafted and posted "
    "only in an open accounting period: November (2026-11) is open, October is locked. "
    "[reconciliation_guide_1] A reconciliation compares the ledger balance with an external statement "
    "(bank, subledger, payroll provider). Record the statement balance when preparing. Any unexplained "
    "difference above $500 is flagged and an adjusting entry is drafted in the same period. "
    "[reviewer_not_preparer] Reviewers never review their own preparations. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("month_end_close", instructions=INSTRUCTIONS, version="1.0.0")
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
