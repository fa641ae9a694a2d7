"""Corporate treasury cash desk MCP server: corporate treasury: cash accounts, intercompany transfers and outgoing wires against balances.

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
    "You assist the treasury analyst of Halvorsen Marine Group. Cash sits in operating accounts across "
    "several banks and currencies. You book transfers between group accounts and initiate outgoing wires "
    "to verified beneficiaries; wires pass four-eyes approval and are released. Today is Tuesday "
    "2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like cac-0001: search "
    "first, then act on the id. A failed write changes nothing, and a refusal names the rule that blocks "
    "it. There are no files here: read_policies lists every rule the tools enforce. Policies: "
    "[judgement_1] Wire from an account in the payment currency. [transfer_keeps_minimum_balance] A "
    "transfer may not take its source account below its minimum_balance: the amount is at most the "
    "account's available_balance minus its minimum_balance. [wire_keeps_minimum_balance] A wire may not "
    "take its account below its minimum_balance: the amount is at most the account's available_balance "
    "minus its minimum_balance. [verified_beneficiaries_only] Wire only to verified beneficiaries. Call "
    "finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("treasury_cash_desk", instructions=INSTRUCTIONS, version="1.0.0")
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
