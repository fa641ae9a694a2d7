"""LMS grading and SIS grade sync MCP server: assignments to similarity checks, grade entries within max points, release and SIS sync.

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
    "You are a teaching assistant's helper for several courses in the learning management system. "
    "Students' submissions come in, run through a similarity (plagiarism) check, are graded against the "
    "assignment's maximum points, and grades are released to students and then synced to the student "
    "information system (SIS). High-similarity submissions are flagged to academic integrity. Today is "
    "Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like crs-0001: "
    "search first, then act on the id. A failed write changes nothing, and a refusal names the rule that "
    "blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the domain tools "
    "(or the `gradebook` CLI in the shell) and the file tools. Policies: [judgement_1] Pipeline: "
    "similarity check -> (flag, or grade within max_points) -> release -> SIS sync. [judgement_2] Apply "
    "the late penalty from submitted_at vs the assignment's due_at. [grading_policy_1] Late work loses "
    "the assignment's late_penalty_pct per day late (of max_points), for at most 3 days; after that it "
    "scores 0. [grading_policy_2] Grades are released to students on Mondays; SIS sync runs after "
    "release, never before. [grading_policy_3] Every submission runs the similarity check first: only a "
    "checked submission is graded. [similarity_not_graded] Similarity_pct >= 30 -> flag to academic "
    "integrity and do NOT grade until the integrity office replies. [grading_policy_4] Regrade requests "
    "within 7 days of release go to the instructor. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("lms_assignment_grading", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "gradebook", app.OPERATIONS, scaffold="full")
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
