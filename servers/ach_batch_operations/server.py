"""Commercial bank ACH operations MCP server: aCH origination files: validation, rejection and retry queue, dead-letter, returns handling.

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
    "You help the payments operations team at Summit Commercial Bank. Business clients upload NACHA files "
    "of payroll and vendor payments. Files are validated, accepted and transmitted to the Fed; files that "
    "fail validation are rejected with an error code and re-queued after the client corrects them, or "
    "dead-lettered. Returned entries come back days later with R-codes. Today is Tuesday 2026-12-01; "
    "dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like org-0001: search first, then "
    "act on the id. A failed write changes nothing, and a refusal names the rule that blocks it. Start by "
    "reading SKILL.md (the workspace, its data and its rules). Use the domain tools (or the `achops` CLI "
    "in the shell) and the file tools. Policies: [retry_runbook_max] A rejected file is retried at most 3 "
    "times. [judgement_1] Consult the runbook before re-queueing a rejected file and the return table "
    'before reinitiating an entry. [file_retry_runbook_1] "file exceeds daily limit": never re-queue a '
    "file whose total is above its originator's daily_limit; credit must approve a limit increase first. "
    '[no_requeue_duplicate_file] "duplicate file id modifier" files are never re-queued: dead-letter them '
    "at once (the original already went out). Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("ach_batch_operations", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "achops", app.OPERATIONS, scaffold="full")
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
