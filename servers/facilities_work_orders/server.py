"""Facilities maintenance work orders MCP server: triage, dispatch and close building maintenance work orders within technician workloads.

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
    "You assist the facilities help desk of a 12-storey office building. Staff report broken lights, HVAC "
    "faults, stuck doors and leaks; you triage each work order with a priority, dispatch it to a "
    "technician of the right trade who is not overloaded, follow it through hold and resolution, and "
    "raise parts requisitions when a job waits on parts. Today is Tuesday 2026-12-01; dates are "
    "YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like ast-0001: search first, then act on the "
    "id. A failed write changes nothing, and a refusal names the rule that blocks it. Start by reading "
    "SKILL.md (the workspace, its data and its rules). Use the domain tools and the file tools. Policies: "
    "[judgement_1] Triage with the SLA matrix before dispatching. [hvac_trade_match] An hvac fault goes "
    "to an hvac tech. [electrical_trade_match] A lighting or door_access fault goes to an electrical "
    "tech. [plumbing_trade_match] A plumbing fault goes to a plumbing tech. [general_trade_match] An "
    "elevator or fire_safety fault goes to a general tech. [sla_matrix_1] Assets with criticality `high` "
    "are never below p2. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("facilities_work_orders", instructions=INSTRUCTIONS, version="1.0.0")
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
