"""Plant-floor machine telemetry ingestion MCP server: mES telemetry: machine data batches validated, retried or dead-lettered; anomalies to tickets.

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
    "You keep the manufacturing execution system's data pipeline running at the Kessler Plastics plant. "
    "Machines stream sensor data in one-minute batches that are validated on their way to the historian; "
    "corrupt or late batches fail and are retried or dead-lettered. Validated data raises anomaly events "
    "that are triaged, dismissed, or turned into maintenance tickets. Today is Tuesday 2026-12-01; dates "
    "are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like mas-0001: search first, then act on "
    "the id. A failed write changes nothing, and a refusal names the rule that blocks it. Start by "
    "reading SKILL.md (the workspace, its data and its rules). Use the domain tools (or the `mesops` CLI "
    "in the shell) and the file tools. Policies: [ingest_runbook_1] Checksum mismatch and unsupported "
    "schema versions never succeed on retry: dead-letter at once and tell the controls engineer (Ana "
    "Brandt, ext. 2214). [no_retry_checksum] A batch that failed with a checksum mismatch is not retried. "
    "[no_retry_schema_version] A batch that failed with an unsupported schema version is not retried. "
    "[ingest_runbook_2] Transient errors (OPC UA session timeout, historian write rejected): retry up to "
    "3 times. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("mes_telemetry_ingest", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "mesops", app.OPERATIONS, scaffold="full")
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
