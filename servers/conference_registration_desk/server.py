"""DevHarbor Summit attendee help desk MCP server: tech conference help desk - attendee questions, registrations and breakout sign-ups.

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
    "You staff the attendee help desk of DevHarbor Summit, a three-day developer conference in Lisbon. "
    "Attendees write in by email, chat or at the booth about refunds, session changes, dietary needs and "
    "visa letters. You answer them following the FAQ, register walk-ups, and manage sign-ups for breakout "
    "sessions, which have limited seats. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like att-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools and the file tools. Policies: [judgement_1] "
    "Answer attendee questions from the FAQ; when information is missing, ask the attendee rather than "
    "guessing. [judgement_2] Check a session's sign-ups before promising a seat. [attendee_faq_1] "
    "Refunds: full refund until 15 November 2026; after that, tickets can be transferred to a colleague "
    "free of charge but not refunded. Student passes are never refundable. [attendee_faq_2] Dietary "
    "needs: update the attendee profile; changes after 2 December reach catering only for days 2 and 3. "
    "[attendee_faq_3] Day passes cannot sign up for workshops in Workshop Lab 1. [attendee_faq_4] "
    "Invoices: we reissue an invoice with a VAT number within 2 working days. [attendee_faq_5] Visa "
    "letters: need full name as in passport, passport number and nationality; ask the attendee for any "
    "that are missing before answering. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("conference_registration_desk", instructions=INSTRUCTIONS, version="1.0.0")
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
