"""News syndication feed distribution MCP server: push articles to syndication partners, track delivery acks and rejections, issue takedowns.

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
    "You run content syndication for a digital news publisher. Published articles that are cleared for "
    "syndication are pushed to partners (news apps and aggregators) as feed deliveries, each partner with "
    "a daily quota. Partners accept, acknowledge or reject deliveries asynchronously; rejections are "
    "fixed and requeued. When an article is corrected or its rights expire, takedown requests go out and "
    "partners confirm removal. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like spt-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools (or the `syndicate` CLI in the shell) and "
    "the file tools. Policies: [judgement_1] Check an article's rights before pushing and follow the "
    "rejection table before requeueing. [syndication_terms_1] Only `syndicatable` articles may be pushed. "
    "`wire_restricted` (AP/Reuters copy) never leaves our site; `embargoed` waits until the embargo "
    "lifts; `no_syndication` never. [syndication_terms_2] Opinion goes only to Apple News and Flipboard. "
    '[syndication_terms_3] Rejections: "image too small" -> swap the lead image (min 1200 px) and '
    'requeue; "category not mapped" -> map the section and requeue; "duplicate guid" -> do not requeue; '
    '"HTTP 500 from partner" -> requeue once. [syndication_terms_4] Corrections: issue a takedown with '
    "reason `correction` to every partner that received the article, then push the corrected version. "
    "Legal takedowns must be confirmed within 4 hours. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("syndication_feed_distribution", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "syndicate", app.OPERATIONS, scaffold="full")
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
