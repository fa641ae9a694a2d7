"""Treasury bank-feed import and matching MCP server: bank statement feeds: batch parsing with retry and dead-letter, line matching to ledger.

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
    "You operate the bank-feed pipeline of Alder Health Partners. Each night the banks push statement "
    "files (BAI2, MT940, camt.053) that are parsed into statement lines. Parsing sometimes fails; failed "
    "batches are retried or dead-lettered. Parsed lines are matched to ledger postings or parked in "
    "suspense for the accountants. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like bcn-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools and the file tools. Policies: "
    "[match_same_amount] A statement line is matched only to a ledger posting of exactly the same amount. "
    "[feed_runbook_1] A failed batch is retried at most 3 times (attempt_count 1-3). On the 4th failure, "
    'dead-letter it and ask treasury to re-request the file from the bank. [feed_runbook_2] "TLS '
    'handshake timeout" is transient: always retry. "checksum mismatch" and "file truncated" usually '
    'succeed on retry once the bank re-sends. [feed_runbook_3] "duplicate statement sequence number" '
    "means the file was already loaded: dead-letter it, never retry. [matching_rules_1] The ledger "
    "posting is posted within 2 days of the statement line. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("bank_feed_reconciliation", instructions=INSTRUCTIONS, version="1.0.0")
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
