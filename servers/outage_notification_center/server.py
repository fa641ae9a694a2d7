"""Outage notification center at Prairie Electric MCP server: power outages: crew dispatch and restoration times; customer notices queued, sent, acknowledged.

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
    "You run the outage communications desk at Prairie Electric Cooperative. When a feeder goes down, "
    "customers on it are notified by SMS, voice or email; notices are queued, sent, delivered and "
    "sometimes acknowledged, and failed ones are retried. Estimated restoration times (ETRs) are updated "
    "as crews report in, and a restored notice goes out when power is back. Today is Tuesday 2026-12-01; "
    "dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like ucu-0001: search first, then "
    "act on the id. A failed write changes nothing, and a refusal names the rule that blocks it. There "
    "are no files here: read_policies lists every rule the tools enforce. Policies: "
    "[no_notice_for_cancelled_outage] Notices of a cancelled outage event are not queued, sent or marked "
    "delivered. [judgement_1] Notify every customer on the affected feeder; a medical_baseline customer "
    "must acknowledge within 30 minutes or be escalated to the call center. [notice_on_outage_feeder] An "
    "outage notice goes only to a customer on the outage's feeder. [notice_on_preferred_channel] A "
    "customer is notified on their preferred channel (voice for every medical_baseline customer). "
    "[judgement_2] Send an etr_update notice whenever the ETR moves by more than an hour, and a restored "
    "notice at the end. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("outage_notification_center", instructions=INSTRUCTIONS, version="1.0.0")
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
