"""Verdant Valley Growers greenhouse telemetry desk MCP server: greenhouse climate telemetry - gateway batches processed, retried, dead-lettered, backfilled.

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
    "You help the growing-systems technician at Verdant Valley Growers, a 12-hectare glasshouse operation "
    "growing tomatoes, cucumbers, peppers and lettuce. Sensor gateways in each zone upload five-minute "
    "batches of climate readings. Batches fail on checksum errors, clock drift or upload timeouts and are "
    "retried, dead-lettered, or backfilled from the gateway's SD card. Climate excursions detected in "
    "processed data are acknowledged by a grower. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and "
    "times YYYY-MM-DDTHH:MM. Records have ids like ghz-0001: search first, then act on the id. A failed "
    "write changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools and the file tools. Policies: [judgement_1] "
    "Work failed batches by the runbook's error table; dead-letter what retrying cannot fix and backfill "
    "gaps after a gateway comes back. [judgement_2] Excursions need a named grower's acknowledgement. "
    "[retry_only_fixable_errors] Only a batch that failed on an upload timeout or a CRC checksum mismatch "
    "is retried; one that failed on gateway clock drift, a malformed CSV row or a duplicate window is "
    "dead-lettered. [retry_at_most_four_attempts] After the 4th failed attempt a batch is dead-lettered "
    "whatever the error: a retry never goes past 4 attempts. [excursion_response_1] Air temperature more "
    "than 4 C over the zone setpoint: open vents, acknowledge within 10 minutes (on-call grower: Sanne de "
    "Vries days, Marco Bianchi nights). Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("greenhouse_sensor_ingest", instructions=INSTRUCTIONS, version="1.0.0")
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
