"""Clinical research volunteer registry matching MCP server: match registry volunteers to studies by age, condition and availability within enrollment caps.

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
    "You coordinate a university's research volunteer registry. Studies list an age range, a target "
    "condition, an enrollment cap and whether they need weekend visits; volunteers register with their "
    "age, condition and availability. You propose volunteers to studies that fit both sides, book "
    "screening visits with coordinators, and move enrollments through screening to enrolled. Today is "
    "Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like cst-0001: "
    "search first, then act on the id. A failed write changes nothing, and a refusal names the rule that "
    "blocks it. There are no files here: read_policies lists every rule the tools enforce. Policies: "
    "[judgement_1] A volunteer fits a study needing weekend visits only if they are available weekends. "
    "[volunteer_condition_matches] Propose a volunteer only when their condition equals the study's "
    "target_condition. [volunteer_min_age] Propose a volunteer only when their age is at least the "
    "study's min_age. [volunteer_max_age] Propose a volunteer only when their age is at most the study's "
    "max_age. [judgement_2] Never propose a volunteer already active in another study. Call finish when "
    "done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("research_participant_recruitment", instructions=INSTRUCTIONS, version="1.0.0")
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
