"""eDiscovery collection processing queue MCP server: process custodian collections through ingest, extraction and dedupe, with retry and quarantine.

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
    "You run the processing queue of a litigation support team. Data collected from custodians' "
    "mailboxes, OneDrive, Slack exports and laptop images is processed in batches: ingest, text "
    "extraction, deduplication, then published to the review platform. Batches fail on corrupt PSTs, "
    "password-protected archives or worker timeouts; you retry them, and quarantine the rest so the case "
    "team can decide. Production deadlines drive priority. Today is Tuesday 2026-12-01; dates are "
    "YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like dmt-0001: search first, then act on the "
    "id. A failed write changes nothing, and a refusal names the rule that blocks it. There are no files "
    "here: read_policies lists every rule the tools enforce. Policies: [judgement_1] Retry worker "
    "timeouts and OCR crashes. [retry_within_attempts] A batch gets up to 3 attempts: one that has used "
    "all 3 is not retried. [judgement_2] Corrupt PSTs and password-protected archives are not retryable: "
    "quarantine them for the forensic team. [judgement_3] Prioritise matters with the nearest production "
    "deadline. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("ediscovery_processing", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, None, app.OPERATIONS, scaffold="none")
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
