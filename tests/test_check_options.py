"""The check options that let rules once left to judgement be code: a window of months, a comparison by an
enum's own order, a match against any of several fields, a field that must be set, `when` as all of several
conditions, a related row whose span covers our moment, and a least gap between a resource's rows.

Each test compiles the real blueprint, breaks the rule on a seed world and reads the refusal the generated
app gives (its rule id and the fact, as a person writes it), then shows the call that keeps the rule goes
through. A blueprint that misuses an option fails validation with a message naming it."""

from __future__ import annotations

import copy

import pytest
import yaml
from envcraft.generator.audit.audit import audit
from envcraft.generator.compile.compiler import compile_blueprint
from envcraft.generator.model.blueprint import BLUEPRINTS, Blueprint, load_blueprint
from envcraft.generator.model.policy import refusal
from envcraft.generator.seeds.seed import seed_tables
from envcraft.registry.catalog import Environment
from envcraft.registry.launch import load_server_module
from envcraft.registry.manifest import read_manifest
from pydantic import ValidationError

from tests.helpers import REPO


def _app(bp: Blueprint, tmp_path):
    folder = compile_blueprint(bp, tmp_path / bp.id)
    manifest = read_manifest(folder)
    return load_server_module(Environment(manifest.env.env_id, folder, manifest)).app


def _world(name: str, tmp_path):
    bp = load_blueprint(BLUEPRINTS / f"{name}.yaml")
    return bp, _app(bp, tmp_path), seed_tables(bp)


def _free(tables, table: str, field: str, value) -> None:
    """No active row of `table` holds `field` = value (so a booking of it meets no clash)."""
    tables[table] = [r for r in tables[table] if r.get(field) != value]


def test_a_window_of_months_refuses_a_winter_patio_booking(tmp_path):
    _, app, tables = _world("restaurant_table_reservations", tmp_path)
    patio = next(t for t in tables["dining_tables"] if t["section"] == "patio")
    patio["seats"] = 6
    _free(tables, "table_reservations", "dining_table_id", patio["id"])
    call = dict(diner_id=tables["diners"][0]["id"], dining_table_id=patio["id"], party_size=4,
                arrival="2026-12-06T19:00", departure="2026-12-06T20:30", seating="dinner")
    found = refusal(app.table_reservation_book, tables, **call)
    assert found is not None and found.rule == "reservation_policy_2", found
    assert found.fact == "2026-12-06T19:00 is in December, outside May-September", found.fact
    summer = {**call, "arrival": "2027-06-12T19:00", "departure": "2027-06-12T20:30"}
    assert refusal(app.table_reservation_book, tables, **summer) is None
    patio["section"] = "main_room"  # the rule speaks of the patio only
    assert refusal(app.table_reservation_book, tables, **call) is None


def test_the_restaurant_serves_lunch_friday_to_sunday_and_dinner_from_17(tmp_path):
    """Issue 19: 'lunch Friday-Sunday 12:00-14:30' was prose no tool honoured; the booking's seating decides
    which window its arrival falls in."""
    _, app, tables = _world("restaurant_table_reservations", tmp_path)
    table = next(t for t in tables["dining_tables"] if t["section"] != "patio" and t["seats"] >= 4)
    _free(tables, "table_reservations", "dining_table_id", table["id"])
    base = dict(diner_id=tables["diners"][0]["id"], dining_table_id=table["id"], party_size=2)
    wednesday_lunch = dict(base, arrival="2026-12-09T12:30", departure="2026-12-09T14:00", seating="lunch")
    found = refusal(app.table_reservation_book, tables, **wednesday_lunch)
    assert found is not None and found.rule == "reservation_policy_4b", found
    assert refusal(app.table_reservation_book, tables, **dict(wednesday_lunch, arrival="2026-12-12T12:30",
                                                              departure="2026-12-12T14:00")) is None  # a Saturday
    early_dinner = dict(base, arrival="2026-12-09T16:00", departure="2026-12-09T17:30", seating="dinner")
    found = refusal(app.table_reservation_book, tables, **early_dinner)
    assert found is not None and found.rule == "reservation_policy_4", found
    assert refusal(app.table_reservation_book, tables, **dict(early_dinner, arrival="2026-12-09T19:00",
                                                              departure="2026-12-09T20:30")) is None


