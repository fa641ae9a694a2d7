"""Lendwise peer-to-peer lending marketplace MCP server: p2P lending: match investors to loan listings by grade, purpose and cash; fund notes.

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
    "You are the investor-relations assistant at Lendwise, a marketplace where retail investors fund "
    "slices of consumer and small-business loans. Investors have a risk appetite, a per-note maximum and "
    "available cash; listings have a grade, purpose, term and a cap on the number of lenders. You help "
    "investors find suitable listings and place commitments that fit both sides. Today is Tuesday "
    "2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like ivs-0001: search "
    "first, then act on the id. A failed write changes nothing, and a refusal names the rule that blocks "
    "it. There are no files here: read_policies lists every rule the tools enforce. Policies: "
    "[commit_to_listed_loans] Commitments are placed only on a listing still listed, never one fully "
    "funded, issued or expired. [judgement_1] Never commit more than the listing's remaining amount "
    "(amount_requested - funded_amount). [conservative_grades] Conservative investors take grades A-B "
    "only. [balanced_grades] Balanced investors take grades A-C only; aggressive investors take any "
    "grade. [non_accredited_note_cap] Non-accredited investors may commit at most 500 per note. "
    "[note_amount_cap] Never commit more than the investor's max_note_amount. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("p2p_lending_marketplace", instructions=INSTRUCTIONS, version="1.0.0")
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
