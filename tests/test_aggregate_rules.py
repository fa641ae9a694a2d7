"""The `aggregate` check kind: a rule that turns on a number worked out over related rows (a departure's booked
travellers, an application's average unconflicted panel score, a cow's lowest somatic cell count over her last
three tests) blocks through the real server with a fact a person reads, lets the call through once the rows
say otherwise, and a malformed aggregate is refused when the blueprint is read."""

from __future__ import annotations

import copy
import json

import anyio
import pytest
import yaml
from envcraft.generator.compile.appcode import BlueprintError, check
from envcraft.generator.model.blueprint import BLUEPRINTS, Blueprint, load_blueprint
from mcp import Client
from pydantic import ValidationError

from tests.helpers import compiled_server as _compiled
from tests.helpers import seed_state as _state

TOURS = BLUEPRINTS / "guided_tour_departures.yaml"


def test_a_sum_over_related_rows_blocks_until_the_rows_reach_the_rows_own_field(tmp_path):
    """departure_guarantee: the departure's live bookings must hold min_to_guarantee travellers. One open
    departure gets 3 travellers (one cancelled booking of 4 does not count): refused, citing the rule and
    '3 booked travellers, below the 4 needed'; a fourth traveller booked, the same call goes through."""
    bp = load_blueprint(TOURS)
    folder, module = _compiled(bp, tmp_path)
    state = json.loads(_state(folder).read_text())
    departure = next(d for d in state["departures"] if d["status"] == "open")
    departure["min_to_guarantee"] = 4
    template = state["tour_bookings"][0]
    state["tour_bookings"] = [b for b in state["tour_bookings"] if b["departure_id"] != departure["id"]] + [
        {**template, "id": "tbk-0901", "departure_id": departure["id"], "travelers": 2, "status": "paid"},
        {**template, "id": "tbk-0902", "departure_id": departure["id"], "travelers": 1, "status": "held"},
        {**template, "id": "tbk-0903", "departure_id": departure["id"], "travelers": 4, "status": "cancelled"}]
    _state(folder).write_text(json.dumps(state))

    async def main():
        async with Client(module.build_server(folder / "seed")) as client:
            refused = await client.call_tool("departure_guarantee", {"departure_id": departure["id"]})
            text = refused.content[0].text
            assert refused.is_error and "(rule guarantee_at_minimum:" in text, text
            assert f"departure {departure['id']} has 3 booked travellers, below the 4 needed" in text, text
            booked = await client.call_tool("tour_booking_hold", {
                "departure_id": departure["id"], "lead_traveler": "Ana Ruiz", "email": "ana.ruiz@example.com",
                "travelers": 1, "total_price": 1800.0, "balance_due": 1800.0})
            assert not booked.is_error, booked.content[0].text
            done = await client.call_tool("departure_guarantee", {"departure_id": departure["id"]})
            assert not done.is_error, done.content[0].text

    anyio.run(main)


def test_the_latest_rows_by_date_decide_and_too_few_rows_block(tmp_path):
    """dairy_cow_cull for chronic mastitis: the lowest count over her last three tests must be over 400. An old
    low test does not count once three newer high ones exist; with only two tests the rule cannot be shown to
    hold; another cull reason is not this rule's business."""
    bp = load_blueprint(BLUEPRINTS / "dairy_herd_records.yaml")
    folder, module = _compiled(bp, tmp_path)
    state = json.loads(_state(folder).read_text())
    cows = [c for c in state["dairy_cows"] if c["status"] in ("lactating", "dry")][:3]
    template = state["milk_tests"][0]

    def test(n, cow, day, scc):
        return {**template, "id": f"mtt-09{n:02d}", "dairy_cow_id": cow["id"], "test_date": day, "somatic_cell_count": scc}
    state["milk_tests"] = [t for t in state["milk_tests"] if t["dairy_cow_id"] not in {c["id"] for c in cows}] + [
        test(1, cows[0], "2026-08-01", 120), test(2, cows[0], "2026-09-01", 520), test(3, cows[0], "2026-10-01", 610),
        test(4, cows[0], "2026-11-01", 480),
        test(5, cows[1], "2026-09-01", 520), test(6, cows[1], "2026-10-01", 380), test(7, cows[1], "2026-11-01", 700),
        test(8, cows[2], "2026-10-01", 900), test(9, cows[2], "2026-11-01", 900)]
    _state(folder).write_text(json.dumps(state))

    async def main():
        async with Client(module.build_server(folder / "seed")) as client:
            async def cull(cow, reason="chronic mastitis"):
                return await client.call_tool("dairy_cow_cull", {"dairy_cow_id": cow["id"], "cull_reason": reason})
            low = await cull(cows[1])
            assert low.is_error and "(rule mastitis_cull_counts:" in low.content[0].text
            assert "a lowest somatic cell count of 380 over her last three tests, not over 400" in low.content[0].text
            short = await cull(cows[2])
            assert short.is_error and "has 2 milk tests to go by, and the rule reads the latest 3" in short.content[0].text
            assert not (await cull(cows[0])).is_error  # 120 is her fourth-latest: not read
            assert not (await cull(cows[2], "lameness")).is_error

    anyio.run(main)