def test_a_tow_over_150_and_a_rental_over_1200_are_refused(tmp_path):
    _, app, tables = _world("auto_claims_adjusting", tmp_path)
    payable = [c for c in tables["auto_claims"] if c["reserve_amount"] >= 1500 and refusal(
        app.claim_payment_issue, tables, auto_claim_id=c["id"], payee="Route 9 Towing", amount=140.0, kind="towing") is None]
    assert payable, "the seed has a claim a tow can be paid on"
    base = dict(auto_claim_id=payable[0]["id"], payee="Route 9 Towing")
    found = refusal(app.claim_payment_issue, tables, **base, amount=180.0, kind="towing")
    assert found is not None and found.rule == "coverage_rules_3", found
    found = refusal(app.claim_payment_issue, tables, **base, amount=1300.0, kind="rental_car")
    assert found is not None and found.rule == "coverage_rules_2", found


def test_a_segment_goes_on_the_travellers_own_budget_and_staff_fly_no_business(tmp_path):
    """travel_agency_itineraries-0010 paid a gold that charged another department's budget and put a business
    fare on an Amtrak 'flight': the policy doc's prose is two checks now, and the supplier fits the segment."""
    _, app, tables = _world("travel_agency_itineraries", tmp_path)
    travelers = {t["id"]: t for t in tables["travelers"]}
    trip = next(t for t in tables["trip_requests"] if travelers[t["traveler_id"]]["seniority"] == "staff")
    department = travelers[trip["traveler_id"]]["department"]
    own = max((b for b in tables["travel_budgets"] if b["department"] == department), key=lambda b: b["remaining"])
    other = next(b for b in tables["travel_budgets"] if b["department"] != department and b["remaining"] >= 500)
    flight = dict(trip_request_id=trip["id"], travel_budget_id=own["id"], segment_type="flight", supplier="Delta",
                  starts="2026-12-20T09:30", ends="2026-12-20T11:00", price=300.0, cabin_or_room="economy")
    assert refusal(app.itinerary_segment_add, tables, **flight) is None
    found = refusal(app.itinerary_segment_add, tables, **dict(flight, cabin_or_room="business"))
    assert found is not None and found.rule == "travel_policy_4", found
    found = refusal(app.itinerary_segment_add, tables, **dict(flight, travel_budget_id=other["id"]))
    assert found is not None and found.rule == "travel_policy_5", found


@pytest.mark.slow
def test_a_comparison_by_the_enums_own_order(tmp_path):
    """intro < intermediate < advanced: by the alphabet 'advanced' would be the lowest level."""
    _, app, tables = _world("tutor_matching_center", tmp_path)
    tutor, tutee = tables["peer_tutors"][0], tables["tutees"][0]
    tutee.update(subject_need=tutor["subject"], preferred_language=tutor["language"],
                 availability=tutor["availability"], level="advanced")
    tutor.update(max_level="intermediate", weekly_slots=4)
    _free(tables, "tutoring_pairs", "peer_tutor_id", tutor["id"])
    call = dict(peer_tutor_id=tutor["id"], tutee_id=tutee["id"], start_date="2026-12-08")
    found = refusal(app.tutoring_pair_propose, tables, **call)
    assert found is not None and found.rule == "judgement_1", found
    assert found.fact == ("the tutee's level is advanced, not at most the peer tutor's max level intermediate "
                          "(intro < intermediate < advanced)"), found.fact
    tutee["level"] = "intro"  # below the tutor's max level (and 'intro' > 'intermediate' by the alphabet)
    assert refusal(app.tutoring_pair_propose, tables, **call) is None
    tutor["max_level"], tutee["level"] = "advanced", "intermediate"
    assert refusal(app.tutoring_pair_propose, tables, **call) is None


def test_a_match_against_any_of_several_fields(tmp_path):
    _, app, tables = _world("support_skill_routing", tmp_path)
    agent, chat = tables["support_agents"][0], tables["customer_conversations"][0]
    agent.update(availability="online", max_concurrent=6, product_skill=chat["product"], tier="tier3",
                 primary_language="french", second_language="none")
    chat.update(language="german", status="queued")
    _free(tables, "routing_assignments", "support_agent_id", agent["id"])
    call = dict(customer_conversation_id=chat["id"], support_agent_id=agent["id"], assigned_at="2026-12-01T09:00")
    found = refusal(app.routing_assignment_assign, tables, **call)
    assert found is not None and found.rule == "judgement_1", found
    assert found.fact == ("the support agent's primary language french and second language none: none is the "
                          "customer conversation's language german"), found.fact
    agent["second_language"] = "german"  # the second field alone is enough
    assert refusal(app.routing_assignment_assign, copy.deepcopy(tables), **call) is None
    agent.update(primary_language="german", second_language="none")
    assert refusal(app.routing_assignment_assign, tables, **call) is None


