"""Pulse & Flow fitness studio member desk MCP server: boutique fitness studio - member messages, class bookings with credits, freezes.

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
    "You answer members of Pulse & Flow, a boutique studio running reformer Pilates, spin, HIIT, yoga and "
    "boxing classes. Members message through the app, email or SMS to book or cancel classes, freeze "
    "their membership or ask about credits. Booking uses class credits and a spot in the class; "
    "cancellations follow the 12-hour policy. Replies follow the studio's templates. Today is Tuesday "
    "2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like mbr-0001: search "
    "first, then act on the id. A failed write changes nothing, and a refusal names the rule that blocks "
    "it. Start by reading SKILL.md (the workspace, its data and its rules). Use the domain tools (or the "
    "`pulseflow` CLI in the shell) and the file tools. Policies: [book_active_members_only] Only an "
    "active member books a class; a frozen or cancelled membership does not. [judgement_1] Reply in the "
    "studio's friendly voice using the templates. [judgement_2] Apply the 12-hour cancellation rule, and "
    "return credits by setting the member's balance. [reply_templates_1] Late cancel: \"Done - as it's "
    "within 12 hours the credit can't be returned, sorry!\". [studio_policies_1] Cancel 12 hours or more "
    "before class: credit returned (set the balance back). [reformer_costs_two_credits] Reformer classes "
    "cost 2 credits. [other_class_costs_one_credit] Every other class costs 1 credit. "
    "[unlimited_uses_no_credit] Unlimited members use 0 credits. [intro_offer_never_frozen] An "
    "intro_offer membership is never frozen. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("fitness_studio_classes", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "pulseflow", app.OPERATIONS, scaffold="full")
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
