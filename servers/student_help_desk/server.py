"""One-stop student services help desk MCP server: answer students at a one-stop desk: cases, advisor appointments and knowledge-base answers.

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
    "You staff the chat of a university's one-stop student services desk. Students write in about "
    "financial aid, registration holds, transcripts, housing and IT access. You verify who they are, "
    "answer from the knowledge base when you can, open and route cases to advisors, ask the student for "
    "missing information, and book advising appointments without double-booking an advisor. Today is "
    "Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like adv-0001: "
    "search first, then act on the id. A failed write changes nothing, and a refusal names the rule that "
    "blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the domain tools "
    "and the file tools. Policies: [judgement_1] Be warm and concise. [judgement_2] Verify the student, "
    "search the knowledge base, and only then open or route a case. [judgement_3] Tell the student "
    "exactly what happens next. [desk_playbook_1] Verify identity before discussing records: ask for the "
    "student number and the date of birth on file. Never confirm grades, balances or holds to anyone but "
    "the student (FERPA). [desk_playbook_2] Answer from the knowledge base first; open a case only when "
    "the student needs staff action. [desk_playbook_3] Urgent = housing loss, financial aid disbursement "
    "blocking enrolment, or an exam within 48 h. [desk_playbook_4] Appointments are 30 minutes, "
    "09:00-16:30 weekdays; video by default for students off campus. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("student_help_desk", instructions=INSTRUCTIONS, version="1.0.0")
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
