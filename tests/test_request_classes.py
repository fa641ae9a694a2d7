"""The classes of request text a careful reader marked down (issue 19 item 5; notes careful_mcp2 and careful20f).

Each class was common in the committed store; the glitch lint (generator/tasks/quality.py, which validate.py runs
on every task) flags it on the store's own words, and the generator no longer writes it:
- field-name speak: a column's name and unit as words ("weight lbs 39355", "row ref row 28", "max cases 1");
- query-speak chains: a record named through attribute hops ("with backout plan X, of config item Y with owner
  team Z");
- bare seams that ask nothing ("Go by the change request ...", "... is the starting point.");
- do-then-undo: a row created or changed and then cancelled or rejected by the same request;
- the desk's voice for the other side's answer ("fine by us" = the tenant accepted), an odd motive ("For the
  director's numbers");
- free text from another domain ("Left a voicemail regarding the second invoice." as an incident update).
"""

from __future__ import annotations

import random

import pytest
from envcraft.generator.model.blueprint import load_all
from envcraft.generator.tasks.batch import REASONS_STATUS
from envcraft.generator.tasks.choose import Chooser
from envcraft.generator.tasks.describe import Describer, attribute, labelled
from envcraft.generator.tasks.env import SERVERS, label_field, load_env
from envcraft.generator.tasks.execute import searchable
from envcraft.generator.tasks.phrases import GOALS, THEIRS, answered_by_them, goal_phrases, misreadings, say
from envcraft.generator.tasks.quality import glitches
from envcraft.generator.tasks.quantities import noun, pointed, stated
from envcraft.generator.tasks.reasons import ACROSS

CLASSES = ("field_speak", "query_chain", "bare_seam", "wrong_actor", "odd_motive", "foreign_text")


def classes(text: str) -> set[str]:
    return {g.split(":")[0] for g in glitches(text)} & set(CLASSES)


@pytest.mark.parametrize(("found", "old", "fixed"), [  # old: verbatim from the committed store (main @e8d843ac)
    ("field_speak", "Add a renter: name Ana Barros, phone +1 614-555-0165, height cm 120, weight kg 103, type 2.",
     "Add a renter: name Ana Barros, phone +1 614-555-0165, height 120 cm, weight 103 kg, type 2."),
    ("field_speak", "A bordereau issue for that new bordereau needs adding - issue type currency mismatch, row ref row "
     "443 and amount impact 3420.", "A bordereau issue for that new bordereau needs adding - issue type currency "
     "mismatch, row 443 and amount impact 3420."),
    ("field_speak", "An ad insertion order for the magazine issue March 2027 with ad pages 20 and the print advertiser "
     "Pinecrest Foods Ltd should be added.", "An ad insertion order for the magazine issue March 2027 with 20 ad pages "
     "and the print advertiser Pinecrest Foods Ltd should be added."),
    ("field_speak", "The pencilled studio session for Startup Diaries: 2026-12-03 09:30 to 10:30 and people 5.",
     "The pencilled studio session for Startup Diaries: 2026-12-03 09:30 to 10:30 for 5 people."),
    ("field_speak", "The scan batch of scanner station Ricoh fi-8950 with max concurrent 3 is going through the scanner.",
     "The scan batch of scanner station Ricoh fi-8950 that takes up to 3 at a time is going through the scanner."),
    ("field_speak", "What is the platform order's external of the courier event with eta minutes 4?",
     "What is the platform order's external ID of the courier event with an ETA of 4 minutes?"),
    ("query_chain", "Roll back the change request with backout plan \"Revert the config\", of config item edge-fw-01 "
     "with owner team Network.", "Roll back the change request with backout plan \"Revert the config\", of config "
     "item edge-fw-01."),
    ("query_chain", "The table reservation with arrival \"Friday the 27th at 13:00\" and seating lunch, of the dining "
     "table with label T15 is seated.", "The table reservation starting Friday the 27th at 13:00, at table T15, is "
     "seated."),
    ("bare_seam", "Go by the scan batch for BOX-00014. Then, in Northgate HQ supply room, add a request.",
     "Look up the scan batch for BOX-00014 first. Then, in Northgate HQ supply room, add a request."),
    ("bare_seam", "Hey, the expense claimant with email chloe.schmidt@mailbox.org is the starting point.",
     "Hey, look up the expense claimant with email chloe.schmidt@mailbox.org first."),
    ("bare_seam", "Now the source is the resident caller Grace Evans in City of Port Alder 311 service line.",
     "Now the details come from the resident caller Grace Evans in City of Port Alder 311 service line."),
    ("bare_seam", "Hi team, keyed off the resident caller with phone +1 443-555-0111.",
     "Hi team, copy the details from the resident caller with phone +1 443-555-0111."),
    ("wrong_actor", "The offered claim assignment for field adjuster Rosa Haddad is fine by us - we'll take it.",
     "They've accepted the offered claim assignment for field adjuster Rosa Haddad."),
    ("wrong_actor", "If it ends after 7 December, 10:30, we'll give it a miss; if not, it is a sure thing now.",
     "If it ends after 7 December, 10:30, they've turned it down; if not, it is a sure thing now."),
    ("odd_motive", "Quick one. For the director's numbers, sort out the ten ad insertion orders.",
     "Quick one. Before the weekly review, sort out the ten ad insertion orders."),
    ("foreign_text", "Post a stakeholder update for customers: \"Left a voicemail regarding the second invoice.\"",
     "Post a stakeholder update for customers: \"Exports are delayed; we will update within the hour\""),
])
def test_the_lint_flags_each_class_on_store_text(found, old, fixed):
    assert found in classes(old), glitches(old)
    assert not classes(fixed), glitches(fixed)


