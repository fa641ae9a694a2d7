"""Semi-monthly payroll close MCP server: timesheets to pay run: approve, export, calculate, issue payslips, send bank file, post to GL.

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
    "You assist the payroll specialist of a 150-employee services firm that pays semi-monthly. Hourly "
    "staff submit timesheets that managers approve and payroll exports into the open pay run; the run is "
    "calculated, payslips are issued, the run is approved, the bank file is sent and the journal is "
    "posted to the general ledger. The payroll calendar and exports sit in the workspace. Today is "
    "Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like pem-0001: "
    "search first, then act on the id. A failed write changes nothing, and a refusal names the rule that "
    "blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the domain tools "
    "(or the `payclose` CLI in the shell) and the file tools. Policies: [judgement_1] Work the close in "
    "calendar order and compute hourly gross with the overtime rule before issuing payslips. "
    "[payroll_calendar_1] Only exported timesheets are paid in the run; late timesheets roll to the next "
    "period. [payroll_calendar_2] Employees without bank_verified get a paper cheque: flag them to the "
    "specialist, do not put them in the bank file. [payroll_calendar_3] The bank file must reach the bank "
    "two business days before the pay date. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("payroll_close_pipeline", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "payclose", app.OPERATIONS, scaffold="full")
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
