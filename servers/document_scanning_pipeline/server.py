"""Records digitisation scanning queue MCP server: scan archive boxes in batches through OCR and indexing, with retries and a dead-letter queue.

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
    "You run the records digitisation queue at Whitcombe Council's admin office. Archive boxes are split "
    "into scan batches that go through scanning, OCR and indexing on a few scanner stations. Batches fail "
    "for paper jams, OCR timeouts or checksum mismatches; you retry them, dead-letter the hopeless ones, "
    "and log OCR exceptions for human correction. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and "
    "times YYYY-MM-DDTHH:MM. Records have ids like box-0001: search first, then act on the id. A failed "
    "write changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools (or the `scanq` CLI in the shell) and the "
    "file tools. Policies: [retry_within_attempts] A batch gets at most 3 attempts (field `attempts`): "
    "one that has used all 3 is not retried. [runbook_max_attempts] On a batch's 3rd failure dead-letter "
    "it and tell the records officer. [judgement_1] Read the error before retrying: the runbook says "
    "which errors to retry, where, and when to dead-letter. [failure_counts_an_attempt] A failure is "
    "recorded with `attempts` one more than the batch had before it. [scanning_runbook_1] Never queue on "
    "a station in `maintenance`. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("document_scanning_pipeline", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "scanq", app.OPERATIONS, scaffold="full")
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
