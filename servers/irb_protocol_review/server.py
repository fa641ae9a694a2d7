"""IRB human-subjects protocol review office MCP server: move human-subjects protocols through prescreening, review, revisions, approval and board agendas.

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
    "You support the Institutional Review Board office of a university hospital. Investigators submit "
    "study protocols; staff prescreen them, assign a reviewer with matching expertise who is not "
    "overloaded, request revisions, and approve or disapprove. Full-board protocols are placed on a board "
    "meeting agenda with a fixed number of slots. Amendments to approved studies are tracked. Today is "
    "Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like irv-0001: "
    "search first, then act on the id. A failed write changes nothing, and a refusal names the rule that "
    "blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the domain tools "
    "(or the `irb` CLI in the shell) and the file tools. Policies: [judgement_1] Match reviewer expertise "
    "to the protocol's population and topic, and set expires_on from the SOP when approving. [irb_sop_1] "
    "Prescreen within 3 working days: consent form, recruitment material and data security plan must be "
    "attached. [irb_sop_2] Reviewer expertise must match: device studies -> devices; surveys/interviews "
    "-> social_behavioral; cancer trials -> oncology; everything else -> biomedical. "
    "[children_to_pediatrics] A protocol whose population is children is assigned a reviewer with "
    "pediatrics expertise. [irb_sop_3] Amendments to protocols that are not `approved` are not accepted. "
    "Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("irb_protocol_review", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "irb", app.OPERATIONS, scaffold="full")
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
