"""Trademark clearance and filing practice MCP server: clearance searches to trademark applications, office-action responses and registrations.

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
    "You support a boutique IP firm's trademark practice. For each brand client, a proposed mark is first "
    "cleared with a search report; cleared marks become applications that are filed with the trademark "
    "office, examined, sometimes hit with office actions that need timely responses, then published and "
    "registered. Docket reports and the filing checklist sit in the workspace. Today is Tuesday "
    "2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like bcl-0001: search "
    "first, then act on the id. A failed write changes nothing, and a refusal names the rule that blocks "
    "it. Start by reading SKILL.md (the workspace, its data and its rules). Use the domain tools and the "
    "file tools. Policies: [specimen_for_use] Use_in_commerce filings need a specimen showing the mark on "
    "goods or the website; otherwise file intent_to_use. [judgement_1] Pipeline: clearance order -> "
    "complete -> clear -> application prepare -> file -> (office action -> response) -> publish -> "
    "register. [filing_checklist_1] Clear before filing: only `low` or `moderate` risk reports are "
    "cleared. [filing_checklist_1b] A `moderate` report needs the client's written acknowledgement of "
    "risk before it is cleared. [filing_checklist_2] The application's mark must match the cleared "
    "report's mark exactly. [filing_checklist_2b] The application's class must match the cleared report's "
    "class; a new class needs a new search. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("trademark_filing_pipeline", instructions=INSTRUCTIONS, version="1.0.0")
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
