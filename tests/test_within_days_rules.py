"""The `within_days` check kind: the days from one date to another (or to today) against a number of days.
Through the real returns_rma_center server (today 2026-12-01): a changed-mind return of a purchase 31 days old is
refused citing the rule and the count of days, one 30 days old goes through, and a defective item 45 days old is
inside its own 60-day window; the runtime helper counts days between times by their day."""

from __future__ import annotations

import json

import anyio
import pytest
from envcraft.generator.model.blueprint import BLUEPRINTS, load_blueprint
from envcraft_runtime.rules import days_apart
from mcp import Client

from tests.helpers import compiled_server as _compiled


def test_a_return_is_requested_within_its_window_of_the_purchase(tmp_path):
    bp = load_blueprint(BLUEPRINTS / "returns_rma_center.yaml")
    assert bp.today == "2026-12-01"
    folder, module = _compiled(bp, tmp_path)
    path = folder / "seed" / ".app" / "state.json"
    state = json.loads(path.read_text())
    taken = {r["purchase_id"] for r in state["rmas"]}
    old, fresh, broken = [p for p in state["purchases"] if p["id"] not in taken][:3]
    old["purchased_on"], fresh["purchased_on"], broken["purchased_on"] = "2026-10-31", "2026-11-01", "2026-10-17"
    path.write_text(json.dumps(state))

    async def main():
        async with Client(module.build_server(folder / "seed")) as client:
            refused = await client.call_tool("rma_request", {"purchase_id": old["id"], "reason": "changed_mind"})
            text = refused.content[0].text
            assert refused.is_error and "(rule return_policy_1:" in text, text
            assert "today (2026-12-01) is 31 days after the purchase's purchased on (2026-10-31), not at most 30" in text
            for purchase, reason in ((fresh, "changed_mind"), (broken, "defective")):
                done = await client.call_tool("rma_request", {"purchase_id": purchase["id"], "reason": reason})
                assert not done.is_error, done.content[0].text

    anyio.run(main)
    opened = {r["purchase_id"] for r in json.loads(path.read_text())["rmas"]} - taken
    assert opened == {fresh["id"], broken["id"]}


@pytest.mark.parametrize("later, earlier, op, days, blocked", [
    ("2026-12-01", "2026-11-01", "<=", 30, False), ("2026-12-01", "2026-10-31", "<=", 30, True),
    ("2026-12-15T08:00", "2026-12-01T17:30", ">=", 14, False), ("2026-12-14", "2026-12-01", ">=", 14, True),
    (None, "2026-12-01", "<=", 3, False)])
def test_days_are_counted_by_the_day(later, earlier, op, days, blocked):
    assert (days_apart(later, earlier, op, days, "a", "b") is not None) == blocked


def test_a_count_from_today_to_our_date_keeps_production_effectivity_14_days_out(tmp_path):
    """engineering_change_orders eco_procedure_2: approving (today, 2026-12-01) an ECO of a production part that
    takes effect 2026-12-14 is refused (13 days); 2026-12-15 goes through; a prototype part's ECO is not held."""
    bp = load_blueprint(BLUEPRINTS / "engineering_change_orders.yaml")
    folder, module = _compiled(bp, tmp_path)
    path = folder / "seed" / ".app" / "state.json"
    state = json.loads(path.read_text())
    parts = {p["id"]: p for p in state["engineering_parts"]}
    soon, later, prototype = state["change_orders"][:3]
    for eco, lifecycle, day in ((soon, "production", "2026-12-14"), (later, "production", "2026-12-15"),
                                (prototype, "prototype", "2026-12-02")):
        eco.update(status="in_review", effectivity_date=day, engineering_part_id=f"part-{eco['id']}")
        parts[eco["engineering_part_id"]] = {**next(iter(parts.values())), "id": eco["engineering_part_id"],
                                             "lifecycle": lifecycle}
    state["engineering_parts"] = list(parts.values())
    state["approval_signoffs"] = [s for s in state["approval_signoffs"]
                                  if s["change_order_id"] not in {soon["id"], later["id"], prototype["id"]}]
    path.write_text(json.dumps(state))

    async def main():
        async with Client(module.build_server(folder / "seed")) as client:
            refused = await client.call_tool("change_order_approve", {"change_order_id": soon["id"]})
            text = refused.content[0].text
            assert refused.is_error and "(rule eco_procedure_2:" in text, text
            assert "effectivity date (2026-12-14) is 13 days after today (2026-12-01), not at least 14" in text, text
            for eco in (later, prototype):
                done = await client.call_tool("change_order_approve", {"change_order_id": eco["id"]})
                assert not done.is_error, done.content[0].text

    anyio.run(main)
