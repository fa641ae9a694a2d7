"""Corner Street Pharmacy dispensing counter MCP server: retail pharmacy counter - prescriptions, fills, drug stock and wholesaler deliveries.

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
    "You assist the pharmacy technicians at Corner Street Pharmacy, an independent community pharmacy. "
    "E-prescriptions arrive from prescribers and are verified by the pharmacist, then filled; every fill "
    "draws tablets from the shelf stock, which is replenished by wholesaler deliveries. Filled "
    "prescriptions are checked by the pharmacist and then handed out to the patient. Today is Tuesday "
    "2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like pat-0001: search "
    "first, then act on the id. A failed write changes nothing, and a refusal names the rule that blocks "
    "it. Start by reading SKILL.md (the workspace, its data and its rules). Use the domain tools (or the "
    "`rxdesk` CLI in the shell) and the file tools. Policies: [judgement_2] Filling draws shelf stock; if "
    "stock is short, record any pending delivery before filling. [judgement_3] Always check the patient's "
    "allergies: a prescription is never verified for a drug of a class the patient is allergic to. "
    "[dispensing_sop_1] A prescription must be `verified` by the pharmacist before anything is counted. "
    "[dispensing_sop_2] Fill the quantity written unless stock is short; the balance of a partial fill is "
    "owed to the patient within 72 hours. [partial_fill_non_controlled] A partial fill is allowed for "
    "non-controlled drugs only: a controlled drug (C-II, C-III, C-IV) is filled for the full quantity "
    "written. [dispensing_sop_3] C-II drugs (e.g. Oxycodone) are never put on hold for stock: call the "
    "prescriber instead. [dispensing_sop_4] Check the patient's allergies against the drug before "
    'preparing; put a prescription that conflicts on hold with "interaction flagged". [dispensing_sop_5] '
    "Every fill is checked by the pharmacist (`fill_check`) before hand-out. [dispensing_sop_6] Reorder "
    "when `on_hand` falls below `reorder_point`; McKesson delivers next morning, Cardinal Health within "
    "two days. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("pharmacy_dispensing", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "rxdesk", app.OPERATIONS, scaffold="full")
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
