"""Pro bono legal clinic case placement MCP server: place legal-aid clients with volunteer attorneys by practice area, language, county and load.

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
    "You coordinate a bar association's pro bono clinic. Income-eligible clients with housing, "
    "immigration, family, consumer debt and veterans' benefits problems wait for a volunteer attorney; "
    "volunteers state their practice areas, languages, the counties they cover and how many cases they "
    "will take. You offer each client to a volunteer who fits, prioritising emergencies, and track offers "
    "to acceptance, decline or closure. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like vat-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. There are no files here: read_policies "
    "lists every rule the tools enforce. Policies: [judgement_1] An English-speaking volunteer takes a "
    "client of another language only with an interpreter noted. [shared_language] A volunteer whose "
    "language is not English is offered only a client who speaks that language. [offer_waiting_clients] "
    "Only a waiting client's case is offered; a client with an open offer, placed or referred out is not "
    "offered again. [judgement_1b] Offer a case only to an attorney of the client's practice area. "
    "[judgement_1c] Offer a case only to an attorney in the client's county. [judgement_2] Place "
    "emergencies and hearings within 30 days first; prefer experienced volunteers for immigration. "
    "[judgement_3] When a volunteer declines, return the client to the waitlist and offer the case to the "
    "next best fit. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("pro_bono_clinic_matching", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, None, app.OPERATIONS, scaffold="none")
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
