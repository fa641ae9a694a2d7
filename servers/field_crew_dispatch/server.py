"""Northern Valley Utilities field crew dispatch MCP server: utility field work: service orders scheduled to a crew and a truck, never double-booked.

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
    "You are the dispatcher's assistant at Northern Valley Utilities, an electric and gas utility. "
    "Service orders (new service connections, meter exchanges, pole replacements, gas leak checks) are "
    "scheduled as crew jobs that tie up both a line crew with the right specialty and a suitable truck "
    "for the whole window. Jobs move from planned to en route, on site and done. Today is Tuesday "
    "2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like lcr-0001: search "
    "first, then act on the id. A failed write changes nothing, and a refusal names the rule that blocks "
    "it. Start by reading SKILL.md (the workspace, its data and its rules). Use the domain tools (or the "
    "`crewboard` CLI in the shell) and the file tools. Policies: [crew_work_on_live_orders] Crew jobs are "
    "scheduled, dispatched, arrived or finished only for a service order that is open or scheduled, never "
    "a cancelled or completed one. [dispatch_rules_1] Emergency orders are scheduled within 1 hour, high "
    "within 24 hours, normal within 10 days. [overhead_crew_work] A new_service_connect, "
    "streetlight_repair or pole_replacement order gets an overhead crew. [meter_crew_work] A "
    "meter_exchange order gets a meter_services crew. [gas_crew_work] A gas_leak_check order gets a "
    "gas_service crew. [vegetation_crew_work] A tree_clearance order gets a vegetation crew. "
    "[bucket_truck_work] A new_service_connect or streetlight_repair order takes a bucket_truck. "
    "[service_van_work] A meter_exchange order takes a service_van. [digger_derrick_work] A "
    "pole_replacement order takes a digger_derrick. [gas_truck_work] A gas_leak_check order takes a "
    "gas_service_truck. [chipper_truck_work] A tree_clearance order takes a chipper_truck. "
    "[dispatch_rules_2] Crew jobs start 07:00-17:30 unless the order is an emergency. [dispatch_rules_2b] "
    "Crew jobs end 07:00-17:30 unless the order is an emergency. [crew_job_arrive_when] A crew job is "
    "marked on site only on the day of its start; before that day leave it en route. "
    "[crew_job_finish_when] A crew job is marked done from the day of its start until 3 days after it; "
    "before that day leave it on site. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("field_crew_dispatch", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "crewboard", app.OPERATIONS, scaffold="full")
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
