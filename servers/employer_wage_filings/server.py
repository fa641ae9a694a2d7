"""State Workforce Agency quarterly wage-report intake MCP server: workforce agency intake - employer wage filings validated, retried, rejected, quarantined.

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
    "You support the wage-records unit of the State Workforce Agency. Every quarter employers file wage "
    "reports by portal upload, SFTP or paper. Each filing is received once (re-sent files are detected by "
    "their filing reference), validated line by line, and accepted or rejected with line errors. "
    "Validation jobs sometimes crash on malformed files and are re-run; filings that keep failing are "
    "quarantined for a specialist. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like emp-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools and the file tools. Policies: [judgement_1] "
    "Treat a re-sent file as a duplicate, re-run crashed validations up to three attempts, then "
    "quarantine. [judgement_2] Apply the 5% threshold and the waiver rules from the validation rules. "
    "[validation_rules_1] `name_mismatch` errors may be waived; `invalid_ssn` and `missing_wages` never. "
    "[validation_rules_2] A filing whose header total differs from the sum of its lines by more than 1.00 "
    'is rejected with "totals do not match lines". [error_handling_1] Never receive the same filing_ref '
    "twice; re-sent files are duplicates. [error_handling_2] Rejected filings that the employer has not "
    "replaced within 30 days are quarantined. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("employer_wage_filings", instructions=INSTRUCTIONS, version="1.0.0")
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
