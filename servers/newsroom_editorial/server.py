"""Metro newsroom editorial workflow MCP server: pitch, assign, draft, copy-edit, legal-check, publish and slot stories into print editions.

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
    "You assist the metro desk editor of a regional daily. Stories are pitched, assigned to reporters on "
    "the right beat who are not over their active-story limit, drafted, copy-edited, sent to legal when "
    "they name private individuals or allege wrongdoing, marked ready and published online; ready stories "
    "may also be slotted into a print edition with a fixed number of story slots. Photos have their "
    "rights cleared. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. "
    "Records have ids like rpt-0001: search first, then act on the id. A failed write changes nothing, "
    "and a refusal names the rule that blocks it. Start by reading SKILL.md (the workspace, its data and "
    "its rules). Use the domain tools (or the `newsdesk` CLI in the shell) and the file tools. Policies: "
    "[judgement_1] Move each story one stage at a time, routing sensitive stories through legal. "
    "[judgement_2] Check the edition's section and free slots before slotting into print. "
    "[editorial_standards_1] Assign stories to a reporter on the same beat; courts stories go only to the "
    "courts beat. [editorial_standards_2] Stories with legal_sensitivity other than `routine` must pass "
    "legal_review before they are ready. [editorial_standards_3] Print: the front section gets at most 5 "
    "stories. [metro_length_limit] Metro section stories over 1,800 words are trimmed or held for the "
    "weekend edition, never slotted into metro. [editorial_standards_4] Photos: `handout` images need the "
    "source credited; `licensed` images only if the licence covers print. [editorial_standards_5] "
    "Embargoed stories (marked in the pitch) publish no earlier than the embargo time. Call finish when "
    "done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("newsroom_editorial", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "newsdesk", app.OPERATIONS, scaffold="full")
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
