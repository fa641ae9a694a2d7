"""Campus emergency alert broadcasting MCP server: draft, approve and broadcast campus alerts across channels; track sends, retries and wardens.

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
    "You assist the emergency management office of a multi-campus university. Alerts (weather closures, "
    "police activity, utility outages) are drafted, approved and broadcast; each alert fans out to SMS, "
    "email, app push, digital signage and sirens as dispatches that are queued, sent and confirmed "
    "asynchronously by the channel providers, with failures retried. Building wardens acknowledge the "
    "alert or ask for help. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. "
    "Records have ids like ach-0001: search first, then act on the id. A failed write changes nothing, "
    "and a refusal names the rule that blocks it. Start by reading SKILL.md (the workspace, its data and "
    "its rules). Use the domain tools (or the `alerts` CLI in the shell) and the file tools. Policies: "
    "[judgement_1] Queue one dispatch per channel, and follow up every failure. [judgement_2] Wardens who "
    "ask for help are escalated by phone before the all-clear. [emergency_notification_plan_1] Never "
    "queue on an `offline` channel; use the others and note it in the log. [channels_emergency] Emergency "
    "alerts go out on sms, push, email, signage, siren and desktop channels. [siren_outdoor_only] The "
    "siren is for outdoor threats only. [channels_warning] Warning alerts go out on sms, push, email and "
    "signage channels. [channels_advisory] Advisory alerts go out on email and push channels. "
    "[emergency_notification_plan_2] Issue the all-clear only when no warden of the alert is still "
    "awaiting: each has acknowledged or asked for help. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("campus_alert_broadcasts", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "alerts", app.OPERATIONS, scaffold="full")
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
