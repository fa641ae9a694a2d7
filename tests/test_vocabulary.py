"""Names fit what they name (generator/vocabulary.py): no seed row's name or title speaks of another value of its
own type or category field, and no entity takes its titles or descriptions from a pool that belongs to no entity."""

from __future__ import annotations

import json

from envcraft.generator.blueprint import BLUEPRINTS, load_all, load_blueprint
from envcraft.generator.tasks.env import SERVERS
from envcraft.generator.vocabulary import contradiction_rows, contradictions

GENERIC = ("title", "sentence")  # values.py's office-generic pools: "Vendor contract update", "Reminder about ..."


def seed(env: str) -> dict[str, list[dict]]:
    return json.loads((SERVERS / env / "seed" / ".app" / "state.json").read_text("utf-8"))


def test_no_seed_row_has_a_name_that_contradicts_its_category():
    found = contradiction_rows(SERVERS)
    assert not found, "\n".join(f"{c.env} {c.row_id} {c.field}={c.value!r}: {c.category} is {c.holds}, the name says "
                                f"{c.names}" for c in found[:20])


def test_a_declared_vocabulary_finds_a_name_from_another_category():
    bp = load_blueprint(BLUEPRINTS / "reinsurance_bordereaux.yaml")
    tables = seed(bp.id)
    treaty = next(r for r in tables["treaties"] if r["treaty_type"] == "quota_share")
    assert not contradictions(bp, tables)
    treaty["name"] = "Casualty XoL Layer 1"
    assert [(c.row_id, c.holds, c.names) for c in contradictions(bp, tables)] == [(treaty["id"], "quota_share",
                                                                                  "excess_of_loss")]


def test_a_name_that_speaks_of_another_category_is_found_without_a_declaration():
    bp = load_blueprint(BLUEPRINTS / "vet_clinic.yaml")
    tables = seed(bp.id)
    vet = next(r for r in tables["vets"] if r["specialty"] == "general")
    assert not contradictions(bp, tables)
    vet["name"] = "Exotics Desk (Dr Lam)"
    assert [(c.row_id, c.category, c.names) for c in contradictions(bp, tables)] == [(vet["id"], "specialty", "exotics")]
    vet["name"] = "-80 Freezer A"  # a number names a category too (minus_80), but not one of the vet's
    assert not contradictions(bp, tables)


def test_no_entity_takes_its_titles_or_descriptions_from_the_generic_pools():
    generic = [f"{bp.id}: {entity.name}.{spec.name}" for bp in load_all() for entity in bp.entities
               for spec in entity.fields if spec.gen in GENERIC]
    assert not generic, f"give these fields the entity's own vocabulary (values, or a pool_by invariant): {generic}"


def test_a_shift_role_that_does_not_fit_its_agency_cause_breaks_an_invariant_and_the_seed_repair_fixes_it():
    """pool_by with ref_field: the pool is picked by a field of the referenced row (the agency's cause)."""
    import random

    from envcraft.generator.invariants import check_invariants, repair

    bp = load_blueprint(BLUEPRINTS / "volunteer_shift_matching.yaml")
    tables = seed(bp.id)
    literacy = {r["id"] for r in tables["partner_agencies"] if r["cause"] == "literacy"}
    shift = next(r for r in tables["volunteer_shifts"] if r["partner_agency_id"] in literacy)
    assert not check_invariants(bp, tables)
    shift["role"] = "trail crew"
    assert [v for v in check_invariants(bp, tables) if shift["id"] in v and "role" in v]
    repair(bp, tables, random.Random(0))
    assert shift["role"] in ("reading buddy", "homework helper") and not check_invariants(bp, tables)
