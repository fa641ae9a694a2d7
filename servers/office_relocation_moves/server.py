"""Office relocation move coordination MCP server: coordinate desk moves: survey, issue crates, pack, move, reconnect IT and close tickets.

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
    "You help Priya, the workplace coordinator, run a series of office moves at Larkfield's HQ. Each "
    "employee move is a ticket that flows through a fixed sequence: request, site survey, crate issue, "
    "packing, the weekend move, IT reconnection, and close. Crates come from shared pools with limited "
    "stock. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have "
    "ids like rlp-0001: search first, then act on the id. A failed write changes nothing, and a refusal "
    "names the rule that blocks it. Start by reading SKILL.md (the workspace, its data and its rules). "
    "Use the domain tools (or the `movedesk` CLI in the shell) and the file tools. Policies: "
    "[judgement_1] Follow the ticket sequence strictly. [judgement_2] Before closing, check "
    "needs_it_reconnect on the ticket. [move_playbook_1] Packing must be finished by 15:00 on the Friday "
    "before the project's move weekend. [move_playbook_2] A ticket with `needs_it_reconnect: true` must "
    "not be closed straight from `moved`: IT reconnects first. [move_playbook_3] Tickets can be cancelled "
    "only before crates are issued. [move_playbook_4] Survey within 3 working days of the request; "
    "standard desks need 2 crates, managers 4, lab benches 6. [move_playbook_5] Crates are returned "
    "within 5 days of the move; mark the crate issue returned. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("office_relocation_moves", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "movedesk", app.OPERATIONS, scaffold="full")
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
