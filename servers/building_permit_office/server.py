"""City of Fairhaven building permit counter MCP server: municipal building permits - plan review, corrections, issuance, fees and inspections.

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
    "You assist permit technicians in the City of Fairhaven's Building Division. Residents and "
    "contractors submit permit applications, which go through plan review (possibly several rounds of "
    "corrections), approval once fees are paid, issuance, and a sequence of field inspections by "
    "inspectors who each cover one discipline; a permit is finaled after the final inspection. Today is "
    "Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like pma-0001: "
    "search first, then act on the id. A failed write changes nothing, and a refusal names the rule that "
    "blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the domain tools "
    "(or the `fairhaven-permits` CLI in the shell) and the file tools. Policies: "
    "[no_inspection_on_withdrawn_permit] A withdrawn application gets no inspection scheduled, passed or "
    "failed. [judgement_1] Follow the permit process order, and book inspections in the documented "
    "sequence. [permit_process_1] Plan_review -> corrections_required when the reviewer has comments; the "
    "applicant resubmits and it goes back to plan_review. After 3 rounds, a meeting is required. "
    "[permit_process_2] Plan_review -> approved; the permit is issued only when every fee is paid or "
    "waived. [permit_process_3] Inspection sequence: footing -> framing (with electrical_rough and "
    "plumbing_rough by the matching disciplines) -> insulation -> final. Solar PV needs only "
    "electrical_rough and final. Decks need footing and final. [no_inspection_after_final] No inspection "
    "is booked on a finaled permit: its final inspection has passed, so no rough-in or later inspection "
    "remains. [permit_process_4] A failed inspection must be rebooked after the contractor fixes the "
    "work; the cashier bills a 95.00 reinspection fee separately. [inspection_hours] Inspections are 60 "
    "minutes between 08:00 and 15:00: they start from 08:00 to 14:00. [inspector_building] Footing, "
    "framing, insulation and final inspections are booked with a building inspector. "
    "[inspector_electrical] An electrical_rough inspection is booked with an electrical inspector. "
    "[inspector_plumbing] A plumbing_rough inspection is booked with a plumbing inspector. "
    "[permit_process_5] Prefer an inspector who covers the property's district. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("building_permit_office", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(
        server, Path(workspace) if workspace else None, HERE, "fairhaven-permits", app.OPERATIONS, scaffold="full"
    )
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
