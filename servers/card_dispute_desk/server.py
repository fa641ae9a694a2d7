"""Evergreen Bank card dispute desk MCP server: cardholder disputes: open, request documents, provisional credit, network chargeback, outcome.

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
    "You work the card dispute desk at Evergreen Bank, talking with cardholders through secure messages. "
    "A cardholder reports a charge; you open a dispute on that transaction, ask for documents if needed, "
    "issue provisional credit, submit the chargeback to the card network and tell the cardholder the "
    "outcome in plain language. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like chd-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools and the file tools. Policies: "
    "[evidence_by_reason] Fraud_unrecognized disputes need no documents; not_as_described and "
    "cancelled_subscription need the cardholder's evidence (photos, cancellation confirmation). "
    "[reg_e_timelines_1] Provisional credit must be posted within 10 business days of the dispute being "
    "opened if the investigation is not finished. [reg_e_timelines_2] Cardholders may dispute within 60 "
    "days of the statement showing the charge. [reg_e_timelines_3] Network decisions take up to 45 days. "
    "[reg_e_timelines_4] If lost, give 5 business days' notice before reversing credit. Call finish when "
    "done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("card_dispute_desk", instructions=INSTRUCTIONS, version="1.0.0")
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
