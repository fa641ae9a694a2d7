"""Rows are told apart by name, and a name fits its category (generator/seeds/seed_census.py repeated_names,
generator/audit/vocabulary.py): no shipped table gives two rows one name where staff name rows (a protocol's title, an
animal's name), beyond the tables listed below as open, and a variety or a car model
belongs to its commodity or class."""

from __future__ import annotations

import json
import random

from envcraft.generator.audit.vocabulary import contradictions
from envcraft.generator.model.blueprint import BLUEPRINTS, load_blueprint
from envcraft.generator.seeds.invariants import check_invariants, repair
from envcraft.generator.seeds.seed import seed_tables
from envcraft.generator.seeds.seed_census import repeated_name_rows, repeated_names
from envcraft.generator.tasks.env import SERVERS

# Tables whose names still repeat (issue 19 item 3, open): most have a name pool smaller than their rows and need a
# larger pool of their own or fewer rows; city_311's departments are renamed by a rule repair (the routing table).
# A table leaves this list once its names are distinct; none joins it.
OPEN = {
    "city_311_requests.city_departments",
    "applicant_tracking.job_requisitions", "back_in_stock_alerts.watched_variants", "change_advisory_board.config_items",
    "chatops_event_router.notification_routes", "dependency_vulnerability_triage.software_packages",
    "ecommerce_fulfillment.stock_items", "expense_reimbursement.cost_centers", "food_bank_distribution.pantry_partners",
    "harvest_equipment_scheduling.farm_fields", "harvest_equipment_scheduling.harvest_machines",
    "hr_case_helpdesk.policy_docs", "leave_management.public_holidays", "lms_assignment_grading.coursework_assignments",
    "month_end_close.close_tasks", "month_end_close.gl_accounts", "nurse_agency_staffing.client_facilities",
    "p2p_lending_marketplace.loan_listings", "pharmacy_dispensing.drugs", "podcast_studio_booking.podcast_shows",
    "reinsurance_bordereaux.treaties", "research_participant_recruitment.clinical_studies",
    "specialist_referral_intake.referring_practices", "student_help_desk.kb_articles", "treasury_cash_desk.cash_accounts",
}


def _state(env: str) -> dict:
    return json.loads((SERVERS / env / "seed" / ".app" / "state.json").read_text("utf-8"))


def test_no_shipped_table_gives_two_rows_one_name():
    found = {table: rows for table, rows in repeated_name_rows(SERVERS).items() if table not in OPEN}
    assert found == {}, f"rows sharing a name, per table (give the table a larger pool or fewer rows): {found}"


def test_a_repeated_title_is_found_where_it_is_planted():
    bp = load_blueprint(BLUEPRINTS / "irb_protocol_review.yaml")
    state = _state("irb_protocol_review")
    assert repeated_names(bp, state) == []
    first, second = state["study_protocols"][:2]
    second["title"] = first["title"]
    assert [(r.value, r.rows) for r in repeated_names(bp, state)] == [(first["title"], 2)]


def test_the_repair_gives_a_repeated_title_a_free_one_of_its_population():
    """The pool_by repair (invariants.py) swaps a title an earlier protocol holds for an unused title of the same
    population, so the title still fits the study and two protocols are told apart by it."""
    bp = load_blueprint(BLUEPRINTS / "irb_protocol_review.yaml")
    tables = seed_tables(bp)
    rows = tables["study_protocols"]
    first = rows[0]
    twin = next(r for r in rows[1:] if r["population"] == first["population"])
    twin["title"] = first["title"]
    repair(bp, tables, random.Random(0))
    assert twin["title"] != first["title"] and not repeated_names(bp, tables) and not check_invariants(bp, tables)


def test_no_two_people_of_a_fresh_table_share_a_name():
    bp = load_blueprint(BLUEPRINTS / "vanpool_rider_matching.yaml")
    assert repeated_names(bp, seed_tables(bp)) == []


def test_a_variety_or_a_model_that_is_not_of_its_category_is_found_and_no_shipped_seed_holds_one():
    """A pear pack order of Honeycrisp, a compact Jeep Grand Cherokee (issue 19): the blueprints declare each
    commodity's varieties and each class's models (pool_by), the seed is repaired to them."""
    for env, table, field, value in [("packhouse_qc_pipeline", "pack_orders", "variety", "Honeycrisp"),
                                     ("car_rental_counter", "rental_vehicles", "make_model", "Jeep Grand Cherokee"),
                                     ("rideshare_dispatch", "rideshare_drivers", "vehicle", "Honda Accord")]:
        bp, state = load_blueprint(BLUEPRINTS / f"{env}.yaml"), _state(env)
        assert contradictions(bp, state) == []
        row = next(r for r in state[table] if r[field] != value and value not in str(
            next(i.pools.get(str(r[i.by])) for i in bp.invariants if i.kind == "pool_by" and i.field == field)))
        row[field] = value
        assert [(c.row_id, c.value) for c in contradictions(bp, state)] == [(row["id"], value)]
