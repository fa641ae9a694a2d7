"""CityHop ride-hail dispatch console MCP server: ride-hail dispatch - ride requests, driver offers pending/delivered/accepted/expired, trips.

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
    "You supervise the dispatch console of CityHop, a regional ride-hail service. Riders request a "
    "vehicle class; dispatch sends an offer to one nearby driver at a time, and offers come back "
    "asynchronously as delivered, accepted, declined or expired after 15 seconds. An accepted offer "
    "starts a trip, which puts the driver on trip; requests with no willing driver are closed as "
    "no-drivers. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records "
    "have ids like drv-0001: search first, then act on the id. A failed write changes nothing, and a "
    "refusal names the rule that blocks it. There are no files here: read_policies lists every rule the "
    "tools enforce. Policies: [offers_for_live_rides] Dispatch offers are sent, delivered or accepted "
    "only for a ride that is searching or has a driver assigned, never a cancelled, completed or "
    "no-drivers one. [no_trip_for_cancelled_ride] A trip is started only for a ride that is searching or "
    "has a driver assigned, never one the rider cancelled, one completed or one with no drivers. "
    "[judgement_1] Offer to available drivers, nearest ETA first, one offer at a time. "
    "[offer_requested_class] Offer a ride only to a driver of the requested vehicle class. [judgement_2] "
    "After three declined or expired offers, close the request as no-drivers. [judgement_3] When a trip "
    "completes, make the driver available again. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("rideshare_dispatch", instructions=INSTRUCTIONS, version="1.0.0")
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
