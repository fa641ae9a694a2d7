"""Lighthouse Literacy donor acknowledgement desk MCP server: nonprofit gift processing - thank-you letters queued, sent, delivered or bounced; matches.

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
    "You help the development office of Lighthouse Literacy, a nonprofit running adult reading programs. "
    "Every gift is acknowledged: acknowledgements are queued, handed to the mail house or email service, "
    "and come back as delivered or bounced through delivery events. Bounced emails need the donor's "
    "contact fixed and a new acknowledgement. Gifts from employees of matching-gift companies also get a "
    "match request tracked to payment. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like dnr-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools (or the `lighthouse` CLI in the shell) and "
    "the file tools. Policies: [judgement_1] Keep every gift moving: queue the right template on the "
    "right channel, follow delivery events, handle bounces by fixing contact details, and close gifts "
    "once delivered. [acknowledgement_policy_1] Channel: the donor's preferred_channel, except major gift "
    "letters. [major_gift_letter_postal] Major gift letters always go by postal (the board chair's "
    "phone_call comes on top). [acknowledgement_policy_2] Close the gift (acknowledged) only when an "
    "acknowledgement is delivered. [acknowledgement_policy_3] Every gift gets an acknowledgement within "
    "48 hours of `received`. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("donor_acknowledgements", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "lighthouse", app.OPERATIONS, scaffold="full")
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
