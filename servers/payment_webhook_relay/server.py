"""Payment gateway webhook delivery console MCP server: payment gateway webhooks: events queued per endpoint, delivered, acknowledged or redelivered.

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
    "You are on the integrations support rota at Parcelpay, a card payment gateway. Payment, refund, "
    "dispute and payout events are queued for each merchant's webhook endpoint, delivered over HTTPS, and "
    "acknowledged by the merchant. Failed deliveries are retried with backoff and eventually expire; "
    "support can pause a misbehaving endpoint and redeliver events once the merchant has fixed it. Today "
    "is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like "
    "gm-0001: search first, then act on the id. A failed write changes nothing, and a refusal names the "
    "rule that blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the "
    "domain tools and the file tools. Policies: [webhook_retry_policy_1] A 410 Gone response disables the "
    "endpoint; merchants must re-register it. [merchant_escalations_1] Enterprise merchants get a reply "
    "within 1 hour. For dispute.opened events always confirm delivery: merchants have 7 days to respond "
    "to a dispute and miss the deadline if they never see it. [webhook_retry_policy_2] Support may "
    "redeliver expired events on request for up to 30 days. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("payment_webhook_relay", instructions=INSTRUCTIONS, version="1.0.0")
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
