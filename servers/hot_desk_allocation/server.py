"""Hybrid office desk neighbourhood matching MCP server: match hybrid employees to desk zones by noise, accessibility and team, within zone capacity.

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
    "You help the workplace team at Osprey Insurance allocate standing weekday desks in its hybrid "
    "office. Employees file desk requests stating their office day, noise preference and whether they "
    "need an accessible desk; zones have a fixed number of desks, a noise level and accessibility. You "
    "propose assignments that fit both sides, then employees accept or decline. Today is Tuesday "
    "2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like zon-0001: search "
    "first, then act on the id. A failed write changes nothing, and a refusal names the rule that blocks "
    "it. There are no files here: read_policies lists every rule the tools enforce. Policies: "
    "[no_desk_for_withdrawn_request] A desk is proposed or accepted only for an open or matched request, "
    "never a withdrawn one. [judgement_1] A good match respects the hard needs first, then the noise "
    "preference; team proximity is a tie-breaker. [accessible_need] An employee who needs an accessible "
    "desk is proposed only an accessible zone. [dual_monitor_need] An employee who needs dual monitors is "
    "proposed only a zone with dual monitors. [judgement_2] Check zone capacity before proposing. Call "
    "finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("hot_desk_allocation", instructions=INSTRUCTIONS, version="1.0.0")
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