def _tours_with(check_changes: dict) -> dict:
    data = yaml.safe_load(TOURS.read_text("utf-8"))
    policy = next(p for p in data["policies"] if p["id"] == "guarantee_at_minimum")
    check = copy.deepcopy(policy["check"])
    for key, value in check_changes.items():
        if key.startswith("aggregate."):
            check["aggregate"][key.split(".", 1)[1]] = value
        elif value is None:
            check.pop(key, None)
        else:
            check[key] = value
    policy["check"] = check
    return data


@pytest.mark.parametrize("changes, says", [
    ({"aggregate.function": "count"}, "a count takes no `of`"),
    ({"aggregate.latest": 3}, "`latest` and `by` go together"),
    ({"aggregate.says": "booked travellers"}, "says"),
    ({"aggregate": None}, "says what it works out in `aggregate`"),
    ({"than": None}, "exactly one of a numeric `value`"),
    ({"value": 4}, "exactly one of a numeric `value`"),
])
def test_a_malformed_aggregate_is_refused_when_the_blueprint_is_read(changes, says):
    with pytest.raises(ValidationError, match=says):
        Blueprint.model_validate(_tours_with(changes))


@pytest.mark.parametrize("changes, says", [
    ({"aggregate.of": "lead_traveler"}, "not a number field of tour_booking"),
    ({"aggregate.where": [{"field": "status", "op": "in", "values": ["booked"]}]}, "'booked', not a value of status"),
    ({"match": {"departure": "id"}}, "match names 'departure', not a field of tour_booking"),
    ({"entity": "tour_bookings"}, "unknown entity 'tour_bookings'"),
])
def test_an_aggregate_naming_fields_its_rows_lack_is_refused_before_compiling(changes, says):
    with pytest.raises(BlueprintError, match=says):
        check(Blueprint.model_validate(_tours_with(changes)))


def test_a_rider_who_left_holds_no_seat_and_a_van_needs_a_driver_and_five_riders(tmp_path):
    """vanpool_seat_offer's capacity counts live seats only: a van whose seats are all taken refuses an offer,
    and the same van with one rider marked left takes it. vanpool_van_activate counts the same way: four riders
    and one who left is not five."""
    bp = load_blueprint(BLUEPRINTS / "vanpool_rider_matching.yaml")
    folder, module = _compiled(bp, tmp_path)
    state = json.loads(_state(folder).read_text())
    van = next(v for v in state["vanpool_vans"] if v["status"] == "forming" and not v["wheelchair_lift"])
    van["seats"] = 7
    riders = [c for c in state["commuters"] if not c["needs_lift"]]
    template = state["vanpool_seats"][0]
    seats = [{**template, "id": f"vst-09{i:02d}", "vanpool_van_id": van["id"], "commuter_id": riders[i]["id"],
              "role": "primary_driver" if i == 0 else "rider", "status": "active"} for i in range(7)]
    seats[6]["status"] = seats[5]["status"] = "left"
    state["vanpool_seats"] = [s for s in state["vanpool_seats"] if s["vanpool_van_id"] != van["id"]] + seats
    _state(folder).write_text(json.dumps(state))

    async def main():
        async with Client(module.build_server(folder / "seed")) as client:
            short = await client.call_tool("vanpool_van_activate", {"vanpool_van_id": van["id"]})
            assert short.is_error and "(rule activate_with_five_riders:" in short.content[0].text
            assert f"vanpool van {van['id']} has 4 riders, below the 5 needed" in short.content[0].text
            offered = await client.call_tool("vanpool_seat_offer", {
                "vanpool_van_id": van["id"], "commuter_id": riders[7]["id"], "role": "rider", "start_date": "2026-12-10"})
            assert not offered.is_error, offered.content[0].text  # 5 live of 7: the two who left hold nothing
            done = await client.call_tool("vanpool_van_activate", {"vanpool_van_id": van["id"]})
            assert not done.is_error, done.content[0].text
            full = await client.call_tool("vanpool_seat_offer", {
                "vanpool_van_id": van["id"], "commuter_id": riders[8]["id"], "role": "rider", "start_date": "2026-12-10"})
            assert not full.is_error, full.content[0].text  # the seventh seat
            over = await client.call_tool("vanpool_seat_offer", {
                "vanpool_van_id": van["id"], "commuter_id": riders[9]["id"], "role": "rider", "start_date": "2026-12-10"})
            assert over.is_error and "already has 7 of 7" in over.content[0].text, over.content[0].text

    anyio.run(main)
