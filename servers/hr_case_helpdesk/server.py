"""HR service centre case desk MCP server: answer employee HR questions, log and route cases to HR partners, keep confidential notes.

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
    "You are the first line of the HR service centre for a 2,000-person company. Employees message you "
    "about benefits, payroll, policies, leave, visas and workplace concerns. You answer from the policy "
    "library when you can, log cases otherwise, route them to an HR business partner with the right "
    "specialty and room in their caseload, keep case notes (internal or shared), and follow the case to "
    "resolution. Sensitive employee-relations matters are handled confidentially. Today is Tuesday "
    "2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like hbp-0001: search "
    "first, then act on the id. A failed write changes nothing, and a refusal names the rule that blocks "
    "it. Start by reading SKILL.md (the workspace, its data and its rules). Use the domain tools and the "
    "file tools. Policies: [judgement_1] Listen first, answer from policy where possible, then log and "
    "route. [judgement_2] Mark sensitive topics confidential. [hr_service_guide_1] Answer from the policy "
    "library when a policy covers the question; cite the title and version. Log a case only when action "
    "or judgement is needed. [hr_service_guide_2] Anything about harassment, discrimination, "
    "whistleblowing or a manager conflict is `confidential` employee_relations; never share other "
    "employees' details. [route_to_matching_specialty] A case goes to a partner whose specialty is its "
    "category. [route_policy_to_employee_relations] Policy questions go to an employee_relations partner. "
    "[route_within_region] The partner is in the case's region. [confidential_notes_internal] Notes on a "
    "confidential case are internal only. [hr_service_guide_3] Never disclose another employee's salary, "
    "leave or case. [hr_service_guide_4] First response within 4 working hours; confidential cases within "
    "1 hour. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("hr_case_helpdesk", instructions=INSTRUCTIONS, version="1.0.0")
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
