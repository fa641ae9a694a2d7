"""Supplier catalog feed ingestion MCP server: supplier product feeds: import runs with retries and dead-letter, rejected records, catalog.

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
    "You operate the catalog ingestion pipeline at Homestead Market, a multi-brand online retailer. "
    "Suppliers push product feeds (CSV over SFTP, JSON APIs, XML EDI) on schedules. Each run imports "
    "records into the catalog; bad records are rejected with an error for merchandisers to fix, and runs "
    "that crash are retried or dead-lettered. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like fsrc-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools and the file tools. Policies: "
    "[no_retry_on_401] 401 unauthorized: do not retry - the supplier rotated credentials. "
    "[feed_ops_runbook_1] After a 401, dead-letter the run and suspend the source. "
    "[duplicate_sku_ignored] Duplicate_sku records are ignored, not fixed. [feed_ops_runbook_2] Rejected "
    "records: price_below_cost is never published - fix the price or ignore the record. image_url_404 "
    "records are fixed by unpublishing until new images arrive. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("catalog_feed_sync", instructions=INSTRUCTIONS, version="1.0.0")
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
