"""In-house legal contract lifecycle MCP server: move commercial contracts from draft through review, negotiation, signature and renewal.

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
    "You support the in-house legal team of a B2B software company. Sales and procurement send MSAs, "
    "NDAs, SOWs, DPAs and reseller agreements; each contract goes from draft to legal review, then "
    "negotiation if the counterparty proposes clause deviations, approval, signature and execution. "
    "Deviations are accepted or rejected against the playbook; executed contracts may be terminated. "
    "Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like "
    "cpy-0001: search first, then act on the id. A failed write changes nothing, and a refusal names the "
    "rule that blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the "
    "domain tools and the file tools. Policies: [deviations_on_live_contracts] Clause deviations are "
    "logged or accepted only on a contract that is not terminated. [no_signature_for_closed_contract] A "
    "signature packet is not sent for a contract already executed or terminated. [judgement_1] Judge each "
    'deviation against the playbook table; reject anything in the "never" column and explain the fallback '
    "you can offer. [contract_playbook_1] High risk_rating counterparties need General Counsel approval "
    "before `approved`. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("contract_lifecycle", instructions=INSTRUCTIONS, version="1.0.0")
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
