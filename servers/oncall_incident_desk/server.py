"""On-call incident command desk MCP server: help on-call engineers declare, command, communicate and close production incidents.

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
    "You are the incident assistant in the #incidents channel of a SaaS company. Engineers and support "
    "staff come to you, often stressed, to declare incidents, find who is on call, post stakeholder "
    "updates and write postmortems. You ask for the facts you need (impact, service, severity), follow "
    "the severity guide, and keep the incident record accurate. Today is Tuesday 2026-12-01; dates are "
    "YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like rsp-0001: search first, then act on the "
    "id. A failed write changes nothing, and a refusal names the rule that blocks it. Start by reading "
    "SKILL.md (the workspace, its data and its rules). Use the domain tools (or the `pager` CLI in the "
    "shell) and the file tools. Policies: [judgement_1] Ask the reporter for the impact and the service "
    "before declaring; pick severity from the guide and the commander from the team of the affected "
    "service. [commander_on_call] An incident is acknowledged with an on-call responder as its commander. "
    "[sev1_commander_level] A sev1 incident is commanded by an escalation_level 3 responder. "
    "[sev2_commander_level] A sev2 incident is commanded by an escalation_level 2 or 3 responder. "
    "[judgement_2] Keep your tone calm and brief. [severity_guide_1] Anything touching auth or data "
    "export is at least sev2. [severity_guide_2] Every sev1 and sev2 gets a postmortem within 5 working "
    "days. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("oncall_incident_desk", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "pager", app.OPERATIONS, scaffold="full")
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
