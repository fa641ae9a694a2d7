"""Engineering change orders at Velo Dynamics MCP server: engineering change orders: drafted, cross-functional sign-offs, approval and implementation.

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
    "You coordinate engineering change orders (ECOs) at Velo Dynamics, an e-bike manufacturer. An ECO "
    "changes a part's design or supplier; it is drafted, submitted, reviewed by design, manufacturing, "
    "quality and supply chain, approved by the change board, and implemented on its effectivity date "
    "after every affected drawing, BOM and work instruction is updated. Today is Tuesday 2026-12-01; "
    "dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like epn-0001: search first, then "
    "act on the id. A failed write changes nothing, and a refusal names the rule that blocks it. Start by "
    "reading SKILL.md (the workspace, its data and its rules). Use the domain tools (or the `ecoflow` CLI "
    "in the shell) and the file tools. Policies: [eco_procedure_1] Ask every required approver for a "
    "sign-off; one rejection sends the ECO back (reject it and redraft). "
    "[approve_only_with_signoffs_approved] The board approves only when every sign-off requested is "
    "approved (none pending or rejected). [implement_only_with_documents_updated] Implement only when "
    "every affected document is updated. [eco_procedure_2] Production parts need at least 14 days between "
    "approval and effectivity: the board approves an ECO of a production part only when its "
    "effectivity_date is 14 or more days away. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("engineering_change_orders", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "ecoflow", app.OPERATIONS, scaffold="full")
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
