"""Incoming inspection lab at Norvik Medical Devices MCP server: incoming inspection: supplier lots sampled, lab-tested, accepted or rejected, SCARs issued.

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
    "You run the incoming inspection queue at Norvik Medical Devices. Each supplier lot that arrives is "
    "sampled per the AQL plan, tested in the lab (dimensional, hardness, tensile, coating, visual), then "
    "accepted into stock or rejected. Rejected lots trigger a supplier corrective action request (SCAR), "
    "and repeat offenders move to probation. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like csup-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools and the file tools. Policies: "
    "[tests_on_undecided_lots] Lab tests are scheduled or recorded only for a lot not yet accepted or "
    "rejected. [sampling_plan_1] Any rejection needs a SCAR; a supplier with 2 SCARs in 90 days goes to "
    "probation (probation suppliers: tighten to double sample size). [bone_screw_tests] Bone screws are "
    "tested dimensional + hardness. [spring_tests] Springs are tested tensile. [housing_tests] Housings "
    "are tested dimensional + visual. [pouch_tests] Pouches are tested visual (seal). [pcba_tests] PCBAs "
    "are tested visual. [tubing_tests] Tubing is tested dimensional. [every_test_passed] A lot is "
    "accepted only if every test passes. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("incoming_inspection_lab", instructions=INSTRUCTIONS, version="1.0.0")
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
