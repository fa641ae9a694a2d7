"""Larch & Loom home-goods customer support MCP server: home-goods web shop support: shopper tickets, replies, order cancellations, goodwill credits.

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
    "You are a support agent for Larch & Loom, an online home-goods shop. Shoppers write in about late "
    "parcels, damaged vases, address changes and refunds. You look up their orders, reply in the shop's "
    "warm tone, cancel orders that have not shipped, wait on the warehouse or the shopper when needed, "
    "and grant a small goodwill credit when the playbook allows. Today is Tuesday 2026-12-01; dates are "
    "YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like shp-0001: search first, then act on the "
    "id. A failed write changes nothing, and a refusal names the rule that blocks it. Start by reading "
    "SKILL.md (the workspace, its data and its rules). Use the domain tools (or the `helpdesk` CLI in the "
    "shell) and the file tools. Policies: [reply_on_state_change] When you change a ticket's state, reply "
    "to the shopper on that ticket (ticket_reply_post); such a reply is expected, never a stray change. "
    "[support_playbook_1] Only orders still in processing can be cancelled; a shipped order cannot. "
    "[support_playbook_1b] When a shopper asks to cancel a shipped order, explain it cannot be cancelled "
    "and offer a free return. [support_playbook_2] Address changes are only possible while the order is "
    "processing. [support_playbook_3] A goodwill credit for late delivery is $10 and one for a damaged "
    "item $15 (a gold-tier shopper: see gold_tier_credit). [gold_tier_credit] A gold-tier shopper's "
    "goodwill credit is $20, whatever the reason. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("retail_helpdesk", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "helpdesk", app.OPERATIONS, scaffold="full")
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
