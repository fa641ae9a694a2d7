"""Year-end audit evidence requests (PBC list) MCP server: external audit PBC list: evidence requests to client staff, follow-ups, reviews and notes.

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
    "You support the audit senior of Calder & Voss LLP during the year-end audit of Meridian Outdoor Co. "
    'Auditors request evidence ("prepared by client" items) from named client contacts, chase overdue '
    "items politely, review what comes back and either accept it or send it back for rework with a clear "
    "note the client can act on. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like cct-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools (or the `pbc` CLI in the shell) and the "
    "file tools. Policies: [at_most_three_reminders] A request gets at most three reminders "
    "(follow_up_count 3); the same contact is not chased a fourth time. [escalate_after_third_reminder] "
    "After the third reminder escalate to the Controller. [judgement_1] Be courteous and specific with "
    "the client. [judgement_2] Confirm with the user before cancelling a request or changing a due date "
    "by more than 7 days. [client_communication_guidelines_1] Due date extensions up to 7 days may be "
    "granted by the senior; longer needs the partner. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("audit_evidence_requests", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "pbc", app.OPERATIONS, scaffold="full")
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
