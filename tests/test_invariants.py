"""Coherent worlds: every seed satisfies its blueprint's invariants, check_invariants catches each kind
of contradiction the issue found, writes keep derived fields true, and humanize leaves no raw enum in prose."""

from __future__ import annotations

import copy

import pytest
from envcraft.generator.compile.compiler import compile_blueprint
from envcraft.generator.model.blueprint import BLUEPRINTS, load_all, load_blueprint
from envcraft.generator.model.humanize import field_words, humanize, is_raw
from envcraft.generator.seeds.invariants import check_invariants, invariants
from envcraft.generator.seeds.seed import seed_tables
from envcraft.registry.catalog import Environment
from envcraft.registry.launch import load_server_module
from envcraft.registry.manifest import read_manifest

ALL = load_all()


@pytest.mark.parametrize("bp", ALL, ids=[bp.id for bp in ALL])
def test_every_seed_satisfies_its_invariants(bp):
    assert check_invariants(bp, seed_tables(bp)) == []


def _bp(name):
    return load_blueprint(BLUEPRINTS / f"{name}.yaml")


def _first(tables, table, **match):
    return next(r for r in tables[table] if all(r.get(k) == v for k, v in match.items()))


def test_each_contradiction_the_issue_found_is_caught():
    travel = _bp("travel_agency_itineraries")
    tables = seed_tables(travel)
    trip = tables["trip_requests"][0]
    trip["return_date"] = "2026-11-01"
    trip["depart"] = "2026-11-05"
    assert any(trip["id"] in v and "return date" in v for v in check_invariants(travel, tables))

    shelter = _bp("animal_shelter_adoptions")
    tables = seed_tables(shelter)
    cat = _first(tables, "shelter_animals", species="cat")
    cat["breed"] = "lop rabbit"
    assert any(cat["id"] in v and "lop rabbit" in v for v in check_invariants(shelter, tables))

    pharmacy = _bp("pharmacy_dispensing")
    tables = seed_tables(pharmacy)
    statin = _first(tables, "drugs", name="Atorvastatin 20mg tabs")
    statin["controlled_schedule"] = "C-III"
    assert any(statin["id"] in v for v in check_invariants(pharmacy, tables))

    warehouse = _bp("warehouse_inbound_receiving")
    tables = seed_tables(warehouse)
    line = tables["receipt_lines"][0]
    line.update(status="short", expected_qty=21, received_qty=309)
    assert any(line["id"] in v and "309" in v for v in check_invariants(warehouse, tables))

    exams = _bp("exam_proctoring_schedule")
    tables = seed_tables(exams)
    shift = tables["proctor_shifts"][0]
    shift["start"] = "2026-12-30" + shift["start"][10:]
    assert any(shift["id"] in v for v in check_invariants(exams, tables))

    expenses = _bp("expense_reimbursement")
    tables = seed_tables(expenses)
    report = tables["expense_reports"][0]
    report["total"] = report["total"] + 100
    assert any(report["id"] in v and "total" in v for v in check_invariants(expenses, tables))

    people = _bp("meeting_room_booking")
    tables = seed_tables(people)
    first, second = tables["room_reservations"][:2]
    email = next(i.field for i in invariants(people) if i.kind == "email_of" and i.entity == "room_reservation")
    first[email] = second[email]
    assert any(first["id"] in v and "is not" in v for v in check_invariants(people, tables))


def test_a_write_keeps_a_derived_total_true(tmp_path):
    bp = _bp("expense_reimbursement")
    folder = compile_blueprint(bp, tmp_path / bp.id)
    manifest = read_manifest(folder)
    app = load_server_module(Environment(manifest.env.env_id, folder, manifest)).app
    tables = seed_tables(bp)
    draft = _first(tables, "expense_reports", status="draft")
    app.expense_line_add(tables, draft["id"], "meals", 42.5)
    line = next(r for r in tables["expense_lines"] if r["expense_report_id"] == draft["id"])
    app.expense_line_remove(tables, line["id"])
    assert check_invariants(bp, tables) == []


def test_humanize_leaves_no_raw_values():
    assert humanize("awaiting_shopper") == "awaiting shopper"
    assert humanize("prod_eu") == "prod EU" and humanize("no_show") == "no-show"
    assert humanize(True) == "yes" and humanize(1250.0) == "1,250" and humanize("C-II") == "C-II"
    assert field_words("move_in_date") == "move-in date" and field_words("rental_unit_id") == "rental unit"
    assert is_raw("set it to awaiting_shopper") and not is_raw(humanize("awaiting_shopper"))


def test_invariants_are_checked_on_copies_not_changed():
    bp = _bp("warehouse_inbound_receiving")
    tables = seed_tables(bp)
    before = copy.deepcopy(tables)
    check_invariants(bp, tables)
    assert tables == before


def test_a_name_that_must_differ_is_repaired_to_another_of_its_pool():
    """A reconciliation's reviewer is never its preparer: the repair picks another staff name, not the same one."""
    import random

    from envcraft.generator.seeds.invariants import repair

    close = _bp("month_end_close")
    tables = seed_tables(close)
    rows = tables["reconciliations"]
    for row in rows[:5]:
        row["reviewer"] = row["preparer"]
    assert len(check_invariants(close, tables)) == 5
    repair(close, tables, random.Random(0))
    assert check_invariants(close, tables) == []
    staff = close.entity("reconciliation").field("reviewer").values
    assert all(r["reviewer"] in staff and r["reviewer"] != r["preparer"] for r in rows)
