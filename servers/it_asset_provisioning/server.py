"""Brightline Media IT equipment & licence desk MCP server: iT service desk - issue laptops and peripherals from stock, assign software seats.

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
    "You help the IT service desk at Brightline Media, a 300-person agency. New hires and existing staff "
    "get hardware from the stock room and seats on licensed software. Issuing hardware draws down stock, "
    "and software licences have a number of seats bought. Onboarding requests and the equipment standards "
    "are in the workspace documents. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like stf-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools and the file tools. Policies: [judgement_1] "
    "Issue kit per the equipment standards for the person's department and location; check stock and "
    "licence seats first and fall back to the documented alternative model. [creative_video_laptop] "
    "Creative and Video Production staff get a MacBook Pro 14 M3 Pro laptop (alternative: Dell Latitude "
    "7450). [engineering_laptop] Engineering staff get a ThinkPad T14 Gen 5 laptop (alternative: Dell "
    "Latitude 7450). [standard_laptop] Account Management, Finance and People staff get a MacBook Air 13 "
    "M3 laptop (alternative: Dell Latitude 7450). [equipment_standards_1] Remote staff get a CalDigit TS4 "
    "dock. [equipment_standards_1b] Phones only for Account Management. [onboarding_requests_1] Please "
    "have kit issued and licences assigned the Friday before each start date. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("it_asset_provisioning", instructions=INSTRUCTIONS, version="1.0.0")
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
