"""A refused create that breaks several rules names each of them as a reason (issue 18): a careful agent citing
every rule the refused record breaks is paid, one citing a rule it keeps is not. Generated fresh for the tutor
centre, whose pairing rules compare a tutee's language, availability and subject with the tutor's."""

from __future__ import annotations

import pytest
from envcraft.core.tasks import load_tasks
from envcraft.generator.tasks.env import SERVERS, EnvCache, generated_envs
from envcraft.generator.tasks.generate import generate
from envcraft.generator.tasks.mutations import _with_answer
from envcraft.generator.tasks.replay import World
from envcraft.generator.tasks.validate import score

ENV = "tutor_matching_center"
COMPARED = {"judgement_1b": ("preferred_language", "language"), "judgement_1c": ("availability", "availability"),
            "tutor_subject_matches": ("subject_need", "subject")}  # tutee field, tutor field (the blueprint's)
LEVELS = ["intro", "intermediate", "advanced"]  # judgement_1: the tutor's max level is at or above the tutee's


@pytest.fixture(scope="module")
def refusals(tmp_path_factory):
    out = tmp_path_factory.mktemp("tasks")
    generate(seed=0, per_env=60, envs=[ENV], out=out, workers=1, log=lambda *a: None)
    cache = EnvCache(generated_envs(SERVERS))
    tasks = [t for path in sorted(out.glob("*.jsonl")) for t in load_tasks(path)]
    return cache, [t for t in tasks if "refused:tutoring_pair_propose" in t.tags]


@pytest.mark.slow
def test_every_rule_a_refused_pairing_breaks_is_a_reason_and_each_pays(refusals):
    cache, tasks = refusals
    several = 0
    for task in tasks:
        check = next(c for c in task.checks if c.kind == "answer")
        rule_ids = check.reasons[::2]
        several += len(rule_ids) > 1
        pair = next(c for c in task.checks if c.kind == "no_record").match
        world = World(cache, task)
        tables = world.start[ENV].tables
        tutee = next(r for r in tables["tutees"] if r["id"] == pair["tutee_id"])
        tutor = next(r for r in tables["peer_tutors"] if r["id"] == pair["peer_tutor_id"])
        broken = {rule for rule, (mine, theirs) in COMPARED.items() if tutee[mine] != tutor[theirs]}
        if LEVELS.index(tutee["level"]) > LEVELS.index(tutor["max_level"]):
            broken.add("judgement_1")
        assert set(rule_ids) == broken, task.id  # every broken rule, and only those
        finish = f"I did not pair {tutor['name']} with {tutee['name']}: it breaks {', '.join(rule_ids)}."
        assert score(cache, task, _with_answer(task, finish)) == 1.0, (task.id, finish)
        for kept in sorted({"judgement_1", *COMPARED} - broken):  # a rule the pairing keeps is no reason
            assert score(cache, task, _with_answer(task, finish[:-1] + f" and {kept}.")) < 1.0, task.id
    assert several >= 1, "some refused pairing breaks more than one rule"
