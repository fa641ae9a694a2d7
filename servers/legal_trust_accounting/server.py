"""Client trust (IOLTA) accounting MCP server: client trust ledgers: deposits, disbursements within balance, approvals and monthly reconciliation.

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
    "You help the accounting manager of a small law firm keep its client trust (IOLTA) account in order. "
    "Retainers and settlement funds are deposited to per-matter client ledgers; disbursements for filing "
    "fees, experts, settlement payouts and earned fees may never exceed that client's ledger balance. "
    "Disbursements are requested, approved by a partner and paid; each month a three-way reconciliation "
    "is run. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have "
    "ids like cld-0001: search first, then act on the id. A failed write changes nothing, and a refusal "
    "names the rule that blocks it. Start by reading SKILL.md (the workspace, its data and its rules). "
    "Use the domain tools (or the `trustbook` CLI in the shell) and the file tools. Policies: "
    "[two_partner_approval] Disbursements above 10,000 require approval by the responsible partner AND a "
    "second partner. [judgement_1] Check the client's own ledger balance before every disbursement and "
    "apply the check-clearing rule. [judgement_2] Voiding a disbursement does not re-credit the ledger: "
    'record a deposit with source "cost deposit" for the voided amount. [trust_account_rules_1] Never '
    "disburse more than the individual client's ledger balance; no negative ledgers, ever. "
    "[trust_account_rules_2] Earned fees are transferred out only after an invoice has been sent to the "
    "client at least 10 days earlier. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("legal_trust_accounting", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "trustbook", app.OPERATIONS, scaffold="full")
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
