"""St. Brigid's hospital lab critical-result alerting MCP server: hospital lab desk - orders, results and critical-value alerts paged to clinicians.

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
    "You help the core laboratory's result desk at St. Brigid's Hospital. Lab orders are collected on the "
    "wards and resulted by the analyzers; critical values are alerted to the ordering clinician, who "
    "acknowledges them with a read-back. Alerts are queued, delivered by pager or secure chat, and "
    "escalated to the unit's attending if nobody acknowledges them in time. Today is Tuesday 2026-12-01; "
    "dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like cln-0001: search first, then "
    "act on the id. A failed write changes nothing, and a refusal names the rule that blocks it. There "
    "are no files here: read_policies lists every rule the tools enforce. Policies: [judgement_1] "
    "Critical results must be acknowledged by read-back within 30 minutes. [judgement_2] If an alert "
    "fails or is not acknowledged, escalate it and queue the next attempt (attempt + 1); the attending it "
    "goes to is the one of the patient's unit. [repeat_alert_by_phone] A repeat alert (attempt 2 or more) "
    "goes by phone_call. [repeat_alert_to_attending] A repeat alert (attempt 2 or more) goes to an "
    "attending. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("lab_result_alerts", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, None, app.OPERATIONS, scaffold="none")
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
