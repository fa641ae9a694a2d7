"""Bay Valley Transit real-time feed operations MCP server: transit real-time data - bus AVL ping batches and GTFS-realtime feed publishes with retries.

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
    "You assist with Bay Valley Transit real-time feed operations. You support the real-time data desk at "
    "Bay Valley Transit. Every bus's AVL unit sends batches of GPS pings; batches are processed into "
    "vehicle positions or fail (GPS jumps, stale clock, unknown block) and are retried or quarantined. "
    "Every 30 seconds the GTFS-realtime feeds are rebuilt and published for trip-planning apps; failed "
    "publishes are retried and eventually abandoned in favour of the next cycle. Buses whose AVL keeps "
    "failing are flagged for the shop. Today is 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like veh-0001: search first, then act on the id. A failed write "
    "changes nothing. Retry stale-clock and unknown-block failures up to 3 attempts; quarantine GPS jumps "
    "and malformed NMEA at once. Flag a bus for AVL fault after 3 quarantined batches in an hour. A "
    "failed publish is retried twice; after that leave it and let the next 30-second cycle run. Call "
    "finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("transit_realtime_feed", instructions=INSTRUCTIONS, version="1.0.0")
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
