"""A store that does not repeat itself and requests a person would write (issue 19, items 5 and 6): what
generation keeps per environment, batch tasks, and the pieces requests are built from."""

from __future__ import annotations

import random
from collections import Counter
from itertools import pairwise
from pathlib import Path

import pytest
from envcraft.core.tasks import load_tasks
from envcraft.generator.tasks import instruct
from envcraft.generator.tasks.batch import build_batch
from envcraft.generator.tasks.build import Failed
from envcraft.generator.tasks.env import SERVERS, EnvCache, generated_envs
from envcraft.generator.tasks.generate import FAMILY_CAP, generate
from envcraft.generator.tasks.judgement import hint
from envcraft.generator.tasks.realism import family, realism, redundancy_key, words
from envcraft.generator.tasks.replay import World
from envcraft.generator.tasks.validate import validate

ENVS = ["vet_clinic", "freight_brokerage"]
PER_ENV = 40


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> list:
    out = tmp_path_factory.mktemp("tasks")
    generate(seed=7, per_env=PER_ENV, envs=ENVS, out=out, workers=1, log=lambda *a: None)
    return {path.name.split(".")[0]: load_tasks(path) for path in sorted(out.glob("*.jsonl"))}


@pytest.mark.slow
def test_generation_keeps_no_repeat_and_no_dominant_family(fresh):
    for env, tasks in fresh.items():
        keys = Counter(redundancy_key(t) for t in tasks)
        assert max(keys.values()) == 1, (env, keys.most_common(1))
        families = Counter(family(t) for t in tasks)
        cap = round(FAMILY_CAP * PER_ENV)
        # the coverage pass may add a task past the cap so that no tool goes unused: at most one per family here
        assert max(families.values()) <= cap + 1, (env, families.most_common(2))
    figures = realism([t for tasks in fresh.values() for t in tasks])
    assert figures["redundant_share"] == 0.0 and figures["max_family_share"] <= 0.10, figures


@pytest.fixture(scope="module")
def cache() -> EnvCache:
    return EnvCache(generated_envs(SERVERS))


def test_a_batch_moves_every_row_of_its_set_and_says_why_and_how_many(cache):
    made = []
    for name in ("vet_clinic", "dairy_herd_records"):
        for i in range(30):
            try:
                made.append((cache[name], build_batch(cache, cache[name], random.Random(f"batch:{i}"), "train")))
            except Failed:
                continue
    assert made, "no batch task in 60 draws"
    assert any("needs:conditional" in d.task.tags for _, d in made) and any("needs:conditional" not in d.task.tags
                                                                             for _, d in made)
    for env, draft in made:
        task = draft.task
        moves = [c for c in task.gold if c.tool in env.ops and env.ops[c.tool].kind == "transition"]
        entity = env.entity(env.ops[moves[0].tool].entity)
        ids = [c.arguments[f"{entity.name}_id"] for c in moves]
        assert len(ids) >= 3 and len(set(ids)) == len(ids)
        # one change for the whole set, or two where a threshold decides
        assert len({c.tool for c in moves}) == (2 if "needs:conditional" in task.tags else 1)
        assert draft.meta["keep"][0] in task.turns[0]  # how many there are, in words or digits
        assert validate(cache, task, random.Random(0)).ok
        world = World(cache, task)  # every row of the set ends where the request says, and the gold says so
        world.run(task.gold)
        final = {r["id"]: r for r in world.tables[env.name][entity.table]}
        assert all(final[c.arguments[f"{entity.name}_id"]][entity.status_field] == env.ops[c.tool].to_status for c in moves)
        # the gold that skips the last row of the set is not paid in full
        short = task.model_copy(update={"gold": [c for c in task.gold if c is not moves[-1]]})
        assert not validate(cache, short, random.Random(0)).ok


def test_formulas_around_a_request_are_short_so_none_recurs_word_for_word():
    formulas = [*(o for options in instruct.OPENERS.values() for o in options),
                *(c for options in instruct.CLOSERS.values() for c in options), *instruct.ALSO, *instruct.THEN,
                *instruct.FOLLOW]
    assert [f for f in formulas if len(words(f)) > 4] == []


