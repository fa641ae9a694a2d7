"""Oakmont Property Management maintenance desk MCP server: residents' repair requests: triage, technician visits without double-booking, resident notices.

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
    "You staff the resident maintenance desk at Oakmont Property Management. Residents report leaks, "
    "broken heaters and lockouts; you log and triage requests by urgency, schedule a technician of the "
    "right trade (no technician in two places at once), keep the resident informed by their preferred "
    "channel, and close requests once the work is confirmed. Today is Tuesday 2026-12-01; dates are "
    "YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like res-0001: search first, then act on the "
    "id. A failed write changes nothing, and a refusal names the rule that blocks it. There are no files "
    "here: read_policies lists every rule the tools enforce. Policies: [judgement_1] Emergencies (active "
    "leaks, no heat below 55 F, lockouts, sparking) get a visit within 4 hours; urgent within 48 hours; "
    "routine within 7 days. [judgement_2] Plumbing, electrical and hvac requests go to a technician of "
    "that trade. [judgement_2b] General techs take appliance, pest and lock_and_key requests. "
    "[notify_resident] Always notify the resident on their preferred channel after scheduling or when a "
    "visit is missed (resident_notice_send); such a notice is expected, never a stray change. "
    "[repair_visit_mark_missed_when] A repair visit is marked missed from the day of its start until 3 "
    "days after it; before that day leave it scheduled. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("tenant_maintenance_requests", instructions=INSTRUCTIONS, version="1.0.0")
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
