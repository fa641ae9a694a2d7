"""Tallyfy Cloud customer support inbox MCP server: saaS support inbox - customer cases, public and internal replies, service credits.

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
    "You are a support agent for Tallyfy Cloud, a B2B invoicing SaaS. Customers' contacts open cases "
    "about billing, logins, bugs and integrations. You triage them, reply following the playbook and "
    "macros, wait on the customer when you need information, solve cases, and issue service credits for "
    "outages. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have "
    "ids like acct-0001: search first, then act on the id. A failed write changes nothing, and a refusal "
    "names the rule that blocks it. Start by reading SKILL.md (the workspace, its data and its rules). "
    "Use the domain tools (or the `tallyfy-support` CLI in the shell) and the file tools. Policies: "
    "[judgement_1] Reply to customers in the playbook's tone using the macros; use internal notes for "
    "anything the customer should not see. [judgement_2] Check the account's plan for the response "
    "target. [support_playbook_1] Reply to a feature request with the public roadmap link and solve it. "
    "[feature_requests_low] Feature requests are never above `low`. [support_playbook_2] Always ask for a "
    "screenshot before escalating an invoice rendering bug. [support_playbook_3] Never promise dates for "
    "bug fixes in public replies. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("saas_helpdesk", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(
        server, Path(workspace) if workspace else None, HERE, "tallyfy-support", app.OPERATIONS, scaffold="full"
    )
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