def test_a_field_that_must_be_set_under_a_condition(tmp_path):
    _, app, tables = _world("change_advisory_board", tmp_path)
    change = next(c for c in tables["change_requests"] if c["status"] == "draft")
    item = next(i for i in tables["config_items"] if i["id"] == change["config_item_id"])
    item["criticality"], change["backout_plan"] = "tier1", None
    found = refusal(app.change_request_submit, tables, change_request_id=change["id"])
    assert found is not None and found.rule == "judgement_3", found
    assert found.fact == f"change request {change['id']} has no backout plan", found.fact
    change["status"] = "submitted"
    assert refusal(app.change_request_approve, tables, change_request_id=change["id"]).rule == "judgement_3"
    change["status"] = "draft"
    item["criticality"] = "tier2"  # a tier2 item's change may go without one
    assert refusal(app.change_request_submit, tables, change_request_id=change["id"]) is None
    item["criticality"], change["backout_plan"] = "tier1", "restore VM snapshot"
    assert refusal(app.change_request_submit, tables, change_request_id=change["id"]) is None


def _raw(name: str) -> dict:
    return yaml.safe_load((BLUEPRINTS / f"{name}.yaml").read_text("utf-8"))


def _with_check(raw: dict, policy: str, **check) -> dict:
    out = copy.deepcopy(raw)
    for p in out["policies"]:
        if p["id"] == policy:
            p["check"] = {**p["check"], **check}
    return out


@pytest.mark.parametrize(("name", "policy", "change", "says"), [
    ("restaurant_table_reservations", "reservation_policy_2", {"months": ["may", "mai"]}, "months"),
    ("restaurant_table_reservations", "reservation_policy_2", {"months": ["may", "may"]}, "lists a month twice"),
    ("restaurant_table_reservations", "reservation_policy_2", {"field": "party_size"}, "date or datetime"),
    ("tutor_matching_center", "judgement_1", {"order": ["intro", "advanced"]}, "exactly the values"),
    ("tutor_matching_center", "judgement_1", {"order": ["intro", "intro", "advanced"]}, "distinct"),
    ("tutor_matching_center", "judgement_1", {"factor": 1.5}, "`order` belongs"),
    ("support_skill_routing", "judgement_1", {"or_via": ["nickname"]}, "nickname"),
    ("support_skill_routing", "judgement_1", {"op": "!="}, "`or_via`"),
    ("support_skill_routing", "judgement_1", {"or_via": ["max_concurrent"]}, "not of the type"),
    ("change_advisory_board", "judgement_3", {"field": None}, "is_set names the `field`"),
    ("change_advisory_board", "judgement_3", {"field": "backout"}, "backout"),
    ("change_advisory_board", "judgement_3", {"when": []}, "at least one condition"),
    ("volunteer_shift_matching", "partner_requests_week49_1",
     {"when": [{"ref_field": "volunteer_shift_id", "field": "colour", "op": "==", "value": "red"}]}, "colour"),
    ("oncall_paging", "judgement_2", {"end": None}, "`at` is a moment of ours"),
    ("oncall_paging", "judgement_2", {"at": "service"}, "date/time field of ours"),
    ("oncall_paging", "judgement_2", {"start": "begins"}, "begins"),
    ("bus_driver_rostering", "rostering_rules_1", {"gap_minutes": 0}, "greater than 0"),
    ("harvest_equipment_scheduling", "crew_rules_1",
     {"their": {"ref_field": "harvest_machine_id", "field": "machine_type", "values": ["tractor"]}}, "tractor"),
    ("harvest_equipment_scheduling", "crew_rules_1",
     {"their": {"ref_field": "start", "field": "machine_type", "values": ["grain_cart"]}}, "must be a ref field"),
    ("bus_driver_rostering", "rostering_rules_1", {"kind": "capacity", "ref_field": "duty_run_id",
                                                   "other_field": "distance_km"}, "`gap_minutes` belongs"),
])
def test_a_misused_option_fails_validation_with_a_clear_message(name, policy, change, says):
    with pytest.raises(ValidationError, match=says):
        Blueprint.model_validate(_with_check(_raw(name), policy, **change))


