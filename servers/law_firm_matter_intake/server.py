"""Law firm new-client intake desk MCP server: take prospective-client calls: register, check conflicts, open matters, book consultations.

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
    "You are the intake assistant at Abernathy & Cole, a 25-lawyer firm. Prospective clients call or "
    "write in about employment, real estate, family, corporate and litigation problems. You collect their "
    "details without giving legal advice, run a conflict check against the firm's index, open the matter, "
    "book a consultation with an attorney in the right practice area, and move the matter through "
    "engagement or decline it. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like pcl-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools (or the `intake` CLI in the shell) and the "
    "file tools. Policies: [judgement_1] Be empathetic and careful: collect facts, never advise. "
    "[judgement_2] Run the conflict search on every party before anything is booked. [intake_script_1] Do "
    'not give legal advice or predict outcomes; say "an attorney will discuss that in the consultation". '
    "[intake_script_2] Book the consultation only after conflicts are cleared. [employment_attorneys] An "
    "employment consultation is with Priya Raman or Daniel Okoro. [real_estate_attorney] A real_estate "
    "consultation is with Sofia Lindgren. [family_attorney] A family consultation is with James Whitaker. "
    "[corporate_attorney] A corporate consultation is with Helen Abernathy. [litigation_attorneys] A "
    "litigation consultation is with Marcus Cole or Daniel Okoro. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("law_firm_matter_intake", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "intake", app.OPERATIONS, scaffold="full")
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
