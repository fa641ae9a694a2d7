"""Pre-employment background screening orders MCP server: order background checks from vendors, process their webhook events, and adjudicate reports.

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
    "You assist with Pre-employment background screening orders. You handle pre-employment screening for "
    "a logistics company's HR team. Once a candidate gives consent, a check order is placed with a "
    "screening vendor, which reports progress through webhook events (order accepted, report completed, "
    "report updated, order suspended). You process or ignore each event, move orders through their "
    "states, and adjudicate completed reports as clear or needing individualized review. Vendors cap how "
    "many orders may be pending with them. Today is 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like svn-0001: search first, then act on the id. A failed write "
    "changes nothing. Process vendor events oldest first: apply each to its order with the matching "
    "transition, then mark it processed; events that no longer apply (order cancelled, duplicate) are "
    "ignored. Only order checks for candidates with consent_received. Driver roles need the driver_mvr "
    "package. A needs_review finding requires a pre-adverse action notice and 5 business days before any "
    "decision. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("background_check_orders", instructions=INSTRUCTIONS, version="1.0.0")
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
