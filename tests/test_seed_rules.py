"""Worlds obey their own rules: every row of every shipped seed is what a write its tools allow could have
made, and every write the rules gate has several rows to act on.

The shipped check runs the compiled app.py: each row is replayed through the write that made it (its
entity's create, a transition into its status, every update) on a copy of the seed (servers/<env>/seed/.app/
state.json), and a rule that write would refuse is a breach. The app's own checks decide; only `refuse` is
swapped for a recorder, so every rule a row breaks is seen, not only the first. generator/seeds/seed_rules.py says
which rules speak for a row that exists (a `status_in` or `not_in_past` check does not) and how a referenced
row's status may have moved on since; the replay applies that by rewinding such a row to the allowed status.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from envcraft.generator.compile.appcode import params_of
from envcraft.generator.model.blueprint import BLUEPRINTS, Blueprint, load_all, load_blueprint
from envcraft.generator.model.fields import typed
from envcraft.generator.seeds.seed import seed_tables
from envcraft.generator.seeds.seed_repair import repair_rules
from envcraft.generator.seeds.seed_rules import Way, breaches, later_states, reached, ways_in
from envcraft.generator.seeds.seed_supply import MIN_CHOICES, choices, gated
from envcraft.registry.catalog import discover
from envcraft.registry.launch import load_server_module
from envcraft_runtime.failures import ToolFailure
from envcraft_runtime.rules import INACTIVE

ALL = load_all()
ENVS = discover()


def _rewound(bp: Blueprint, way: Way, row: dict[str, Any], tables: dict) -> dict:
    """A copy of the world as the write found it: the row not yet made (create) or still in a status the
    transition leaves, and the rows its rules read back in the state they allow when they have moved on since."""
    entity, world = bp.entity(way.op.entity), copy.deepcopy(tables)
    mine = next(r for r in world[entity.table] if r["id"] == row["id"])
    if way.op.kind == "create":
        world[entity.table].remove(mine)
    elif way.op.kind == "transition":
        mine[entity.status_field] = next(p.values[0] for p in way.op.preconditions if p.kind == "status_in")
    for check in way.checks:
        pre = check.pre
        if pre.kind == "ref_in":
            other, there = reached(bp, entity, tables, row, pre)
            field, keys = pre.other_field, {"id": there["id"] if there else None}
        elif pre.kind == "requires" and pre.field:
            other, field, keys = bp.entity(pre.entity), pre.field, {t: row.get(o) for t, o in pre.match.items()}
        else:
            continue
        allowed = [typed(other.field(field), v) for v in pre.values]
        later = later_states(bp, other.name, field, tuple(allowed))
        for r in world[other.table]:
            if all(r.get(k) == v for k, v in keys.items()) and r.get(field) in later and r.get(field) not in allowed:
                r[field] = allowed[0]
    return world


def _replay(bp: Blueprint, app: Any, way: Way, row: dict[str, Any], tables: dict, monkeypatch) -> set[str]:
    """The rules of the way the compiled write refuses for this row."""
    entity, refused = bp.entity(way.op.entity), []
    monkeypatch.setattr(app, "refuse", lambda policy, rule, fact: refused.append(policy))
    args = {p.name: row.get(p.spec.name) for p in params_of(bp, way.op) if p.spec is not None}
    if way.op.kind == "update" and all(v is None for v in args.values()):
        return set()  # nothing an update sets is there: no update made this row
    if way.op.kind != "create":
        args[f"{entity.name}_id"] = row["id"]
    try:
        getattr(app, way.op.name)(_rewound(bp, way, row, tables), **args)
    except ToolFailure as exc:
        refused.append(f"not replayable: {exc}")
    monkeypatch.undo()
    active = not entity.status_field or row.get(entity.status_field) not in INACTIVE
    counted = {c.rule for c in way.checks if active or c.pre.kind not in ("capacity", "no_overlap")}
    return {r for r in refused if r in counted or r.startswith("not replayable")}


@pytest.mark.parametrize("bp", ALL, ids=[bp.id for bp in ALL])
def test_every_shipped_seed_row_passes_the_compiled_rules_of_the_write_that_made_it(bp, monkeypatch):
    app = load_server_module(ENVS[bp.id]).app
    tables = json.loads((ENVS[bp.id].folder / "seed" / ".app" / "state.json").read_text("utf-8"))
    found = []
    for entity in bp.entities:
        for row in tables[entity.table]:
            for group in ways_in(bp, entity, row):
                refused = [_replay(bp, app, way, row, tables, monkeypatch) for way in group]
                if all(refused):
                    found.append(f"{entity.name} {row['id']}: {sorted(min(refused, key=len))}")
    assert not found, f"{len(found)} seed rows break their own rules, e.g. {found[:5]}"


@pytest.mark.parametrize("bp", ALL, ids=[bp.id for bp in ALL])
def test_every_gated_write_has_several_choices_in_the_seed(bp):
    tables = seed_tables(bp)
    assert breaches(bp, tables) == []
    short = {op.name: choices(bp, tables, op) for op in bp.operations if gated(bp, op)}
    assert all(n >= MIN_CHOICES for n in short.values()), short


def _research():
    return load_blueprint(BLUEPRINTS / "research_participant_recruitment.yaml")


def test_the_repair_re_picks_the_referenced_row_a_rule_ties_the_row_to():
    bp = _research()
    tables = seed_tables(bp)
    studies = {s["id"]: s for s in tables["clinical_studies"]}
    people = {v["id"]: v for v in tables["study_volunteers"]}
    for enrollment in tables["study_enrollments"]:  # an enrollment and a volunteer who breaks only that rule
        study, kept = studies[enrollment["clinical_study_id"]], enrollment["study_volunteer_id"]
        for stranger in (v for v in people.values() if v["condition"] != study["target_condition"]):
            enrollment["study_volunteer_id"] = stranger["id"]
            if [b.rule for b in breaches(bp, tables)] == ["volunteer_condition_matches"]:
                break
        else:
            enrollment["study_volunteer_id"] = kept
            continue
        break
    assert [b.rule for b in breaches(bp, tables)] == ["volunteer_condition_matches"]
    repair_rules(bp, tables, random.Random(1))
    assert breaches(bp, tables) == []
    volunteer, study = people[enrollment["study_volunteer_id"]], studies[enrollment["clinical_study_id"]]
    assert volunteer["condition"] == study["target_condition"]
    assert study["min_age"] <= volunteer["age"] <= study["max_age"]


def test_a_lease_offer_has_several_approved_pairs_to_choose_from():
    bp = load_blueprint(BLUEPRINTS / "rental_tenant_matching.yaml")
    tables = seed_tables(bp)
    units = {u["id"]: u for u in tables["rental_units"]}
    pairs = {(a["rental_applicant_id"], a["rental_unit_id"]) for a in tables["rental_applications"]
             if a["status"] == "approved" and units[a["rental_unit_id"]]["status"] == "available"}
    assert len(pairs) >= MIN_CHOICES and len({a for a, _ in pairs}) >= MIN_CHOICES, pairs
