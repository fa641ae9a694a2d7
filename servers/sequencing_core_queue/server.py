"""Genomics sequencing core run queue MCP server: queue libraries onto sequencers, run, demultiplex and deliver; requeue or abandon failed runs.

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
    "You operate the run queue of a genomics core. Labs submit prepared libraries that pass QC, which are "
    "queued onto Illumina and Nanopore instruments with a limited number of queue slots. Runs move "
    "through loading, sequencing and demultiplexing to delivery; runs that fail (flow-cell errors, low "
    "cluster density, disk full) are requeued, or abandoned after repeated failures. Today is Tuesday "
    "2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like sqr-0001: search "
    "first, then act on the id. A failed write changes nothing, and a refusal names the rule that blocks "
    "it. There are no files here: read_policies lists every rule the tools enforce. Policies: "
    "[short_reads_off_nanopore] A short-read run (pe150, se75, pe300) goes on an illumina or element "
    "instrument, never a nanopore. [queue_passed_qc_only] Queue only libraries whose qc_status is passed. "
    "[long_read_on_nanopore] A long_read run goes on a nanopore instrument. [judgement_2] Requeue at most "
    'twice (attempt 3 is the last); a failure from "run folder disk full" is requeued on the same '
    "instrument without counting an attempt. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("sequencing_core_queue", instructions=INSTRUCTIONS, version="1.0.0")
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