@pytest.mark.slow
def test_when_as_all_of_several_conditions(tmp_path):
    """ReadUp Literacy's reading buddies: the rule speaks only when both the agency and the role say so."""
    _, app, tables = _world("volunteer_shift_matching", tmp_path)
    shift = tables["volunteer_shifts"][0]
    agency = next(a for a in tables["partner_agencies"] if a["id"] == shift["partner_agency_id"])
    agency.update(name="ReadUp Literacy", cause="literacy")
    shift.update(role="reading buddy", skill_required="general", needs_background_check=False, slots=10, status="open",
                 start="2026-12-08T16:30", end="2026-12-08T18:00")  # a Tuesday
    volunteer = tables["volunteers"][0]
    volunteer.update(background_check="pending", skill="general", availability="weekday_evenings")  # free at 16:30
    _free(tables, "shift_assignments", "volunteer_id", volunteer["id"])
    _free(tables, "shift_assignments", "volunteer_shift_id", shift["id"])
    call = dict(volunteer_shift_id=shift["id"], volunteer_id=volunteer["id"], start=shift["start"], end=shift["end"])
    found = refusal(app.shift_assignment_assign, tables, **call)
    assert found is not None and found.rule == "partner_requests_week49_1", found
    assert found.fact == f"volunteer {volunteer['id']} has background check pending", found.fact
    shift["role"] = "homework helper"  # one condition off: the rule does not apply
    assert refusal(app.shift_assignment_assign, tables, **call) is None
    shift["role"], agency["name"] = "reading buddy", "Harbor Shelter"
    assert refusal(app.shift_assignment_assign, tables, **call) is None
    agency["name"], volunteer["background_check"] = "ReadUp Literacy", "cleared"
    assert refusal(app.shift_assignment_assign, tables, **call) is None
    monday = {**call, "start": "2026-12-07T16:30", "end": "2026-12-07T18:00"}
    found = refusal(app.shift_assignment_assign, tables, **monday)
    assert found is not None and found.rule == "partner_requests_week49_1b" and "Monday" in found.fact, found


def test_a_related_row_whose_span_covers_our_moment(tmp_path):
    """An alert may be suppressed only inside a maintenance window of its service."""
    _, app, tables = _world("oncall_paging", tmp_path)
    alert = tables["monitoring_alerts"][0]
    alert.update(service="ledger-db", status="firing", fired_at="2026-12-01T02:10")
    tables["maintenance_windows"] = [w for w in tables["maintenance_windows"] if w["service"] != "ledger-db"]
    window = {**tables["maintenance_windows"][0], "id": "mwn-0900", "service": "ledger-db",
              "starts": "2026-12-01T01:00", "ends": "2026-12-01T02:00", "status": "ended"}
    tables["maintenance_windows"].append(window)
    found = refusal(app.monitoring_alert_suppress, tables, monitoring_alert_id=alert["id"])
    assert found is not None and found.rule == "judgement_2", found
    assert found.fact == ("no scheduled or active or ended maintenance window for service ledger-db covering "
                          "2026-12-01T02:10"), found.fact
    window["ends"] = "2026-12-01T03:00"
    assert refusal(app.monitoring_alert_suppress, tables, monitoring_alert_id=alert["id"]) is None
    window["status"] = "cancelled"  # a cancelled window covers nothing
    assert refusal(app.monitoring_alert_suppress, tables, monitoring_alert_id=alert["id"]).rule == "judgement_2"
    window.update(status="active", service="checkout-api")  # another service's window
    assert refusal(app.monitoring_alert_suppress, tables, monitoring_alert_id=alert["id"]).rule == "judgement_2"


