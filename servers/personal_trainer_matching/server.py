"""IronWorks Gyms personal-training matchmaking MCP server: gym chain PT desk - match prospects to trainers by goal, slot, club, budget; intro sessions.

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
    "You run personal-training matchmaking for IronWorks Gyms' three clubs. New members fill in a goals "
    "form; you match each prospect to a trainer at the same club whose specialty fits the goal, whose "
    "availability matches the prospect's preferred slot, whose rate fits the budget, and who has room for "
    "another client. A free intro session is booked, then the coaching relationship becomes active. Today "
    "is Tuesday 2026-12-01; dates are YYYY-MM-DD and times YYYY-MM-DDTHH:MM. Records have ids like "
    "ptr-0001: search first, then act on the id. A failed write changes nothing, and a refusal names the "
    "rule that blocks it. Start by reading SKILL.md (the workspace, its data and its rules). Use the "
    "domain tools (or the `ironworks-pt` CLI in the shell) and the file tools. Policies: [judgement_1] "
    "Apply the hard criteria first, rank the rest by the soft criteria, then propose the match and book "
    "the intro session. [same_club] The trainer works at the prospect's club. [specialty_fits_goal] The "
    "trainer's specialty equals the prospect's goal. [weight_loss_to_strength] A weight_loss prospect "
    "goes to a weight_loss or a strength trainer. [rate_within_budget] The trainer's rate_per_session is "
    "at most the prospect's budget_per_session. [trainer_gender_preference] The trainer's gender matches "
    "the prospect's trainer_gender_pref unless the preference is `any`. [no_match_for_declined] A "
    "prospect who declined gets no match: none is proposed or activated for them. [intro_for_open_match] "
    "An intro session is booked only for a proposed or active match, never for a rejected or ended one. "
    "[intro_in_early_mornings_slot] An intro session for a prospect who prefers early mornings starts "
    "between 06:00 and 09:00. [intro_in_early_mornings_slot_end] An intro session for a prospect who "
    "prefers early mornings ends by 09:00. [intro_in_daytime_slot] An intro session for a prospect who "
    "prefers daytime starts between 09:00 and 16:00. [intro_in_daytime_slot_end] An intro session for a "
    "prospect who prefers daytime ends by 16:00. [intro_in_evenings_slot] An intro session for a prospect "
    "who prefers evenings starts between 16:00 and 21:00. [intro_in_evenings_slot_end] An intro session "
    "for a prospect who prefers evenings ends by 21:00. [intro_in_weekends_slot] An intro session for a "
    "prospect who prefers weekends starts Saturday or Sunday between 08:00 and 14:00. "
    "[intro_in_weekends_slot_end] An intro session for a prospect who prefers weekends ends by 14:00. "
    "Call finish when done."
)


def build_server(workspace: Path | str | None = None) -> MCPServer:
    """An MCP server bound to one workspace, or (None) shared by many: the registry then names each
    connection's workspace through envcraft_runtime.WORKSPACE."""
    server = MCPServer("personal_trainer_matching", instructions=INSTRUCTIONS, version="1.0.0")
    add_claw_tools(
        server, Path(workspace) if workspace else None, HERE, "ironworks-pt", app.OPERATIONS, scaffold="full"
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
