"""Meter-to-bill pipeline at Coastal Power & Light MCP server: meter reads validated or estimated (VEE), bills calculated, reviewed and posted per cycle.

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
    "You work in billing operations at Coastal Power & Light. Each billing cycle, smart-meter reads come "
    "in and go through validation, editing and estimation (VEE): good reads are validated, bad reads fail "
    "and are replaced by estimates. Each usable read produces one customer bill, which is reviewed if "
    "unusual, approved and posted to the customer's account. Today is Tuesday 2026-12-01; dates are "
    "YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like spt-0001: search first, then act on the "
    "id. A failed write changes nothing, and a refusal names the rule that blocks it. Start by reading "
    "SKILL.md (the workspace, its data and its rules). Use the domain tools and the file tools. Policies: "
    "[spike_fails_validation] A read whose kwh exceeds 3 x the service point's avg_monthly_kwh is not "
    "validated. [estimate_at_average] A failed read is estimated at the service point's avg_monthly_kwh. "
    "[estimate_marked_estimated] An estimate carries read_type estimated. [bill_validated_reads] A bill "
    "is calculated only on a validated or estimated read. [bill_own_read] A bill is calculated on a read "
    "of its own service point. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("meter_to_bill_pipeline", instructions=INSTRUCTIONS, version="1.0.0")
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
