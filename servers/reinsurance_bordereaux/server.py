"""Reinsurance bordereaux processing MCP server: treaty bordereaux: register, validate, log and fix row issues, reconcile, settle statements.

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
    "You work in the reinsurance accounting team of Atlas Re. Ceding insurers send quarterly premium and "
    "claims bordereaux under each treaty. The pipeline registers each file, validates it row by row, logs "
    "issues for the cedant to correct (or waives immaterial ones), reconciles the totals to the treaty "
    "terms and produces a settlement statement that is agreed and paid. Today is Tuesday 2026-12-01; "
    "dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like trt-0001: search first, then "
    "act on the id. A failed write changes nothing, and a refusal names the rule that blocks it. Start by "
    "reading SKILL.md (the workspace, its data and its rules). Use the domain tools (or the `bordx` CLI "
    "in the shell) and the file tools. Policies: [bordereau_spec_1] Duplicate_row and "
    "missing_policy_number issues are blocking and never waived: the cedant must correct them. "
    "[cession_mismatch_waiver] Cession_pct_mismatch: blocking if amount_impact > 1,000; otherwise waive. "
    "[out_of_period_waiver] Out_of_period rows: waive if amount_impact < 5,000 (they roll into next "
    "quarter), else block. [bordereau_spec_2] Currency_mismatch: always blocking, never waived. "
    "[bordereau_spec_3] A bordereau is validated only when no blocking issue is open. If more than 5% of "
    "rows have blocking issues, reject the whole file instead. [settlement_method_1] Net = ceded premium "
    "x (1 - ceding_commission_pct/100) - ceded claims, where ceded = bordereau total_amount x "
    "cession_pct/100. Positive net is payable_to_reinsurer; negative is receivable_from_reinsurer (use "
    "the absolute value). Excess-of-loss treaties settle claims only, per event, outside this process. "
    "Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("reinsurance_bordereaux", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "bordx", app.OPERATIONS, scaffold="full")
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
