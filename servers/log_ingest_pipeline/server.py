"""Quarry observability log-ingest pipeline MCP server: log ingest pipeline ops - batches indexed, retried or dead-lettered under daily quotas.

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
    "You operate the log-ingest pipeline of Quarry, an internal observability platform. Shippers on each "
    "log source send batches that are queued against a target index; each index has a daily ingest quota "
    "in megabytes. Batches get indexed, or fail on parse errors and mapping conflicts and are retried "
    "with backoff, dead-lettered after three attempts, and finally replayed or dropped. Noisy sources can "
    "be throttled or disabled. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like src-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools (or the `quarry` CLI in the shell) and the "
    "file tools. Policies: [judgement_1] Triage failed batches by their error class from the runbook: "
    "transient errors are retried, permanent ones dead-lettered. [judgement_2] Security sources are never "
    "throttled. [judgement_2b] Batches from security sources are never dropped. [pipeline_runbook_1] "
    "Retry a failed batch at most 3 attempts in total; on the third failure dead-letter it. "
    "[pipeline_runbook_2] Errors `bulk request rejected 429` are transient: always retry. "
    "[pipeline_runbook_3] Errors `mapper_parsing_exception` and `field limit of 1000 exceeded` are "
    "permanent until the owner team fixes the mapping: dead-letter immediately. [no_retry_mapper_parsing] "
    "A batch that failed with `mapper_parsing_exception` is not retried. [no_retry_field_limit] A batch "
    "that failed with `field limit of 1000 exceeded` is not retried. [pipeline_runbook_4] A source with "
    "more than 5 failed batches in 24 hours is throttled; security sources (k8s-audit, aws-cloudtrail, "
    "vpn-concentrator) are never throttled or dropped. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("log_ingest_pipeline", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "quarry", app.OPERATIONS, scaffold="full")
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
