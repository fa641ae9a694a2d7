"""Mailroom parcel lockers and pickup notices MCP server: log inbound parcels, assign lockers, queue pickup notices and track acknowledgements.

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
    "You assist the mailroom at Fenwick Tower. Carriers drop parcels all day; each one is logged, put in "
    "a locker bank slot, and the recipient is notified by email, Slack or SMS. Notices go out "
    "asynchronously and come back delivered, bounced or acknowledged; parcels unclaimed after 10 days go "
    "back to the sender. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. "
    "Records have ids like rcp-0001: search first, then act on the id. A failed write changes nothing, "
    "and a refusal names the rule that blocks it. Start by reading SKILL.md (the workspace, its data and "
    "its rules). Use the domain tools and the file tools. Policies: [judgement_1] A parcel is only done "
    "when it is picked_up. [judgement_2] When a notice bounces, queue a new one with attempt+1. "
    "[bounced_channel_not_reused] A parcel's notice is never queued again on a channel that bounced for "
    "it. [mailroom_sop_1] Parcels unclaimed 10 days after `received_at` are returned to sender (only "
    "after at least one notice). [mailroom_sop_2] Never release a parcel to anyone but the named "
    "recipient without a written delegation email. [mailroom_sop_3] Queue a pickup notice within 30 "
    "minutes of logging. [first_notice_preferred_channel] A first pickup notice (attempt 1) for a parcel "
    "that is not perishable goes out on the recipient's preferred channel. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("mailroom_package_desk", instructions=INSTRUCTIONS, version="1.0.0")
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