def test_numbers_are_said_as_staff_say_them():
    fields = {(spec.name, spec.type): spec for bp in load_all() for e in bp.entities for spec in e.fields}
    spec = {name: s for (name, _), s in fields.items()}
    assert stated(spec["weight_lbs"], "39355") == "weight 39355 lb"
    assert stated(spec["ad_pages"], "13") == "13 ad pages" and stated(spec["ad_pages"], "1") == "1 ad page"
    assert stated(spec["max_cases"], "1") == "a limit of 1 case" and stated(spec["page_count"], "348") == "348 pages"
    assert pointed(spec["people"], "5") == "for 5 people" and pointed(spec["weight_kg"], "21") == "with a weight of 21 kg"
    assert noun(spec["weight_kg"], "weight_kg") == "weight in kg" and noun(spec["ad_pages"], "ad_pages") == "number of ad pages"
    assert labelled("row_ref", "row 28") == "row 28"
    # every number column of the catalog, as a request states it and as it picks a record out, reads without a seam
    for spec in fields.values():
        if spec.type in ("int", "float"):
            for shown in ("1", "4", "39355", "12.5"):
                said = stated(spec, shown) or labelled(spec.name, shown)
                picked = attribute(spec.name, spec, shown, "record")
                for text in (f"Please add a record: {said}.", f"The record {picked} is done.",
                             f"What is the {noun(spec, spec.name)} of the record?"):
                    assert not classes(text), (spec.name, text, glitches(text))


@pytest.mark.parametrize("env_name", ["restaurant_table_reservations", "change_advisory_board", "grain_elevator_intake",
                                      "reinsurance_bordereaux", "office_relocation_moves", "warehouse_inbound_receiving"])
def test_a_record_is_named_by_two_handles_at_most(env_name):
    """Every row of every table a search reaches, named from the seed: at most two hops besides its name (a value,
    or a row it points at, which costs one more for each value besides that row's name), and no chain the lint
    can see."""
    env = load_env(SERVERS / env_name)
    tables = env.seed_tables()
    describer = Describer(env, tables, tables, random.Random(0))
    named = 0
    for entity_name in sorted(searchable(env)):
        entity = env.entity(entity_name)
        for row in tables.get(entity.table, []):
            desc = describer.describe(entity_name, row["id"])
            if desc is None:
                continue
            named += 1
            own = [f for f in desc.fields if f not in (label_field(entity), entity.status_field, *desc.nested)]
            hops = len(own) + sum(1 + len([f for f in inner.fields if f not in (
                label_field(env.entity(inner.entity)), env.entity(inner.entity).status_field)])
                for inner in desc.nested.values())
            assert hops <= 2, (row["id"], desc.phrase)
            assert not classes(f"Please look at {desc.phrase} today."), (row["id"], desc.phrase)
    assert named >= 20


