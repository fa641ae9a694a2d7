"""A row a create made has moved the row it refers to on: an award makes its application awarded, so in a
shipped seed no application still in panel review holds a live award, and the awards stay spread over the
applications they were made for (a repair that re-points them all onto the few that pass the rules piles them
up). generator/seeds/seed_rules.py's `effect_status` is the judge; these tests read the shipped worlds themselves."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from envcraft.generator.model.blueprint import load_all
from envcraft.generator.seeds.seed_rules import breaches, effect_status
from envcraft.registry.catalog import discover
from envcraft_runtime.rules import INACTIVE

ENVS = discover()
CARRIED = [bp for bp in load_all() if any(effect_status(bp, op, pre) for op in bp.operations for pre in op.preconditions)]


def _state(env: str) -> dict:
    return json.loads((ENVS[env].folder / "seed" / ".app" / "state.json").read_text("utf-8"))


def test_the_creates_that_move_their_referenced_row_on_are_known():
    assert {bp.id for bp in CARRIED} >= {"grant_program_admin", "rental_tenant_matching", "applicant_tracking"}


@pytest.mark.parametrize("bp", CARRIED, ids=[bp.id for bp in CARRIED])
def test_rows_such_a_create_made_refer_to_rows_where_its_effect_leads(bp):
    tables = {k: v for k, v in _state(bp.id).items() if not k.startswith("_")}
    assert breaches(bp, tables) == []


def test_no_grant_application_in_panel_review_holds_a_live_award_and_awards_are_spread():
    state = _state("grant_program_admin")
    apps = {a["id"]: a for a in state["grant_applications"]}
    live = [w for w in state["grant_awards"] if w["status"] not in INACTIVE and w["status"] != "rescinded"]
    held = {apps[w["grant_application_id"]]["status"] for w in live}
    assert held == {"awarded"}, held
    piled = Counter(w["grant_application_id"] for w in state["grant_awards"])
    assert len(piled) >= len(state["grant_awards"]) // 2 and max(piled.values()) <= 3, piled
