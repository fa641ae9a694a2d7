"""Voltway fleet charging depot reservations MCP server: eV fleet depots: reserve charger ports for vehicles without double-booking port or vehicle.

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
    "You manage charging for Voltway, which operates electric delivery-van depots. Dispatchers reserve "
    "charger ports for vans between routes. Faulted ports are taken out of service until a technician "
    "restores them. Sessions go from reserved to charging to completed, or are cancelled or no-shows. "
    "Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like "
    "csi-0001: search first, then act on the id. A failed write changes nothing, and a refusal names the "
    "rule that blocks it. There are no files here: read_policies lists every rule the tools enforce. "
    "Policies: [available_ports_only] Only available ports may be reserved. [judgement_1] The van's "
    "connector must equal the port's connector. [judgement_2] A no-show is recorded 20 minutes after the "
    "reserved start; vans need at least 2 hours on a port under 20 kW for a full route charge. "
    "[charge_session_complete_when] A charge session is marked completed from the day of its start until "
    "3 days after it; before that day leave it charging. [charge_session_no_show_when] A charge session "
    "is marked no show from the day of its start until 3 days after it; before that day leave it "
    "reserved. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("ev_charging_reservations", instructions=INSTRUCTIONS, version="1.0.0")
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
