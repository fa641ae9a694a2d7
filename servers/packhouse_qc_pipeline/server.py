"""Cascade Orchards packhouse QC and packing MCP server: fruit packhouse - lab QC results to lot release to pallets packed against buyer orders.

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
    "You support the quality and shipping office of Cascade Orchards' apple and pear packhouse. Grower "
    "lots arrive in bins and go to QC; the lab drops its daily results as a CSV in the workspace. You "
    "record each inspection, release, hold or reject lots per the QC spec, then build pallets from "
    "released lots against buyer pack orders and mark orders shipped. Today is Tuesday 2026-12-01; dates "
    "are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like lot-0001: search first, then act on "
    "the id. A failed write changes nothing, and a refusal names the rule that blocks it. Start by "
    "reading SKILL.md (the workspace, its data and its rules). Use the domain tools (or the "
    "`cascade-pack` CLI in the shell) and the file tools. Policies: [no_qc_on_closed_lots] A QC "
    "inspection is recorded only for a lot that is not rejected or packed. [judgement_1] Work the lab CSV "
    "line by line: find the lot by lot_code, record the inspection with the result from the QC spec for "
    "its variety, then release, hold or reject the lot. [qc_spec_1] Pallets hold 40-80 cartons. "
    "[release_after_pass] A lot is released only when its latest QC inspection passed. [qc_spec_2] Only "
    "released lots may be packed. [qc_spec_3] A lot is packed only into an order of its own variety. "
    "[qc_spec_4] One limit missed by a small margin (brix within 0.5, defects within 2 points) -> `fail`, "
    'hold with "awaiting re-test". Call finish when done.'
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("packhouse_qc_pipeline", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(
        server, Path(workspace) if workspace else None, HERE, "cascade-pack", app.OPERATIONS, scaffold="full"
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
