"""A unit is offered once at a time: the seed holds one live lease offer per unit and none on an available
unit, each to an applicant approved for that unit; the offer tool keeps it so (generator/seeds/claims.py)."""

from __future__ import annotations

import copy
import json
from collections import Counter

import pytest
from envcraft.generator.compile.compiler import compile_blueprint
from envcraft.generator.model.blueprint import BLUEPRINTS, load_all, load_blueprint
from envcraft.generator.seeds.claims import claim_breaks, claims
from envcraft.generator.seeds.seed import seed_tables
from envcraft.generator.tasks.env import SERVERS
from envcraft.registry.catalog import Environment
from envcraft.registry.launch import load_server_module
from envcraft.registry.manifest import read_manifest
from envcraft_runtime import ToolFailure

RENTALS = load_blueprint(BLUEPRINTS / "rental_tenant_matching.yaml")
LIVE = ("sent", "signed")


def _coherent(tables):
    units = {u["id"]: u for u in tables["rental_units"]}
    live = [o for o in tables["lease_offers"] if o["status"] in LIVE]
    approved = {(a["rental_applicant_id"], a["rental_unit_id"]) for a in tables["rental_applications"]
                if a["status"] == "approved"}
    per_unit = Counter(o["rental_unit_id"] for o in live)
    assert max(per_unit.values()) == 1, per_unit  # one live offer per unit
    assert all(units[o["rental_unit_id"]]["status"] in ("pending", "leased") for o in live)  # none on an available unit
    assert all((o["rental_applicant_id"], o["rental_unit_id"]) in approved for o in tables["lease_offers"])
    return live


def test_the_shipped_rental_seed_offers_each_unit_once():
    tables = json.loads((SERVERS / RENTALS.id / "seed" / ".app" / "state.json").read_text("utf-8"))
    assert len(_coherent(tables)) >= 3
    assert claim_breaks(RENTALS, tables) == []


def test_claims_are_read_from_the_rules_and_effects():
    found = {(bp.id, c.child.name, c.parent.name, c.free, c.claimed, c.lapsed) for bp in load_all() for c in claims(bp)}
    assert ("rental_tenant_matching", "lease_offer", "rental_unit", ("available",), "pending", "expired") in found
    assert ("applicant_tracking", "job_offer", "job_application", ("onsite",), "offer", "declined") in found


def test_a_second_offer_or_an_offer_on_an_available_unit_is_caught():
    tables = seed_tables(RENTALS)
    offer = next(o for o in tables["lease_offers"] if o["status"] in LIVE)
    twice = copy.deepcopy(tables)
    twice["lease_offers"].append({**offer, "id": "lof-0900", "status": "sent"})
    assert any(offer["rental_unit_id"] in b and "2 live" in b for b in claim_breaks(RENTALS, twice))
    freed = copy.deepcopy(tables)
    next(u for u in freed["rental_units"] if u["id"] == offer["rental_unit_id"])["status"] = "available"
    assert any("is available but has live" in b for b in claim_breaks(RENTALS, freed))


def test_the_offer_tool_keeps_one_offer_per_unit(tmp_path):
    folder = compile_blueprint(RENTALS, tmp_path / RENTALS.id)
    manifest = read_manifest(folder)
    app = load_server_module(Environment(manifest.env.env_id, folder, manifest)).app
    tables = seed_tables(RENTALS)
    units = {u["id"]: u for u in tables["rental_units"]}
    pair = next(a for a in tables["rental_applications"] if a["status"] == "approved"
                and units[a["rental_unit_id"]]["status"] == "available")
    app.lease_offer_send(tables, pair["rental_unit_id"], pair["rental_applicant_id"], "2026-12-24")
    assert claim_breaks(RENTALS, tables) == []
    _coherent(tables)
    # the second offer on that unit: to another applicant approved for it if the seed has one, else the same
    rival = next((a for a in tables["rental_applications"] if a["status"] == "approved"
                  and a["rental_unit_id"] == pair["rental_unit_id"] and a["id"] != pair["id"]), pair)
    before = copy.deepcopy(tables)
    with pytest.raises(ToolFailure, match="available") as refused:
        app.lease_offer_send(tables, pair["rental_unit_id"], rival["rental_applicant_id"], "2026-12-26")
    assert pair["rental_unit_id"] in str(refused.value)  # the refusal names the unit that is already offered
    assert tables == before  # nothing written: still one live offer on the unit
