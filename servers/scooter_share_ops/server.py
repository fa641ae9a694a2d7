"""Zipline e-scooter share fleet operations MCP server: e-scooter share ops - scooter lifecycle, charging, repairs, city permit caps per zone.

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
    "You assist the fleet operations lead at Zipline, a city e-scooter share. Each scooter moves through "
    "a strict lifecycle - available, low battery, collected, charging, redeployed - or gets reported "
    "damaged and goes through repair or retirement. The city permit caps how many scooters may be "
    "deployed in each service zone, and field crews get tasks for battery swaps, collections, rebalancing "
    "and inspections. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. "
    "Records have ids like sct-0001: search first, then act on the id. A failed write changes nothing, "
    "and a refusal names the rule that blocks it. Start by reading SKILL.md (the workspace, its data and "
    "its rules). Use the domain tools (or the `zipline` CLI in the shell) and the file tools. Policies: "
    "[retire_instead_of_repair] Scooters over 8,000 km needing a deck or stem repair are proposed to the "
    "fleet lead for retirement instead of repair. [judgement_1] Move scooters only along the lifecycle "
    "and end a deployment when collecting. [judgement_2] Task the crew that covers the zone. "
    "[fleet_rules_1] Only scooters at 95%+ battery may be deployed. [fleet_rules_1b] Only scooters that "
    "are charging or in_repair may be deployed. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("scooter_share_ops", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "zipline", app.OPERATIONS, scaffold="full")
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
