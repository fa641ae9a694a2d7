"""Summit Peak ski & snowboard rental shop MCP server: ski rental shop - reserve packages from inventory, fit DIN settings, returns, damage.

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
    "You help the rental counter at Summit Peak's base-area ski and snowboard shop. Guests reserve "
    "equipment packages, which come out of the shop's available inventory; on pick-up a technician fits "
    "boots and sets bindings to the DIN from the fitting guide; gear comes back, runs overdue, or comes "
    "back damaged and is charged or waived under the rental terms. Today is Tuesday 2026-12-01; dates are "
    "YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like rnt-0001: search first, then act on the "
    "id. A failed write changes nothing, and a refusal names the rule that blocks it. Start by reading "
    "SKILL.md (the workspace, its data and its rules). Use the domain tools and the file tools. Policies: "
    "[judgement_1] Set DIN from the fitting guide using the renter's weight, skier type and age. "
    "[damage_at_listed_price] Damage is filed at its listed charge: core shot on base 60.00, bent edge "
    "90.00, broken binding toe piece 180.00, cracked helmet shell 75.00, lost pole 35.00, delaminated "
    "topsheet 220.00 (a waiver is applied afterwards with damage_report_waive). Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("ski_rental_shop", instructions=INSTRUCTIONS, version="1.0.0")
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
