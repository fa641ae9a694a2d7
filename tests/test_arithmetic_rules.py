"""The `arithmetic` check kind: a written field against a formula of fields of the row and of the rows it refers to
(a requisition's charge is its quantity x the item's unit cost; a transfer leaves the source account at its
minimum balance). Through the real server: a write that breaks the formula is refused with the worked-out sum, the
same write with the right figure goes through, the seed obeys an equality, and a malformed formula is refused when
the blueprint is read."""

from __future__ import annotations

import json

import anyio
import pytest
import yaml
from envcraft.generator.model.blueprint import BLUEPRINTS, Blueprint, load_blueprint
from envcraft.generator.rules.registry import kind
from envcraft.generator.seeds.seed import seed_tables
from mcp import Client
from pydantic import ValidationError

from tests.helpers import compiled_server as _compiled
from tests.helpers import seed_state as _state


def test_a_charge_must_be_quantity_times_the_items_unit_cost(tmp_path):
    """office_supply_room charge_is_quantity_times_cost: 3 reams at 4.25 is 12.75. A charge of 10 is refused,
    citing the rule and the worked-out product; 12.75 goes through and takes 12.75 off the budget."""
    bp = load_blueprint(BLUEPRINTS / "office_supply_room.yaml")
    folder, module = _compiled(bp, tmp_path)
    state = json.loads(_state(folder).read_text())
    item = next(i for i in state["supply_items"] if i["category"] == "paper")
    item.update(unit_cost=4.25, on_hand=100)
    budget = next(b for b in state["office_budgets"] if b["department"] != "Facilities")
    budget["remaining"] = 500.0
    _state(folder).write_text(json.dumps(state))
    call = {"supply_item_id": item["id"], "office_budget_id": budget["id"], "quantity": 3, "requested_by": "Ana Ruiz"}

    async def main():
        async with Client(module.build_server(folder / "seed")) as client:
            refused = await client.call_tool("requisition_submit", {**call, "charge": 10})
            text = refused.content[0].text
            assert refused.is_error and "(rule charge_is_quantity_times_cost:" in text, text
            assert "charge is 10, not equal to quantity x the supply item's unit cost = 3 x 4.25 = 12.75" in text, text
            done = await client.call_tool("requisition_submit", {**call, "charge": 12.75})
            assert not done.is_error, done.content[0].text

    anyio.run(main)
    after = json.loads(_state(folder).read_text())
    assert next(b for b in after["office_budgets"] if b["id"] == budget["id"])["remaining"] == pytest.approx(487.25)
    assert [r["charge"] for r in after["requisitions"] if r["requested_by"] == "Ana Ruiz"] == [12.75]


def test_a_transfer_may_not_take_the_account_below_its_minimum_balance(tmp_path):
    """treasury_cash_desk transfer_keeps_minimum_balance: 100,000 held, 30,000 minimum: 70,000.01 is refused
    (the account holds enough cash, so only this rule stands in the way); 70,000 leaves exactly the minimum."""
    bp = load_blueprint(BLUEPRINTS / "treasury_cash_desk.yaml")
    folder, module = _compiled(bp, tmp_path)
    state = json.loads(_state(folder).read_text())
    source, target = state["cash_accounts"][:2]
    source.update(available_balance=100000.0, minimum_balance=30000.0)
    _state(folder).write_text(json.dumps(state))
    call = {"from_account_id": source["id"], "to_account_id": target["id"], "value_date": bp.today}

    async def main():
        async with Client(module.build_server(folder / "seed")) as client:
            refused = await client.call_tool("treasury_transfer_book", {**call, "amount": 70000.01})
            text = refused.content[0].text
            assert refused.is_error and "(rule transfer_keeps_minimum_balance:" in text, text
            assert "= 100000 - 30000 = 70000" in text, text
            done = await client.call_tool("treasury_transfer_book", {**call, "amount": 70000.0})
            assert not done.is_error, done.content[0].text

    anyio.run(main)
    after = json.loads(_state(folder).read_text())
    assert next(a for a in after["cash_accounts"] if a["id"] == source["id"])["available_balance"] == 30000.0


