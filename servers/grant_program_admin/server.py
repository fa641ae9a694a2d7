"""Riverside Community Foundation grants administration MCP server: community foundation grants - screening, panel scores, awards within budget, payouts.

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
    "You assist the grants manager at the Riverside Community Foundation. Local nonprofits apply to grant "
    "programs; applications are screened for eligibility, scored by a review panel, and then awarded or "
    "declined. Awards are drawn from the program's remaining budget, become active when the grant "
    "agreement is signed, and are paid out in scheduled disbursements that can never exceed what is left "
    "undisbursed on the award. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like gpr-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. There are no files here: read_policies "
    "lists every rule the tools enforce. Policies: [award_within_cap] An award is never above its "
    "program's maximum award. [disburse_active_awards] Disbursements are scheduled only on active awards. "
    "[award_in_panel_review] Awards go only to applications in panel review. [award_score_line] An "
    "application is awarded only when its average panel score, leaving out conflicted reviewers, is 70 or "
    "more. [judgement_2] Pay 50% on activation and the rest after the interim report. Call finish when "
    "done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("grant_program_admin", instructions=INSTRUCTIONS, version="1.0.0")
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
