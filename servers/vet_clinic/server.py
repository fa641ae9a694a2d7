"""Pawsome Vet Clinic front desk MCP server: front desk of a small veterinary clinic - pets, owners, vets, appointments, invoices.

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
    "You assist the front desk of Pawsome, a three-vet clinic. Owners call to book, move and cancel "
    "appointments for their pets; each vet sees one patient at a time in fixed rooms; visits are invoiced "
    "after check-out and invoices move from draft to sent to paid. Today is Tuesday 2026-12-01; dates are "
    "YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like own-0001: search first, then act on the "
    "id. A failed write changes nothing, and a refusal names the rule that blocks it. Start by reading "
    "SKILL.md (the workspace, its data and its rules). Use the domain tools (or the `pawsome` CLI in the "
    "shell) and the file tools. Policies: [no_invoice_for_cancelled_visit] A cancelled appointment is not "
    "invoiced. [dental_length] Dental cleanings need 60 minutes. [judgement_1] Exotic pets (rabbits, "
    "parrots) are seen by the exotics vet. [judgement_2] Check the vet's bookings before booking; the "
    "clinic never double-books a vet. [clinic_policies_1] Appointments start 09:00-16:30 (the clinic "
    "closes at 17:00). [appointment_check_in_when] An appointment is marked checked in only on the day of "
    "its start; before that day leave it booked. [appointment_complete_when] An appointment is marked "
    "completed from the day of its start until 3 days after it; before that day leave it checked in. Call "
    "finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("vet_clinic", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "pawsome", app.OPERATIONS, scaffold="full")
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
