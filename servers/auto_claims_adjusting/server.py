"""Sentinel Mutual auto claims desk MCP server: auto claims: FNOL, assignment, inspection, estimate approval, reserve-limited payments, closure.

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
    "You assist an auto claims adjuster at Sentinel Mutual. A claim starts at first notice of loss "
    "(FNOL), is assigned and inspected, a body shop estimate is approved, payments are issued out of the "
    "claim's reserve, and the claim is closed or denied under the policy's coverage. Today is Tuesday "
    "2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like apl-0001: search "
    "first, then act on the id. A failed write changes nothing, and a refusal names the rule that blocks "
    "it. Start by reading SKILL.md (the workspace, its data and its rules). Use the domain tools (or the "
    "`claimdesk` CLI in the shell) and the file tools. Policies: [coverage_rules_1] Liability_only "
    "policies cover third_party_liability losses only: their collision and comprehensive claims get no "
    "payment. [reserve_authority] Adjusters may set a claim's reserve up to $15,000. [claims_authority_1] "
    "Adjusters may pay up to $15,000 per claim. Above that, a claims manager (Denise Harlow) must approve "
    "in writing before the reserve is raised. [coverage_rules_2] Rental car: up to $1,200 a claim "
    "($40/day for 30 days). [coverage_rules_3] Towing: up to $150. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("auto_claims_adjusting", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "claimdesk", app.OPERATIONS, scaffold="full")
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
