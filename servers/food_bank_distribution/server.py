"""Tri-County Food Bank warehouse and partner distribution MCP server: regional food bank - donor manifests into stock, stock allocated to partner pantries.

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
    "You help the inventory coordinator at Tri-County Food Bank. Grocery rescue, food drives, farms and "
    "the USDA TEFAP program deliver donations, each with a manifest dropped in the inbox folder; you "
    "record them into warehouse stock. Partner pantries order cases for pick-up, and allocations can "
    "never exceed what is on the shelf. Allocation follows the fair-share policy. Today is Tuesday "
    "2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like fdi-0001: search "
    "first, then act on the id. A failed write changes nothing, and a refusal names the rule that blocks "
    "it. Start by reading SKILL.md (the workspace, its data and its rules). Use the domain tools (or the "
    "`foodbank` CLI in the shell) and the file tools. Policies: [judgement_1] Record each manifest line "
    "as a donation against the matching item (skip expired lines), then allocate orders under the "
    "fair-share policy without exceeding cases on hand. [distribution_policy_1] Only active partners may "
    "order. [distribution_policy_2] Fair share for scarce items (under 100 cases on hand): a partner gets "
    "at most cases_on_hand x (its households_served / total households of partners ordering it), rounded "
    "down, minimum 1 case. [distribution_policy_3] Infant formula and eggs are always treated as scarce. "
    "[distribution_policy_4] Donations with a best-by date in the past are never received into stock. "
    "[distribution_policy_5] Produce and dairy with best-by within 7 days go to partners picking up in "
    "the next 2 days first. [pantry_order_mark_picked_up_when] A pantry order is marked picked up from "
    "the day of its pickup date until 3 days after it; before that day leave it allocated. Call finish "
    "when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("food_bank_distribution", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "foodbank", app.OPERATIONS, scaffold="full")
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
