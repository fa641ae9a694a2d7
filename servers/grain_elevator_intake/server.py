"""Prairie Gold Co-op grain elevator scale house MCP server: grain co-op scale house - weigh-ins into bins against grower contracts, grading, settlement.

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
    "You assist the scale-house operator at the Prairie Gold Co-op elevator during harvest. Growers' "
    "trucks are weighed in; each load goes into a bin of the same commodity with enough free space and is "
    "applied against the grower's open delivery contract. Loads are then graded for moisture and test "
    "weight and settled for payment; mistaken tickets are voided. Today is Tuesday 2026-12-01; dates are "
    "YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like grw-0001: search first, then act on the "
    "id. A failed write changes nothing, and a refusal names the rule that blocks it. Start by reading "
    "SKILL.md (the workspace, its data and its rules). Use the domain tools (or the `prairiegold` CLI in "
    "the shell) and the file tools. Policies: [judgement_1] Weigh each load into a bin of the matching "
    "commodity with room, against the grower's oldest open contract; grade it and apply the shrink and "
    "discount schedule before settling. [receiving_rules_1] Dump each load into a bin of the same "
    "commodity. [wet_corn_aerated] Wet corn (over 17% moisture) goes only to aerated bins. Call finish "
    "when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("grain_elevator_intake", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "prairiegold", app.OPERATIONS, scaffold="full")
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
