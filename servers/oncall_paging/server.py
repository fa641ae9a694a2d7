"""Lumen Pay on-call paging console MCP server: on-call paging - monitoring alerts, pages to engineers, escalation and maintenance.

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
    "You assist the site reliability team at Lumen Pay, a payments start-up. Monitoring tools fire alerts "
    "on services; each alert pages the on-call engineer, and pages go pending, delivered and acknowledged "
    "- or expire, which triggers a page to the next escalation level. During planned maintenance windows, "
    "alerts from that service are suppressed instead of paged. Today is Tuesday 2026-12-01; dates are "
    "YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like eng-0001: search first, then act on the "
    "id. A failed write changes nothing, and a refusal names the rule that blocks it. Start by reading "
    "SKILL.md (the workspace, its data and its rules). Use the domain tools and the file tools. Policies: "
    "[judgement_1] Follow the escalation policy: page the owning team's level-1 engineer, expire pages "
    "that time out, then page the next level. [judgement_2] Suppress an alert only when a maintenance "
    "window of its service (not cancelled) covers the time it fired. [escalation_policy_1] Sev1 and sev2 "
    "page the service owner team's level-1 engineer immediately by their notification preference. "
    "[sev3_push_only] Sev3 pages by push only. [sev3_daytime_only] Sev3 pages only during 09:00-18:00. "
    "[sev4_never_pages] Sev4 never pages. [runbook_checkout_api_1] Resolve the alert only once the metric "
    "has been back under threshold for 10 minutes. [escalation_policy_2] A page not acknowledged within 5 "
    "minutes (sev1) or 15 minutes (sev2/sev3) expires; page the same team's next level by voice. Call "
    "finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("oncall_paging", instructions=INSTRUCTIONS, version="1.0.0")
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
