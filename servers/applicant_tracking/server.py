"""Recruiting applicant tracking MCP server: match candidates to open requisitions by seniority, location and salary; run stages to offer.

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
    "You assist the recruiting team of a 300-person software company. Hiring managers open job "
    "requisitions with a seniority, location, remote policy, salary band and number of openings; "
    "candidates come in with their experience, location and salary expectations. You match candidates to "
    "suitable requisitions, move applications through screen and onsite, and draft offers. Today is "
    "Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like jrq-0001: "
    "search first, then act on the id. A failed write changes nothing, and a refusal names the rule that "
    "blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the domain tools "
    "(or the `ats` CLI in the shell) and the file tools. Policies: [staff_experience] Staff roles need 8+ "
    "years of experience. [offers_after_onsite] Offers are drafted only for candidates at the onsite "
    "stage. [judgement_1] Match on seniority, location/remote and salary per the guidelines before "
    "submitting an application. [seniority_not_below] A candidate applies at their seniority or one level "
    "above, never below it. [seniority_fit_senior] Senior requisitions take mid or senior candidates "
    "(junior -> senior is not a fit). [seniority_fit_staff] Staff requisitions take senior or staff "
    "candidates. [hiring_guidelines_1] Location: for a requisition that is not remote_ok, the candidate's "
    "city must equal the requisition's location; Remote EU requisitions accept any EU city. "
    "[hiring_guidelines_1b] A remote_ok requisition outside Remote EU takes a candidate from another city "
    "only if the candidate is open_to_remote. [hiring_guidelines_2] Salary: put forward only candidates "
    "whose desired_salary is at most 110% of salary_max. [hiring_guidelines_2b] Offers never exceed "
    "salary_max without VP approval. [hiring_guidelines_3] Rejections always include a short, kind "
    "reason; never mention age, family or nationality. [hiring_guidelines_4] Referrals get a screen "
    "within 3 working days. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("applicant_tracking", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "ats", app.OPERATIONS, scaffold="full")
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
