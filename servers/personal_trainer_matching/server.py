"""IronWorks Gyms personal-training matchmaking MCP server: gym chain PT desk - match prospects to trainers by goal, slot, club, budget; intro sessions.

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
    "You run personal-training matchmaking for IronWorks Gyms' three clubs. New members fill in a goals "
    "form; you match each prospect to a trainer at the same club whose specialty fits the goal, whose "
    "availability matches the prospect's preferred slot, whose rate fits the budget, and who has room for "
    "another client. A free intro session is booked, then the coaching relationship becomes active. Today "
    "is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like "
    "ptr-0001: search first, then act on the id. A failed write changes nothing, and a refusal names the "
    "rule that blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the "
    "domain tools (or the `ironworks-pt` CLI in the shell) and the file tools. Policies: [judgement_1] "
    "Apply the hard criteria first, rank the rest by the soft criteria, then propose the match and book "
    "the intro session in the prospect's preferred slot. [matching_guidelines_1] Slots: early_mornings "
    "06:00-09:00, daytime 09:00-16:00, evenings 16:00-21:00, weekends Sat-Sun 08:00-14:00. Call finish "
    "when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("personal_trainer_matching", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(
        server, Path(workspace) if workspace else None, HERE, "ironworks-pt", app.OPERATIONS, scaffold="full"
    )
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
