"""FinOps cloud cost chargeback MCP server: charge cloud spend to team budgets, handle disputes and credits, and approve reservations.

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
    "You support the FinOps lead of a mid-size software company. Monthly cloud bills are broken into "
    "spend charges posted against engineering teams' quarterly cloud budgets; teams dispute mis-tagged "
    "charges, which get credited back; reserved-instance and savings-plan purchases are proposed, "
    "approved and executed against the team's budget. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD "
    "and times YYYY-MM-DDTHH:MM. Records have ids like etm-0001: search first, then act on the id. A "
    "failed write changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md "
    "(the workspace, its data and its rules). Use the domain tools (or the `finops` CLI in the shell) and "
    "the file tools. Policies: [judgement_1] Check the chargeback policy for who owns a charge before "
    "posting, and check budget_left before posting or proposing. [chargeback_policy_1] A team may dispute "
    "a charge within 30 days of posting; disputes are credited only if the resource tag shows another "
    "owner. [chargeback_policy_2] Reservations over 25,000 upfront need the CFO's approval; three_year "
    "terms only for tier-1 production. [chargeback_policy_3] `budget_left` never goes negative: a charge "
    "or an upfront cost larger than the team's remaining budget is refused. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("cloud_cost_allocation", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "finops", app.OPERATIONS, scaffold="full")
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
