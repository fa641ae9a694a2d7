"""Release train and change approvals MCP server: drive release candidates through freeze, QA sign-off, CAB approval and deploy windows.

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
    "You assist the release manager of a fintech platform that ships on a two-week train. Each service's "
    "release candidate passes code freeze, QA sign-off and change advisory board (CAB) approval, then "
    "gets a production deploy window. Change tickets are attached to candidates, and bad releases are "
    "rolled back. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records "
    "have ids like svc-0001: search first, then act on the id. A failed write changes nothing, and a "
    "refusal names the rule that blocks it. Start by reading SKILL.md (the workspace, its data and its "
    "rules). Use the domain tools and the file tools. Policies: [deploy_cab_approved_only] Deploy windows "
    "are booked only for CAB-approved candidates. [prod_deploy_days] Production deploys happen Tuesday to "
    "Thursday only, never on a Friday or at the weekend. [prod_eu_window] Prod_eu deploys start between "
    "06:00 and 08:00 UTC. [prod_us_window] Prod_us deploys start between 14:00 and 16:00 UTC. "
    "[judgement_1] Move candidates one stage at a time. [release_process_1] CAB meets Monday 16:00 and "
    "reviews only QA-signed-off candidates. Any `high` risk change ticket needs the owning team lead "
    "present at CAB. [release_process_2] Deploy windows in one environment may not overlap. "
    "[release_process_3] Code freeze is the Thursday before; QA sign-off by Monday 17:00. "
    "[release_process_4] Tier1 services deploy to staging at least 24 hours before production. Call "
    "finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("release_train", instructions=INSTRUCTIONS, version="1.0.0")
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
