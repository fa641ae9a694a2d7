"""Litigation docketing and e-filing notices MCP server: track e-filings to court, incoming electronic notices, and the docket deadlines they trigger.

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
    "You assist the docketing department of a litigation firm. Paralegals prepare filings and transmit "
    "them through the court's e-filing system; acceptance or rejection arrives later as notices. Court "
    "notices (filing receipts, orders, hearing settings, deficiencies) arrive asynchronously, are routed "
    "to the responsible attorney, docketed as deadlines and acknowledged. Today is Tuesday 2026-12-01; "
    "dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like ccs-0001: search first, then "
    "act on the id. A failed write changes nothing, and a refusal names the rule that blocks it. Start by "
    "reading SKILL.md (the workspace, its data and its rules). Use the domain tools and the file tools. "
    "Policies: [judgement_1] Each incoming notice: route -> calendar the deadlines it triggers -> docket "
    "-> acknowledge. [judgement_2] Use the rules to compute due dates. [docketing_rules_1] Every notice "
    "is routed to the case's responsible attorney the same day; acknowledge only after the attorney "
    "replies. [docketing_rules_2] Deficiency_notice: the filing is rejected; cure within 1 business day "
    '(calendar "Cure filing deficiency"). Call finish when done.'
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("court_efiling_notices", instructions=INSTRUCTIONS, version="1.0.0")
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
