"""Claims adjuster assignment desk MCP server: match incoming claims to field adjusters by line, region, license, seniority and caseload.

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
    "You run the assignment desk of Lakeshore Insurance's claims department. New claims arrive unassigned "
    "and are assigned to field adjusters; the policies below say which adjuster fits which claim. "
    "Adjusters accept or reject offers. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like fad-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools and the file tools. Policies: "
    "[adjuster_specialty_is_line] The adjuster's specialty is the claim's line. "
    "[adjuster_region_is_claim_region] The adjuster's region is the claim's region. "
    "[licensed_in_loss_state] The claim's loss_state is in the adjuster's licensed_states. "
    "[assignment_rules_1] Simple claims may go to any seniority; moderate claims need an adjuster, senior "
    "or complex_loss (never a trainee). [assignment_rules_1b] Complex claims under $100,000 estimated "
    "severity need a senior or complex_loss adjuster. [assignment_rules_1c] Complex claims of $100,000 "
    "estimated severity or more go to a complex_loss adjuster only. [assignment_rules_2] The adjuster is "
    "under max_caseload (open offers and accepted assignments count). Tie-breakers: most free caseload, "
    "then seniority closest to the complexity (don't waste a complex_loss adjuster on a simple claim). "
    "Workers' comp claims must be contacted within 24 hours of assignment. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("adjuster_assignment", instructions=INSTRUCTIONS, version="1.0.0")
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
