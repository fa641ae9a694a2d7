"""Polar Express cold-chain temperature alerts MCP server: refrigerated shipments: temperature excursion alerts raised, notified, acknowledged, resolved.

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
    "You watch the alert console of Polar Express, a refrigerated carrier hauling frozen food and 2-8 C "
    "pharmaceuticals. Reefer telematics raise temperature-excursion alerts; each alert is routed to an "
    "on-call contact, acknowledged, resolved or escalated, and affected shipments are quarantined for a "
    "quality decision. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. "
    "Records have ids like rfu-0001: search first, then act on the id. A failed write changes nothing, "
    "and a refusal names the rule that blocks it. Start by reading SKILL.md (the workspace, its data and "
    "its rules). Use the domain tools (or the `coldchain` CLI in the shell) and the file tools. Policies: "
    "[judgement_1] Set each alert's severity per the SOP table, and page a contact only if they have room "
    "under max_open_alerts. [route_minor] Minor alerts go to the dispatcher (pharma alerts excepted). "
    "[route_major] Major alerts go to the driver_liaison (pharma alerts excepted). [route_critical] "
    "Critical alerts go to the quality_manager. [route_pharma] Every pharma_2_8 alert goes to the "
    "quality_manager. [excursion_sop_1] An alert not acknowledged within 15 minutes is escalated. "
    "[cold_shipment_release_quarantine_when] A cold shipment is marked delivered from the day of its "
    "departure until 3 days after it; before that day leave it quarantined. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("cold_chain_monitoring", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "coldchain", app.OPERATIONS, scaffold="full")
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
