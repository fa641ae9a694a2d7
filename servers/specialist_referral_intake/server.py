"""Riverside Hospital specialist referral intake MCP server: referral coordinator desk - faxed referrals to triage to booked specialist consults.

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
    "You support the referral coordinators at Riverside Hospital's outpatient specialty clinics. "
    "Primary-care practices fax referral letters, which land as documents in the inbox folder. Each "
    "letter is registered as a referral, triaged by urgency to a specialist, and booked into a consult "
    "slot. Each specialist has a cap on outstanding new patients. Today is Tuesday 2026-12-01; dates are "
    "YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like rpr-0001: search first, then act on the "
    "id. A failed write changes nothing, and a refusal names the rule that blocks it. Start by reading "
    "SKILL.md (the workspace, its data and its rules). Use the domain tools and the file tools. Policies: "
    "[consult_for_live_referral] A consult is booked only for a referral that is received, triaged or "
    "booked, never a rejected or closed one. [no_attendance_on_rejected_referral] A consult of a rejected "
    "referral is not marked attended. [judgement_1] Work the inbox in order: register each faxed letter, "
    "triage it, then book a consult within the window its urgency allows. [judgement_2] Check the "
    "specialist's existing consults before booking. [triage_guidelines_1] Out-of-network practices: "
    "register the referral, but note that the patient must confirm self-pay before a consult is booked. "
    "[consult_mark_attended_when] A consult is marked attended from the day of its start until 3 days "
    "after it; before that day leave it scheduled. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("specialist_referral_intake", instructions=INSTRUCTIONS, version="1.0.0")
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
