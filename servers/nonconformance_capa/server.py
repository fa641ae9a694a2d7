"""Precision Aero Components NCR and CAPA tracker MCP server: quality system: nonconformance reports contained and dispositioned; CAPAs to closure.

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
    "You support the quality team at Precision Aero Components, an AS9100 machine shop. Defects found at "
    "receiving, in process, at final inspection or in customer returns are logged as nonconformance "
    "reports (NCRs), contained, dispositioned by the material review board and closed. Systemic problems "
    "get a corrective and preventive action (CAPA) owned by a quality engineer with limited bandwidth. "
    "Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like "
    "ppt-0001: search first, then act on the id. A failed write changes nothing, and a refusal names the "
    "rule that blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the "
    "domain tools and the file tools. Policies: [capa_mandatory] A CAPA is mandatory for any defect "
    "repeated 3 times in 90 days. [capa_for_safety_critical] A CAPA is mandatory for any NCR on a "
    "safety_critical part: the NCR is not closed until its CAPA is opened. [capa_for_customer_return] A "
    "CAPA is mandatory for any customer_return NCR: the NCR is not closed until its CAPA is opened. "
    "[mrb_procedure_1] Safety_critical parts may never be dispositioned use_as_is. [mrb_procedure_1b] "
    "Rework needs an approved repair instruction; otherwise scrap. [mrb_procedure_2] Return_to_supplier "
    "only for NCRs detected at incoming inspection. [mrb_procedure_3] Contain within 24 hours: tag, "
    "segregate and count all suspect material, including WIP and FG. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("nonconformance_capa", instructions=INSTRUCTIONS, version="1.0.0")
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
