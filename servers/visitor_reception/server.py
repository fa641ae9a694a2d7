"""Reception desk visitor management MCP server: front-desk visitor check-in: pre-registration, hosts, badges, escorts and check-out.

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
    "You sit at the reception desk of Meridian Labs' office and talk with visitors and their hosts. Hosts "
    "pre-register guests; when a guest arrives you find the visit, check them in, issue a badge, and call "
    "an escort for secure floors. You answer guests politely and ask for missing details. Today is "
    "Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like hst-0001: "
    "search first, then act on the id. A failed write changes nothing, and a refusal names the rule that "
    "blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the domain tools "
    "and the file tools. Policies: [secure_floor_badge] Secure floors (7-9, visits with access_zone "
    "`secure`) need an `escort_required` badge and an escort; other floors get a `visitor` badge. "
    "[judgement_1] Talk to the guest: confirm their name and host before searching, and explain any "
    "refusal with the next step (e.g. asking the host to pre-register). [front_desk_guide_1] Ask a guest "
    "without a signed NDA who is visiting above floor 5 to sign the paper NDA at the desk. "
    "[nda_above_floor_5] Guests without a signed NDA may not go above floor 5: a guest whose host sits on "
    "floor 6 or higher is checked in only with nda_signed on their profile. [front_desk_guide_2] "
    "Contractors get a `contractor` badge and must check out by 18:00. [front_desk_guide_3] Guests more "
    "than 45 minutes late are marked no_show only after the host confirms. [front_desk_guide_4] Look up "
    "the visit before anything else. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("visitor_reception", instructions=INSTRUCTIONS, version="1.0.0")
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
