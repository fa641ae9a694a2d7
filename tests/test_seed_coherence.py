"""Seeds whose rows agree (generator/seeds/seed_coherence.py): each contradiction the issue found is caught by its
check when planted in a shipped seed, and no shipped or fresh seed holds any."""

from __future__ import annotations

import json

import pytest
from envcraft.generator.model.blueprint import load_all
from envcraft.generator.seeds.seed import seed_tables
from envcraft.generator.seeds.seed_census import contradiction_rows
from envcraft.generator.seeds.seed_coherence import CHECKS, contradictions
from envcraft.registry.catalog import discover

BLUEPRINTS = {bp.id: bp for bp in load_all()}
ENVS = discover()


def _state(env: str) -> dict:
    return json.loads((ENVS[env].folder / "seed" / ".app" / "state.json").read_text("utf-8"))


def _first(rows: list[dict], **match) -> dict:
    return next(r for r in rows if all(r.get(k) == v for k, v in match.items()))


def _plant_submitted_without_date(state: dict) -> str:
    row = next(r for r in state["expense_reports"] if r["status"] in ("submitted", "approved"))
    row["submitted_on"] = None
    return row["id"]


def _plant_paid_before_submitted(state: dict) -> str:
    reports = {r["id"]: r for r in state["expense_reports"]}
    row = next(r for r in state["reimbursements"] if (reports[r["expense_report_id"]].get("submitted_on") or "") > "2026-10-01")
    row["paid_on"] = "2026-09-01"
    return row["id"]


def _plant_attempts_miscounted(state: dict) -> str:
    event = _first(state["payment_events"], id=state["delivery_attempts"][0]["payment_event_id"])
    event["attempt_count"] += 2
    return event["id"]


def _plant_attempt_before_its_event(state: dict) -> str:
    attempt = state["delivery_attempts"][0]
    event = _first(state["payment_events"], id=attempt["payment_event_id"])
    attempt["attempted_at"] = event["created_at"][:10] + "T00:00" if event["created_at"][11:] > "00:00" else "2020-01-01T00:00"
    return attempt["id"]


def _plant_depleted_with_volume(state: dict) -> str:
    row = state["biobank_specimens"][0]
    row["status"], row["volume_ul"] = "depleted", 1600.0  # the least a specimen holds is 50 µl
    return row["id"]


def _plant_party_over_seats(state: dict) -> str:
    table = min(state["dining_tables"], key=lambda t: t["seats"])
    booking = state["table_reservations"][0]
    booking["dining_table_id"], booking["party_size"] = table["id"], table["seats"] + 9
    return booking["id"]


def _plant_page_past_the_batch(state: dict) -> str:
    exception = state["ocr_exceptions"][0]
    batch = _first(state["scan_batches"], id=exception["scan_batch_id"])
    exception["page_number"] = batch["page_count"] + 47
    return exception["id"]


def _plant_made_after_now(state: dict) -> str:
    row = state["payment_events"][0]
    row["created_at"] = "2026-12-01T15:00"
    return row["id"]


def _plant_awarded_with_a_decline_reason(state: dict) -> str:
    row = _first(state["grant_applications"], status="awarded")
    row["decline_reason"] = "budget incomplete"
    return row["id"]


def _plant_pending_line_with_a_received_qty(state: dict) -> str:
    row = _first(state["receipt_lines"], status="pending")
    row["received_qty"] = row["expected_qty"]
    return row["id"]


def _plant_declined_without_a_reason(state: dict) -> str:
    row = _first(state["grant_applications"], status="declined")
    row["decline_reason"] = None
    return row["id"]


PLANTED = [("expense_reimbursement", "stamps", _plant_submitted_without_date),
           ("expense_reimbursement", "after", _plant_paid_before_submitted),
           ("payment_webhook_relay", "counters", _plant_attempts_miscounted),
           ("payment_webhook_relay", "after", _plant_attempt_before_its_event),
           ("biobank_freezer_inventory", "bounds", _plant_depleted_with_volume),
           ("restaurant_table_reservations", "bounds", _plant_party_over_seats),
           ("document_scanning_pipeline", "bounds", _plant_page_past_the_batch),
           ("payment_webhook_relay", "origins", _plant_made_after_now),
           ("grant_program_admin", "written", _plant_awarded_with_a_decline_reason),
           ("grant_program_admin", "written", _plant_declined_without_a_reason),
           ("warehouse_inbound_receiving", "written", _plant_pending_line_with_a_received_qty)]


@pytest.mark.parametrize(("env", "check", "plant"), PLANTED, ids=[p[2].__name__.removeprefix("_plant_") for p in PLANTED])
def test_each_contradiction_the_issue_found_is_caught_where_it_is_planted(env, check, plant):
    state = _state(env)
    assert CHECKS[check](BLUEPRINTS[env], state) == []
    row_id = plant(state)
    assert [found[1] for found in CHECKS[check](BLUEPRINTS[env], state)] == [row_id]


def test_no_shipped_seed_holds_a_contradiction():
    assert contradiction_rows(ENVS[next(iter(ENVS))].folder.parent) == dict.fromkeys(CHECKS, 0)


def test_no_fresh_seed_holds_a_contradiction():
    found = {bp.id: {k: v for k, v in contradictions(bp, seed_tables(bp)).items() if v} for bp in BLUEPRINTS.values()}
    assert {env: f for env, f in found.items() if f} == {}