def test_the_seed_obeys_an_equality_and_its_fact_names_the_worked_out_value():
    """Every drawn requisition's charge is quantity x its item's unit cost; the seed-side fact (the same runtime
    helper app.py calls) blocks a row whose charge is off by a cent."""
    bp = load_blueprint(BLUEPRINTS / "office_supply_room.yaml")
    state = seed_tables(bp)
    cost = {i["id"]: i["unit_cost"] for i in state["supply_items"]}
    assert state["requisitions"]
    for row in state["requisitions"]:
        assert row["charge"] == pytest.approx(row["quantity"] * cost[row["supply_item_id"]], abs=0.005), row
    op = next(o for o in bp.operations if o.name == "requisition_submit")
    pre = next(p for p in op.preconditions if p.kind == "arithmetic")
    row = dict(state["requisitions"][0])
    assert kind("arithmetic").fact(bp, op, bp.entity("requisition"), pre, row, state, True, None) is None
    row["charge"] = round(row["charge"] + 0.01, 2)
    fact = kind("arithmetic").fact(bp, op, bp.entity("requisition"), pre, row, state, True, None)
    assert fact is not None and "not equal to quantity x the supply item's unit cost" in fact.text


@pytest.mark.parametrize("formula, says", [
    ({"function": "product", "of": ["quantity"]}, "at least 2"),
    ({"function": "ratio", "of": ["quantity", "supply_item_id.unit_cost"]}, "function"),
    ({"function": "product", "of": ["quantity", "supply_item_id.unit cost"]}, "ref_field.field"),
])
def test_a_malformed_formula_is_refused_when_the_blueprint_is_read(formula, says):
    raw = yaml.safe_load((BLUEPRINTS / "office_supply_room.yaml").read_text())
    policy = next(p for p in raw["policies"] if p.get("check", {}).get("kind") == "arithmetic")
    policy["check"]["formula"] = formula
    with pytest.raises(ValidationError, match=says):
        Blueprint.model_validate(raw)


def test_a_number_term_keeps_a_reserve_and_the_rule_applies_only_where_its_when_holds(tmp_path):
    """biobank_freezer_inventory biobank_sop_3: a banked plasma specimen of 400 ul keeps 100 ul, so 300.01 is
    refused and 300 released; a reserved one may be drawn below the reserve."""
    bp = load_blueprint(BLUEPRINTS / "biobank_freezer_inventory.yaml")
    folder, module = _compiled(bp, tmp_path)
    state = json.loads(_state(folder).read_text())
    banked, reserved = state["biobank_specimens"][:2]
    for row, status in ((banked, "banked"), (reserved, "reserved")):
        row.update(specimen_type="plasma", consent_scope="general_research", volume_ul=400.0, status=status)
    _state(folder).write_text(json.dumps(state))
    call = {"requesting_study": "NEURO-AGE"}

    async def main():
        async with Client(module.build_server(folder / "seed")) as client:
            refused = await client.call_tool("aliquot_release_request",
                                             {**call, "biobank_specimen_id": banked["id"], "volume_ul": 300.01})
            text = refused.content[0].text
            assert refused.is_error and "(rule biobank_sop_3:" in text, text
            assert "= 400 - 100 = 300" in text, text
            for row, amount in ((banked, 300.0), (reserved, 350.0)):
                done = await client.call_tool("aliquot_release_request",
                                              {**call, "biobank_specimen_id": row["id"], "volume_ul": amount})
                assert not done.is_error, done.content[0].text

    anyio.run(main)
    left = {s["id"]: s["volume_ul"] for s in json.loads(_state(folder).read_text())["biobank_specimens"]}
    assert (left[banked["id"]], left[reserved["id"]]) == (100.0, 50.0)
