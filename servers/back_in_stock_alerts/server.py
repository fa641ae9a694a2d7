"""Back-in-stock alert service for a sneaker store MCP server: back-in-stock alerts: shopper subscriptions, throttled notification queue, delivery states.

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
    "You run the restock alert service at Kicklab, an online sneaker boutique. Shoppers subscribe to "
    "sold-out sizes; when a size is restocked, notifications are queued over email, SMS or push, sent by "
    "the messaging provider, delivered and sometimes opened or bounced. Alerts per restock are throttled "
    "so that a few pairs are not promised to hundreds of people. Today is Tuesday 2026-12-01; dates are "
    "YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like asub-0001: search first, then act on "
    "the id. A failed write changes nothing, and a refusal names the rule that blocks it. There are no "
    "files here: read_policies lists every rule the tools enforce. Policies: [queue_opted_in_only] Queue "
    "alerts only for opted-in subscribers. [queue_on_preferred_channel] Queue an alert on the "
    "subscriber's preferred channel. [judgement_1] Queue alerts for the oldest subscriptions first. "
    "[queue_waiting_only] An alert is queued only for a subscription that is still waiting. "
    "[queue_in_stock_only] An alert is queued only for a variant whose stock_level is above zero. Call "
    "finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("back_in_stock_alerts", instructions=INSTRUCTIONS, version="1.0.0")
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
