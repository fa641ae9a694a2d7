"""Granite Falls business licensing office MCP server: city business licensing - license lifecycle, renewals, payments and violations.

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
    "You assist clerks in the City of Granite Falls Business Licensing Office. Every business holds an "
    "annual licence of its class. Licences move from pending to active, are flagged for renewal as they "
    "near expiry, lapse if not renewed, and can be suspended for unresolved violations and later "
    "reinstated. Renewal payments are recorded with a receipt number. Today is Tuesday 2026-12-01; dates "
    "are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like lbz-0001: search first, then act on "
    "the id. A failed write changes nothing, and a refusal names the rule that blocks it. There are no "
    "files here: read_policies lists every rule the tools enforce. Policies: [cite_unrevoked_licence] A "
    "violation is cited only on a licence that is not revoked. [one_open_citation_per_violation] A "
    "violation already open or escalated on a licence is not cited on it again. [judgement_1] Renew a "
    "licence only after its annual fee is recorded; the new expiry is one year after the old one. "
    "[judgement_2] Licences lapsed more than 90 days need a new application. [no_fee_for_revoked_licence] "
    "No licence fee is recorded for a revoked licence. [fee_is_annual_fee] A licence fee payment is the "
    "licence's annual fee. [judgement_3] Suspend for fines unpaid over 60 days. "
    "[reinstate_when_violations_corrected] Reinstate a licence only when none of its violations is still "
    "open or escalated. [business_license_lapse_when] A business license is marked lapsed only after its "
    "expiry date has passed; until then leave it at renewal due. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("business_license_renewals", instructions=INSTRUCTIONS, version="1.0.0")
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
