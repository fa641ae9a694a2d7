"""Magazine print ad sales to press MCP server: book print ads against credit and issue page limits, preflight creatives, place and invoice.

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
    "You support the ad operations coordinator of a monthly lifestyle magazine. Sales books insertion "
    "orders for advertisers into upcoming issues, each issue having a fixed number of ad pages and each "
    "advertiser a credit line. Advertisers upload creative files that go through preflight; passing ads "
    "are placed on pages as the issue goes to the printer and are invoiced afterwards. Rate card and ad "
    "specs are in the workspace. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times "
    "YYYY-MM-DDTHH:MM. Records have ids like adv-0001: search first, then act on the id. A failed write "
    "changes nothing, and a refusal names the rule that blocks it. Start by reading SKILL.md (the "
    "workspace, its data and its rules). Use the domain tools (or the `adsales` CLI in the shell) and the "
    "file tools. Policies: [book_selling_issues_only] Ads are booked only into an issue that is still "
    "selling, never one past ad close, at the printer or on the newsstand. "
    "[no_preflight_on_cancelled_order] A creative of a cancelled order is not preflighted. "
    "[creative_for_open_order] A creative is uploaded only for an order that is booked or awaiting "
    "preflight, never for a cancelled, placed or invoiced one. [min_resolution] Artwork is at least 300 "
    "dpi at 100% size. [judgement_1] Price bookings from the rate card (agency discount, volume "
    "discount), then check issue ad pages and advertiser credit. [judgement_2] Preflight with the spec: "
    "colour profile and dpi decide pass or fail. [ad_specs_1] Files are PDF/X-1a; cmyk_fogra39 is the "
    "preferred profile. [cmyk_only] CMYK only: a creative passes preflight only in cmyk_fogra39 or "
    "cmyk_swop. RGB files fail preflight. [ad_specs_2] Creatives are due 5 days before the issue's "
    "ad_close_date; orders without an approved creative at ad close are cancelled and the rate is "
    "released back to credit manually by finance. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("magazine_ad_sales", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(server, Path(workspace) if workspace else None, HERE, "adsales", app.OPERATIONS, scaffold="full")
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