def test_the_rule_hint_varies_and_reads_as_one_sentence():
    rng = random.Random(3)
    said = [hint(rng) for _ in range(400)]
    spoken = [s for s in said if s]
    assert 0.35 < len(spoken) / len(said) < 0.65
    assert Counter(spoken).most_common(1)[0][1] <= 0.05 * len(spoken)
    assert all(s.startswith(" ") and s.endswith(".") and s.count(".") == 1 for s in spoken)


def test_a_person_who_introduced_themselves_does_not_sign_again_and_a_signature_is_name_and_role():
    role = instruct.Role("front desk", "Pawsome")
    for register in instruct.REGISTERS:
        who = instruct.Voice("Nina Johnson", role, register)
        rng = random.Random(1)
        assert who.sign(rng, introduced=True) in ("", "Nina Johnson")  # formal letters end with the name alone
        signed = who.sign(rng, introduced=False)
        assert signed in ("", "Nina", "- Nina", "Nina Johnson, Front desk, Pawsome"), signed
    assert "Nina Johnson" in role.introduction("Nina Johnson", random.Random(0)) or \
        "Nina" in role.introduction("Nina Johnson", random.Random(0))


@pytest.mark.slow
def test_the_store_figures_hold_on_a_generated_sample(fresh):
    tasks = [t for tasks in fresh.values() for t in tasks]
    assert realism(tasks)["paren_field_ref_share"] == 0.0
    openings = Counter(tuple(words(t.turns[0])[:5]) for t in tasks)
    assert openings.most_common(1)[0][1] <= 0.05 * len(tasks), openings.most_common(3)



def test_that_x_is_said_only_when_the_text_so_far_named_one_x(cache):
    from envcraft.generator.tasks.describe import Describer

    env = cache["vet_clinic"]
    tables = env.seed_tables()
    first, second = tables["pets"][0]["id"], tables["pets"][1]["id"]
    for seed in range(10):
        writer = instruct.Writer(env, Describer(env, tables, tables, random.Random(seed)), random.Random(seed))
        named = writer.name("pet", first)
        assert not named.startswith(("that", "the same"))
        assert writer.name("pet", first).startswith(("that pet", "the same pet"))  # one pet so far: unambiguous
        writer.name("pet", second)
        again = writer.name("pet", first)
        assert not again.startswith(("that", "the same")), again  # two pets named: say which
    # a row named only inside another row's description counts too: after "the pet Oscar" and "the placement of
    # the agency nurse Sean Lam", "that agency nurse" could mean either
    found = next(((env, entity.name, row["id"], desc) for env in (cache[n] for n in sorted(generated_envs(SERVERS))[:60])
                  for entity in env.bp.entities for row in env.seed_tables().get(entity.table, [])[:6]
                  for desc in [Describer(env, env.seed_tables(), env.seed_tables(), random.Random(0)).describe(entity.name, row["id"])]
                  if desc is not None and desc.nested), None)
    assert found, "no description names another row in the first 60 environments"
    env, entity, row_id, desc = found
    inner = next(iter(desc.nested.values()))
    tables = env.seed_tables()
    other = next(r["id"] for r in tables[env.entity(inner.entity).table] if r["id"] != inner.row_id)
    describer = Describer(env, tables, tables, random.Random(0))
    describer.cache[(entity, row_id)] = desc
    writer = instruct.Writer(env, describer, random.Random(0))
    writer.name(inner.entity, other)
    writer.name(entity, row_id)
    again = writer.name(inner.entity, other)
    assert not again.startswith(("that", "the same")), (desc.phrase, again)


@pytest.mark.slow
def test_committed_store_reads_like_a_workplace_and_does_not_repeat_itself():
    """Issue 19's store figures on the committed store (fails until the store is regenerated with this engine)."""
    from envcraft.core.tasks import TASKS_DIR
    from envcraft.generator.tasks.stats import _load

    tasks, _ = _load(Path(TASKS_DIR))
    got = realism(tasks)
    assert len(tasks) >= 20_000, len(tasks)
    # issue 19 asks top20_5gram_coverage <= 0.15. The store before the ngram branch measured 0.2008 (the day said as
    # a date, "30 November 2026 at", and the note references led the list); on the same 20-per-environment sample
    # (seed 0, all 151 environments) the generator went from 0.1813 to 0.1105, the full store was not regenerated
    # on the branch: it holds the target until the lead's regeneration measures it, then the ratchet follows
    assert got["paren_field_ref_share"] <= 0.05 and got["top20_5gram_coverage"] <= 0.15, got
    assert got["distinct_open5_share"] >= 0.70 and got["redundant_share"] <= 0.10, got
    assert got["max_family_share"] <= 0.10 and got["one_search_question_share"] <= 0.20, got
    assert got["long_task_share"] >= 0.15, got


