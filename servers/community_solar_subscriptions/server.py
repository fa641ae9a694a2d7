"""SunShare community solar enrollment MCP server: community solar: match subscribers to gardens by territory, size and income; allocate kW.

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
    "You handle enrollment for SunShare, which runs community solar gardens in several utility "
    "territories. Households and small businesses subscribe to a kW share of a garden in their own "
    "utility territory, sized to their usage; gardens have limited free kW and a cap on subscribers, and "
    "part of each garden is reserved for income-qualified households. When nothing fits, subscribers go "
    "on a waitlist. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records "
    "have ids like sgd-0001: search first, then act on the id. A failed write changes nothing, and a "
    "refusal names the rule that blocks it. Start by reading SKILL.md (the workspace, its data and its "
    "rules). Use the domain tools and the file tools. Policies: [share_minimum] A share is at least 2 kW. "
    "[program_rules_1] A subscriber may only join a garden in their own utility_territory. "
    "[program_rules_1b] Only an operational garden takes subscribers; one under construction takes none. "
    "[program_rules_2] Residential max 25 kW per subscriber; small businesses and nonprofits up to 25 kW "
    "per garden. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("community_solar_subscriptions", instructions=INSTRUCTIONS, version="1.0.0")
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
