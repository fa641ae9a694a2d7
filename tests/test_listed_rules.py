"""The `listed` check kind: a written amount is the one a price list in the rule gives the row's kind. Through the
real ski_rental_shop server: a bent edge filed at 60 is refused citing the rule and the listed 90.00, 90 goes
through; the drawn seed files every damage at its listed price; a list naming a kind the key field lacks is refused
when the blueprint is compiled."""

from __future__ import annotations

import json

import anyio
import yaml
from envcraft.generator.compile.appcode import BlueprintError, check
from envcraft.generator.model.blueprint import BLUEPRINTS, Blueprint, load_blueprint
from envcraft.generator.seeds.seed import seed_tables
from mcp import Client

from tests.helpers import compiled_server as _compiled

SKI = BLUEPRINTS / "ski_rental_shop.yaml"


def _listed(bp: Blueprint) -> dict[str, float]:
    return next(p.check.listed for p in bp.policies if p.check is not None and p.check.kind == "listed")


def test_damage_is_filed_at_its_listed_charge(tmp_path):
    bp = load_blueprint(SKI)
    folder, module = _compiled(bp, tmp_path)
    state = json.loads((folder / "seed" / ".app" / "state.json").read_text())
    call = {"rental_agreement_id": state["rental_agreements"][0]["id"], "damage": "bent edge"}

    async def main():
        async with Client(module.build_server(folder / "seed")) as client:
            refused = await client.call_tool("damage_report_file", {**call, "charge": 60.0})
            text = refused.content[0].text
            assert refused.is_error and "(rule damage_at_listed_price:" in text, text
            assert "charge is 60, not the 90.00 listed for bent edge" in text, text
            done = await client.call_tool("damage_report_file", {**call, "charge": 90.0})
            assert not done.is_error, done.content[0].text

    anyio.run(main)
    after = json.loads((folder / "seed" / ".app" / "state.json").read_text())
    assert [(d["damage"], d["charge"]) for d in after["damage_reports"][len(state["damage_reports"]):]] == \
        [("bent edge", 90.0)]


def test_the_drawn_seed_files_every_damage_at_its_listed_charge():
    bp = load_blueprint(SKI)
    listed = _listed(bp)
    reports = seed_tables(bp)["damage_reports"]
    assert reports
    assert all(r["charge"] == listed[r["damage"]] for r in reports), [(r["damage"], r["charge"]) for r in reports]


def test_a_list_naming_a_kind_the_key_lacks_is_refused():
    raw = yaml.safe_load(SKI.read_text())
    policy = next(p for p in raw["policies"] if p.get("check", {}).get("kind") == "listed")
    policy["check"]["listed"]["snapped ski"] = 300.0
    try:
        check(Blueprint.model_validate(raw))
    except BlueprintError as exc:
        assert "snapped ski" in str(exc)
    else:
        raise AssertionError("a price for a kind of damage the blueprint does not know compiled")