def test_a_least_gap_between_a_resources_rows(tmp_path):
    """Ten hours off between an operator's duties: a duty that does not overlap but starts too soon is refused."""
    _, app, tables = _world("bus_driver_rostering", tmp_path)
    operator, bus, run = tables["bus_operators"][0], tables["depot_buses"][0], tables["duty_runs"][0]
    bus.update(status="available", bus_type="standard_40ft")
    run.update(requires_articulated=False, status="open")
    for name, value in (("bus_operator_id", operator["id"]), ("depot_bus_id", bus["id"])):
        _free(tables, "duty_assignments", name, value)
    earlier = {**tables["duty_assignments"][0], "id": "das-0900", "bus_operator_id": operator["id"],
               "depot_bus_id": tables["depot_buses"][1]["id"], "start": "2026-12-02T05:00", "end": "2026-12-02T13:00",
               "status": "assigned"}
    tables["duty_assignments"].append(earlier)
    call = dict(duty_run_id=run["id"], bus_operator_id=operator["id"], depot_bus_id=bus["id"],
                start="2026-12-02T20:00", end="2026-12-03T02:00")
    found = refusal(app.duty_assignment_assign, tables, **call)
    assert found is not None and found.rule == "rostering_rules_1", found
    assert found.fact == (f"das-0900 holds bus operator {operator['id']} from 2026-12-02T05:00 to 2026-12-02T13:00, "
                          f"less than 10 hours from 2026-12-02T20:00-2026-12-03T02:00"), found.fact
    rested = {**call, "start": "2026-12-02T23:00", "end": "2026-12-03T05:00"}
    assert refusal(app.duty_assignment_assign, tables, **rested) is None
    clash = {**call, "start": "2026-12-02T12:00", "end": "2026-12-02T18:00"}  # an overlap is still the overlap rule
    assert refusal(app.duty_assignment_assign, tables, **clash).rule == "duty_assignment_assign.no_overlap1"


CONVERTED = {"restaurant_table_reservations": ["reservation_policy_2"], "tutor_matching_center": ["judgement_1"],
             "support_skill_routing": ["judgement_1"], "change_advisory_board": ["judgement_3"],
             "volunteer_shift_matching": ["partner_requests_week49_1", "partner_requests_week49_1b",
                                          "partner_requests_week49_1c"],
             "oncall_paging": ["judgement_2"], "bus_driver_rostering": ["rostering_rules_1"],
             "harvest_equipment_scheduling": ["crew_rules_1", "crew_rules_1c", "judgement_1"]}


@pytest.mark.slow
@pytest.mark.parametrize("env", sorted(CONVERTED))
def test_the_audit_shows_each_converted_rule_blocking_a_call_built_to_break_it(env):
    """The installed server's audit arranges, for every enforced rule, a world that breaks only that rule and
    sees the refusal cite it (audit.rules_block reports any rule it could not)."""
    bp = load_blueprint(BLUEPRINTS / f"{env}.yaml")
    enforced = {p.id for p in bp.policies if p.check is not None}
    assert set(CONVERTED[env]) <= enforced
    report = audit(REPO / "servers" / env)
    assert report.passed, [f.message for f in report.errors]
    assert not [f for f in report.findings if any(rule in f.message for rule in CONVERTED[env])], report.findings


def test_a_related_row_filtered_by_the_row_it_points_at(tmp_path):
    """A combine job starts only with a grain cart job and a semi job on its field for its window: the sibling
    jobs count by their machine's type, a field of the row they point at."""
    _, app, tables = _world("harvest_equipment_scheduling", tmp_path)
    kinds = {k: next(m for m in tables["harvest_machines"] if m["machine_type"] == k)
             for k in ("combine", "grain_cart", "semi_truck")}
    job = {**tables["harvest_jobs"][0], "id": "hjb-0900", "harvest_machine_id": kinds["combine"]["id"],
           "start": "2026-12-03T08:00", "end": "2026-12-03T18:00", "status": "scheduled"}
    window = {k: job[k] for k in ("farm_field_id", "start", "end")}
    tables["harvest_jobs"] = [j for j in tables["harvest_jobs"]
                              if (j["farm_field_id"], j["start"], j["end"]) != tuple(window.values())] + [job]
    found = refusal(app.harvest_job_start, tables, harvest_job_id="hjb-0900")
    assert found is not None and found.rule == "crew_rules_1", found
    assert found.fact.startswith("no scheduled or in progress harvest job with a grain cart for farm field "), found.fact
    cart = {**job, "id": "hjb-0901", "harvest_machine_id": kinds["semi_truck"]["id"]}  # a semi is no grain cart
    tables["harvest_jobs"].append(cart)
    assert refusal(app.harvest_job_start, tables, harvest_job_id="hjb-0900").rule == "crew_rules_1"
    tables["harvest_jobs"].append({**job, "id": "hjb-0902", "harvest_machine_id": kinds["grain_cart"]["id"]})
    assert refusal(app.harvest_job_start, tables, harvest_job_id="hjb-0900") is None
    cart["start"] = "2026-12-03T09:00"  # the semi on another window no longer counts
    assert refusal(app.harvest_job_start, tables, harvest_job_id="hjb-0900").rule == "crew_rules_1c"