def test_a_day_near_the_worlds_today_is_said_as_a_person_says_it_that_day():
    """"30 November 2026 at" led the store's 5-grams: a colleague on 1 December says "yesterday at 09:30"."""
    from datetime import date

    from envcraft.generator.model.blueprint import FieldSpec
    from envcraft.generator.tasks.describe import spoken

    today, at = date(2026, 12, 1), FieldSpec(name="start", type="datetime")
    said = {spoken(at, "2026-11-30T09:30", today, random.Random(i)) for i in range(40)}
    assert all("yesterday" in s and "09:30" in s and "2026" not in s for s in said), said
    assert all("today" in s or "tonight" in s or "this " in s for s in
               {spoken(at, "2026-12-01T19:00", today, random.Random(i)) for i in range(40)})
    far = {spoken(at, "2027-03-04T10:00", today, random.Random(i)) for i in range(40)}
    assert all("2027" in s and "10:00" in s for s in far), far  # another year keeps its year
    assert spoken(at, "2026-11-30T09:30") == "30 November 2026 at 09:30"  # no today given: the full date


def test_a_description_names_a_row_by_every_value_it_picked(cache):
    """A date field named for a verb ("received_at") reads "received yesterday at 09:30", and is said: the
    clause used to drop it, leaving a description that no longer tells the row apart."""
    from envcraft.generator.tasks.describe import Describer

    checked = 0
    for name in ("background_check_orders", "card_dispute_desk", "court_efiling_notices", "ach_batch_operations"):
        env = cache[name]
        tables = env.seed_tables()
        for entity in env.bp.entities:
            timed = [f.name for f in entity.fields if f.type in ("date", "datetime") and f.name.endswith(("_at", "_on"))]
            for row in tables.get(entity.table, [])[:10]:
                for field in timed:
                    if row.get(field) in (None, ""):
                        continue
                    desc = Describer(env, tables, tables, random.Random(0)).describe(entity.name, row["id"], prefer=[field])
                    if desc is None or field not in desc.fields:
                        continue
                    verb = field.rsplit("_", 1)[0].replace("_", " ")
                    assert f" {verb} " in desc.phrase + " " and f"whose {verb}" not in desc.phrase, desc.phrase
                    checked += 1
    assert checked >= 10, checked


def test_a_threshold_on_a_field_named_for_a_verb_is_said_with_the_verb():
    """Never "when its opened is after 18 November" or "if its end is after": the verb, or the field's noun."""
    import re

    from envcraft.generator.model.blueprint import FieldSpec
    from envcraft.generator.tasks.describe import condition

    for name, kind in (("opened_at", "datetime"), ("received_on", "date"), ("end", "datetime"), ("start", "datetime"),
                       ("born", "date"), ("due_date", "date"), ("amount", "float")):
        for i in range(30):
            said = condition(name, FieldSpec(name=name, type=kind), "18 November", random.Random(i))
            assert not re.search(r"\bits (opened|received|end|start|born|due)\b", said), said
            assert "18 November" in said
    opened = FieldSpec(name="opened_at", type="datetime")
    assert any("it was opened after 18 November" in condition("opened_at", opened, "18 November", random.Random(i))
               for i in range(30))


def test_a_label_that_says_what_it_is_is_not_preceded_by_the_same_word(cache):
    """"the records box BOX-00009" and "the service counter Counter 5" doubled a word in 3% of the store."""
    from envcraft.generator.tasks.describe import Describer

    seen = 0
    for name, entity in (("document_scanning_pipeline", "records_box"), ("citizen_service_center", "service_counter")):
        env = cache[name]
        tables = env.seed_tables()
        for row in tables[env.entity(entity).table][:6]:
            for seed in range(4):
                desc = Describer(env, tables, tables, random.Random(seed)).describe(entity, row["id"])
                if desc is None:
                    continue
                said = words(desc.phrase)
                assert all(a != b for a, b in pairwise(said)), desc.phrase
                seen += 1
    assert seen, "no records box or service counter described"
