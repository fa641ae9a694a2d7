"""Trailhead Supply online store fulfillment MCP server: outdoor-gear web store: stock, order lines allocated from stock, pick-pack-ship, restocks.

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
    "You help run fulfillment for Trailhead Supply, a small online outdoor-gear shop with one warehouse. "
    "Order lines are allocated against on-hand stock, orders move through picking, packing and shipping, "
    "and supplier deliveries are posted as stock receipts. Cycle counts correct the on-hand figure when "
    "the shelf disagrees with the system. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like stk-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools (or the `shopops` CLI in the shell) and the "
    "file tools. Policies: [judgement_1] Allocate stock with order_line_allocate rather than editing "
    "on_hand directly; use stock_item_recount only for physical count corrections. [lines_on_open_orders] "
    "A line is allocated only to an order that is placed or being picked, never to a packed, shipped, "
    "delivered or cancelled one. [fulfillment_sop_1] Store_pickup orders are packed and held at the front "
    "counter; they never get a tracking number. [fulfillment_sop_2] Orders placed before 14:00 ship the "
    "same day; overnight orders are picked first. [fulfillment_sop_3] Allocate every line before "
    "releasing an order to picking. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("ecommerce_fulfillment", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "shopops", app.OPERATIONS, scaffold="full")
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
