"""Video platform transcoding queue MCP server: transcode uploads on GPU encoder nodes: submit, encode, package, retry failures, publish to CDN.

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
    "You operate the transcoding pipeline of a video publishing platform. Creators' uploads become "
    "transcode jobs for an HLS or DASH ladder on GPU encoder nodes with a per-node job limit. Jobs encode "
    "and package; failures (decode errors, GPU out-of-memory, timeouts, missing audio) are retried on a "
    "suitable node or sent to the dead-letter queue; completed renditions are published to a CDN. The "
    "runbook with error codes is in the workspace. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and "
    "times YYYY-MM-DDTHH:MM. Records have ids like upl-0001: search first, then act on the id. A failed "
    "write changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools and the file tools. Policies: [judgement_1] "
    "Read the job's error_code and follow the runbook: retry on the right GPU, or dead-letter. "
    "[retry_bumps_attempt] A retry records `attempt` one more than the job had before it. "
    "[transcode_runbook_1] At most 3 attempts; the 4th failure goes to dead_letter regardless of error. "
    "[transcode_runbook_2] Never submit or retry onto a `degraded` or `offline` node. "
    "[transcode_runbook_3] Hls_4k only on nvidia_a10g or nvidia_l4 nodes. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("video_transcoding_queue", instructions=INSTRUCTIONS, version="1.0.0")
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
