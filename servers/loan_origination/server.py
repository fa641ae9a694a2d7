"""Cedar Ridge Credit Union mortgage origination MCP server: mortgage pipeline: applications through underwriting conditions to clear-to-close and funding.

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
    "You are the processing assistant for the mortgage team at Cedar Ridge Credit Union. Loan officers "
    "take applications; each officer carries a limited pipeline. Applications move through submission, "
    "underwriting, conditional approval, clear-to-close and funding; underwriters attach conditions that "
    "borrowers satisfy. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. "
    "Records have ids like bor-0001: search first, then act on the id. A failed write changes nothing, "
    "and a refusal names the rule that blocks it. Start by reading SKILL.md (the workspace, its data and "
    "its rules). Use the domain tools (or the `loanops` CLI in the shell) and the file tools. Policies: "
    "[conventional_min_credit_score] A conventional loan needs a borrower credit score of at least 620. "
    "[conventional_max_ltv] A conventional loan finances at most 95% of the property value (LTV). "
    "[fha_min_credit_score] An FHA loan (fha_30) needs a borrower credit score of at least 580. "
    "[fha_max_ltv] An FHA loan finances at most 96.5% of the property value (LTV). [va_min_credit_score] "
    "A VA loan (va_30) needs a borrower credit score of at least 600 (its LTV may reach 100%). "
    "[jumbo_credit_and_ltv] A jumbo loan (jumbo_arm_7_1) needs a borrower credit score of at least 700 "
    "and finances at most 80% of the property value (LTV). [underwriting_guidelines_1] Loans above "
    '$766,550 must be jumbo. [underwriting_guidelines_1b] Self-employed borrowers always get the "Two '
    'years of tax returns" condition: their application is not cleared to close without it. '
    "[clear_to_close_conditions] An application is clear-to-close only when every condition is cleared or "
    "waived. [closing_checklist_1] Clear-to-close issued at least 3 business days before closing (TRID "
    "waiting period). Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("loan_origination", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "loanops", app.OPERATIONS, scaffold="full")
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
