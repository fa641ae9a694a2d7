"""Screening assay data pipeline MCP server: plate reader data to normalised runs, hit calls and signed ELN reports exported to LIMS.

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
    "You support a drug-discovery screening lab. Assay plates are registered, read on plate readers, "
    "imported as runs, normalised and QC'd; runs that pass QC yield hit calls, which scientists confirm; "
    "each approved run is summarised in an electronic lab notebook (ELN) report that is signed and "
    "exported to the LIMS. Raw exports and QC criteria live in the workspace. Today is Tuesday "
    "2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like plt-0001: search "
    "first, then act on the id. A failed write changes nothing, and a refusal names the rule that blocks "
    "it. Start by reading SKILL.md (the workspace, its data and its rules). Use the domain tools and the "
    "file tools. Policies: [judgement_1] Pipeline: register plate -> import run -> normalise -> QC "
    "(approve or fail) -> record hits -> ELN draft -> sign -> export. [judgement_2] Use the QC thresholds "
    "from docs/assay_qc_criteria.md. [assay_qc_criteria_1] Confirm a hit only after a duplicate retest on "
    "a fresh plate gives z_score >= 2.5. [qc_z_prime] A run passes QC (is approved) only when Z' >= 0.5. "
    "[qc_z_prime_cell_viability] A cell_viability run passes QC at Z' >= 0.4. [hit_z_score] A hit is "
    "recorded only at z_score >= 3.0. [hit_z_score_luminescence] A luminescence assay's hit needs z_score "
    ">= 3.5. [assay_qc_criteria_2] Export to the LIMS (Benchling) only signed reports. Call finish when "
    "done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("assay_results_pipeline", instructions=INSTRUCTIONS, version="1.0.0")
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
