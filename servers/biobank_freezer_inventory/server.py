"""Biobank specimen and freezer inventory MCP server: accession specimens into freezers, release aliquots against remaining volume, track consent.

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
    "You help the biobank manager of a translational research institute. Donor specimens (plasma, serum, "
    "DNA, tissue) are accessioned into freezers with limited slots. Studies request aliquots; each "
    "release draws down the specimen's remaining volume. Depleted or consent-withdrawn specimens are "
    "retired. Today is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have "
    "ids like frz-0001: search first, then act on the id. A failed write changes nothing, and a refusal "
    "names the rule that blocks it. Start by reading SKILL.md (the workspace, its data and its rules). "
    "Use the domain tools and the file tools. Policies: [biobank_sop_1] Never release from a specimen "
    "whose consent_scope is `withdrawn`; such specimens are destroyed within 30 days. [biobank_sop_2] "
    "`disease_specific` consent covers only CARDIO-2026 and DIAB-GEN; `general_research` covers every "
    "study. [store_fluids_at_minus_80] Plasma, serum and whole_blood are stored at minus_80. "
    "[store_tissue_cryogenic] Tissue is stored at minus_150 or ln2_vapour. [biobank_sop_3] Keep at least "
    "100 ul of every plasma/serum specimen as a reserve unless the specimen's status is reserved: a "
    "release is at most its volume_ul minus 100. Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("biobank_freezer_inventory", instructions=INSTRUCTIONS, version="1.0.0")
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
