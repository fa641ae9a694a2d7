"""Maison Hart personal shopping studio MCP server: department-store styling: pair clients with stylists by style, budget, language; book sessions.

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
    "You coordinate the personal shopping studio at Maison Hart, a department store with three locations. "
    "New clients are paired with a stylist whose specialty, budget tier, language and store fit the "
    "client, and who still has room in their client book; then styling sessions are booked in a fitting "
    "suite without double-booking the stylist. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and "
    "times YYYY-MM-DDTHH:MM. Records have ids like sty-0001: search first, then act on the id. A failed "
    "write changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools (or the `studio` CLI in the shell) and the "
    "file tools. Policies: [one_pairing_per_client] Propose at most one stylist per client at a time: end "
    "the old pairing (proposed, active or paused) before proposing a new one. [matching_guidelines_1] "
    "Budget tier: equal is best; a luxury stylist may take premium clients. [luxury_not_essential] A "
    "luxury stylist never takes an essential-tier client. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("personal_shopping_studio", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "studio", app.OPERATIONS, scaffold="full")
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