def test_a_reason_across_systems_asks_for_something_and_no_motive_is_odd():
    for template in ACROSS:
        text = template.format(a="the hotel guest with phone +1 459-555-0113", A="The hotel guest Ana Silva",
                               src="The Linden front desk")
        assert not classes(text), (template, glitches(text))
    for reason in REASONS_STATUS:
        assert not classes(f"{reason} the four change requests all go the same way."), reason


def test_the_other_sides_answer_is_said_as_theirs():
    """A transition that records a tenant's, candidate's or sponsor's yes or no is said in their voice; the desk's
    own accept or decline in the desk's; no phrasing of either is "fine by us" or "give it a miss"."""
    ops = {(bp.id, op.name): op for bp in load_all() for op in bp.operations
           if op.kind == "transition" and op.to_status in THEIRS}
    assert answered_by_them("accepted", ops[("lease_renewal_workflow", "renewal_case_record_acceptance")].description)
    assert answered_by_them("declined", ops[("grant_proposal_office", "grant_proposal_record_decline")].description)
    assert not answered_by_them("accepted", ops[("delivery_platform_orders", "platform_order_accept")].description)
    for (env, name), op in ops.items():
        phrases = goal_phrases(op.to_status, answered_by_them(op.to_status, op.description))
        assert phrases == (THEIRS if answered_by_them(op.to_status, op.description) else GOALS)[op.to_status]
        for phrase in phrases:
            assert not classes(capital_first(say(phrase, "the renewal case")) + "."), (env, name, phrase)
    assert misreadings({**GOALS, **{f"{k}_by_them": v for k, v in THEIRS.items()}}) == misreadings(GOALS)


def capital_first(text: str) -> str:
    return text[:1].upper() + text[1:]


@pytest.mark.parametrize("env_name", ["oncall_incident_desk", "hr_case_helpdesk", "tenant_maintenance_requests"])
def test_free_text_comes_from_its_own_fields_pool(env_name):
    env = load_env(SERVERS / env_name)
    chooser = Chooser(env, random.Random(0))
    pools = [(entity, spec) for entity in env.bp.entities for spec in entity.fields if spec.type == "text" and spec.values]
    assert pools
    for entity, spec in pools:
        for _ in range(5):
            assert chooser.text(entity, spec, env.seed_tables(), False) in spec.values, (entity.name, spec.name)


@pytest.mark.slow
def test_a_fresh_generation_takes_nothing_back_and_shows_no_class(tmp_path):
    """Environments whose store held "register it ... it is a no from us", "tender it ... call off the same load"
    and "book it ... strike it - it's off": a fresh generation holds none of it, nor any class above."""
    from envcraft.core.tasks import load_tasks
    from envcraft.generator.tasks.generate import generate
    from envcraft.generator.tasks.quality import undone_in_task

    envs = ["reinsurance_bordereaux", "freight_brokerage", "lease_renewal_workflow"]
    generate(seed=0, per_env=30, envs=envs, out=tmp_path, workers=1, log=lambda *a: None)
    tasks = [t for path in sorted(tmp_path.glob("*.jsonl")) for t in load_tasks(path)]
    assert len(tasks) >= 60
    existing: dict[str, set[str]] = {}
    for task in tasks:
        for env in task.envs:
            if env not in existing:
                existing[env] = {r["id"] for rows in load_env(SERVERS / env).seed_tables().values() for r in rows}
        ids = {env: existing[env] | {r["id"] for rows in task.initial_for(env).rows.values() for r in rows}
               for env in task.envs}
        assert undone_in_task(task, ids) == [], (task.id, task.turns)
        assert not classes("\n".join(task.turns)), (task.id, glitches("\n".join(task.turns)))
