"""Names fit what they name (generator/audit/vocabulary.py): no seed row's name or title speaks of another value of its
own type or category field, and no entity takes its titles or descriptions from a pool that belongs to no entity."""

from __future__ import annotations

from envcraft.generator.audit.vocabulary import contradiction_rows, contradictions
from envcraft.generator.model.blueprint import BLUEPRINTS, load_all, load_blueprint
from envcraft.generator.seeds.seed import seed_tables
from envcraft.generator.tasks.env import SERVERS

GENERIC = ("title", "sentence")  # values.py's office-generic pools: "Vendor contract update", "Reminder about ..."


def test_no_seed_row_has_a_name_that_contradicts_its_category():
    found = contradiction_rows(SERVERS)
    assert not found, "\n".join(f"{c.env} {c.row_id} {c.field}={c.value!r}: {c.category} is {c.holds}, the name says "
                                f"{c.names}" for c in found[:20])


def test_a_declared_vocabulary_finds_a_name_from_another_category():
    bp = load_blueprint(BLUEPRINTS / "reinsurance_bordereaux.yaml")
    tables = seed_tables(bp)
    treaty = next(r for r in tables["treaties"] if r["treaty_type"] == "quota_share")
    assert not contradictions(bp, tables)
    treaty["name"] = "Casualty XoL Layer 1"
    assert [(c.row_id, c.holds, c.names) for c in contradictions(bp, tables)] == [(treaty["id"], "quota_share",
                                                                                  "excess_of_loss")]


def test_a_name_that_speaks_of_another_category_is_found_without_a_declaration():
    bp = load_blueprint(BLUEPRINTS / "vet_clinic.yaml")
    tables = seed_tables(bp)
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

    from envcraft.generator.seeds.invariants import check_invariants, repair

    bp = load_blueprint(BLUEPRINTS / "volunteer_shift_matching.yaml")
    tables = seed_tables(bp)
    literacy = {r["id"] for r in tables["partner_agencies"] if r["cause"] == "literacy"}
    shift = next(r for r in tables["volunteer_shifts"] if r["partner_agency_id"] in literacy)
    assert not check_invariants(bp, tables)
    shift["role"] = "trail crew"
    assert [v for v in check_invariants(bp, tables) if shift["id"] in v and "role" in v]
    repair(bp, tables, random.Random(0))
    assert shift["role"] in ("reading buddy", "homework helper") and not check_invariants(bp, tables)


def test_no_cross_environment_link_writes_a_field_whose_vocabulary_is_declared():
    """A claim payment's payee is a body shop, a rental firm, a tow operator or the insured: a cedant company
    from reinsurance (linked in before, the issue's 'bakery as a rental-car payee') is none of them."""
    from envcraft.generator.tasks.workflow import links_between

    blueprints = load_all()
    pooled = {(bp.id, inv.entity, inv.field) for bp in blueprints for inv in bp.invariants if inv.kind == "pool_by"}
    entity_of = {(bp.id, op.name): op.entity for bp in blueprints for op in bp.operations}
    wrong = [link for a in blueprints for b in blueprints if a.id != b.id for link in links_between(a, b)
             if (b.id, entity_of[(b.id, link.dst_op)], link.dst_field) in pooled]
    assert not wrong, wrong[:5]
    # a declaration that would fill it is rejected: tests/test_relations.py


def test_a_create_a_task_asks_for_takes_declared_values_from_their_category():
    """Every create the task engine writes (refused ones included) names a supplier and cabin that fit the
    segment type: the travel store once asked for a 'flight, supplier Marriott, cabin standard king'."""
    import random

    from envcraft.generator.tasks.choose import Chooser
    from envcraft.generator.tasks.env import SERVERS, load_env

    env = load_env(SERVERS / "travel_agency_itineraries")
    op = next(o for o in env.bp.operations if o.name == "itinerary_segment_add")
    pools = {inv.field: inv.pools for inv in env.bp.invariants if inv.kind == "pool_by"}
    chooser, tables = Chooser(env, random.Random(0)), env.seed_tables()
    made = [chooser.create_fields(op, tables, {}) for _ in range(60)]
    assert {f["segment_type"] for f in made} == {"flight", "hotel", "rail", "car"}
    assert all(f[field] in pools[field][f["segment_type"]] for f in made for field in ("supplier", "cabin_or_room"))
