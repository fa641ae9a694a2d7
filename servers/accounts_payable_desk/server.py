"""Northwind Foods accounts payable desk MCP server: aP desk: supplier bills go received -> matched -> approved -> scheduled -> paid in payment runs.

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
    "You assist the accounts payable team of Northwind Foods, a regional food distributor. Supplier bills "
    "arrive by email; each is registered, three-way matched against its purchase order, approved, placed "
    "into a weekly payment run and marked paid once the bank settles the run. Bills with problems are put "
    "on hold with a reason and released once the supplier fixes them. Today is Tuesday 2026-12-01; dates "
    "are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like sup-0001: search first, then act on "
    "the id. A failed write changes nothing, and a refusal names the rule that blocks it. Start by "
    "reading SKILL.md (the workspace, its data and its rules). Use the domain tools (or the `apdesk` CLI "
    "in the shell) and the file tools. Policies: [judgement_1] Follow the bill lifecycle in order: "
    "register, match, approve, schedule, mark paid. [judgement_2] Check the supplier's bank_verified flag "
    "before scheduling and quote the policy when placing a hold. [ap_policy_1] Every bill must reference "
    "an open (or partially or fully received) purchase order, never a closed one. Bills without a PO go "
    'on hold with reason "missing PO reference". [ap_policy_2] Never schedule a bill for a supplier whose '
    "bank details are unverified. [ap_policy_3] A bill is matched only when its amount is at most 2% "
    "above its PO amount. [ap_policy_3b] A bill is matched only when its amount is at most 2% below its "
    "PO amount. [ap_policy_3c] A bill is matched only when the goods of its PO are received. "
    "[ap_policy_4] Approval limits: AP clerks approve up to $10,000; above that the Controller (Priya "
    "Raman) signs off. [ap_policy_5] Bills are scheduled only into a run whose date is on or before the "
    "bill's due date. [ap_policy_5b] Bills are scheduled only into a draft run. [ap_policy_5c] Prefer the "
    "earliest run that qualifies. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("accounts_payable_desk", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "apdesk", app.OPERATIONS, scaffold="full")
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
