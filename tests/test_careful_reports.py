"""A careful professional's report is paid in full, and the issue's real failures are fixed (issue 18).

Judgement tasks are answered on top of their gold calls the way a careful person reports: what was done (each
record changed, by its name and id, and its new state), then what was skipped and why (the refused record, its
blocking value, and the rule in the person's own words, which names other states of the same column). The
wording is drawn from a few phrasings per part, seeded; the grader is the project's own (replay.World + grade).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from envcraft.core.collateral import damage
from envcraft.core.grading import asked_record, grade
from envcraft.core.tasks import Task, iter_tasks, task_files
from envcraft.generator.model.humanize import humanize
from envcraft.generator.tasks.audit import reward
from envcraft.generator.tasks.env import EnvCache, generated_envs, label_field
from envcraft.generator.tasks.judgement import blocking
from envcraft.generator.tasks.mutations import _with_answer
from envcraft.generator.tasks.replay import World

OPENINGS = ("Here's where things stand.", "All done except one item.", "Finished what I could.", "")
DONE = ("{name} is now {state}.", "Moved {name} to {state}.", "{name}: set to {state}.")
CREATED = ("Created {kind} {name}.", "I added {kind} {name}.")
BLOCKED = ("I left {name} as it is: it is {fact}, and the rules only allow that change from {allowed}.",
           "Skipped {name} - its {field} is {fact}, so the change isn't allowed (it needs {allowed}).",
           "Not done: {name}. Its {field} is {fact}; I checked the policies and that move only works from {allowed}.")
REFUSED = ("I did not create the {kind} with {name}: its {field} is {fact}, which the rules don't allow.",
           "Skipped the {kind} for {name} - {name} has {field} {fact}, and our policy refuses that.")


def _name(cache: EnvCache, env: str, table: str, row: dict) -> str:
    entity = cache[env].entity_of_table(table)
    label = label_field(entity) if entity else None
    return f"{row[label]} ({row['id']})" if label and row.get(label) else row["id"]


def careful_answer(cache: EnvCache, task: Task, rng: random.Random) -> str:
    env = cache[task.envs[0]]
    world = World(cache, task)
    world.run(task.gold)
    done = []
    for table, rows in world.tables[env.name].items():
        entity = env.entity_of_table(table)
        before = {r["id"]: r for r in world.start[env.name].tables.get(table, [])}
        for row in rows:
            name = _name(cache, env.name, table, row)
            if row["id"] not in before and entity:
                done.append(rng.choice(CREATED).format(kind=entity.name.replace("_", " "), name=name))
            elif entity and entity.status_field and before[row["id"]].get(entity.status_field) != row.get(entity.status_field):
                done.append(rng.choice(DONE).format(name=name, state=humanize(row[entity.status_field])))
    check = next(c for c in task.checks if c.kind == "answer")
    row_id = asked_record(check)
    row = next(r for r in world.start[env.name].tables[check.table] if r["id"] == row_id)
    name, fact, field = _name(cache, env.name, check.table, row), check.contains[0], check.column.replace("_", " ")
    if "cannot change" in check.note:
        op = env.ops[next(t.split(":", 1)[1] for t in task.tags if t.startswith("blocked:"))]
        guard = blocking(env, op, row)
        allowed = " or ".join(humanize(v) for v in guard.values) if guard else "another state"
        skipped = rng.choice(BLOCKED).format(name=name, field=field, fact=fact, allowed=allowed)
    else:
        kind = env.ops[next(t.split(":", 1)[1] for t in task.tags if t.startswith("refused:"))].entity.replace("_", " ")
        skipped = rng.choice(REFUSED).format(kind=kind, name=name, field=field, fact=fact)
    return " ".join(p for p in [rng.choice(OPENINGS), *done, skipped] if p)


@pytest.fixture(scope="module")
def cache() -> EnvCache:
    return EnvCache(generated_envs())


def test_twenty_careful_reports_of_judgement_tasks_are_paid_in_full(cache):
    pool = sorted((t for path in task_files() for t in iter_tasks(path)
                   if "judgement" in t.tags and set(t.envs) <= set(cache.names)), key=lambda t: t.id)
    unpaid = []
    for task in random.Random(18).sample(pool, 20):
        answer = careful_answer(cache, task, random.Random(task.id))
        if reward(cache, task, _with_answer(task, answer)) < 1.0:
            unpaid.append((task.id, answer))
    assert unpaid == []


ISSUE_TASKS = Path(__file__).parent / "data" / "issue18_tasks.jsonl"  # the three tasks as the issue found them


def _task(task_id: str) -> Task:
    return next(t for t in iter_tasks(ISSUE_TASKS) if t.id == task_id)


@pytest.mark.parametrize(("task_id", "answer"), [
    ("field_crew_dispatch-0006", "4 crew jobs: cjb-0001 (en_route), cjb-0003 (on_site), cjb-0008 (en_route), "
                                 "cjb-0031 (cancelled)"),
    ("grant_program_admin-0061", "gap-0031 is now in panel_review. Skipped gap-0009: it is declined."),
    ("accounts_payable_desk-0009", "I've received your request and looked it up - SI-000022 is on hold, so I left it."),
])
def test_the_issues_careful_answers_are_paid(cache, task_id, answer):
    """Judged by the answer checks: the frozen tasks' gold may since meet a rule the catalog now enforces."""
    task = _task(task_id)
    assert _answer_checks(cache, task, task.gold) == [True]
    assert _answer_checks(cache, task, _with_answer(task, answer)) == [True]


def _answer_checks(cache: EnvCache, task: Task, calls) -> list[bool]:
    world = World(cache, task)
    world.run(calls)
    return [r.passed for r in grade(task, world.start, world.final()).checks if r.kind == "answer"]


def test_a_create_rightly_refused_costs_only_its_own_check(cache):
    """travel_agency_itineraries-0010 asks for a void and a business-class segment the travel policy forbids; the
    careful agent voided and refused the segment. A create left undone is no collateral damage: its own goal
    checks withhold their reward, the guard does not halve the rest (0.125 before, as the issue found it)."""
    task = _task("travel_agency_itineraries-0010")
    add = next(i for i, c in enumerate(task.gold) if "itinerary-segment-add" in str(c.arguments))
    void_only = [c for i, c in enumerate(task.gold) if i != add]
    assert reward(cache, task, void_only) == 0.25  # the void's check (1 of 4 goal weight), no guard failed


def test_a_duplicate_create_is_still_damage(cache):
    """The other side of 'at most the rows the task creates': a create done twice is damage. (The issue's own
    travel-0010 create is now refused by the travel policy, so a store task whose create goes through is used.)"""
    from envcraft.core.tasks import TASKS_DIR

    def creates(t: Task) -> int | None:
        return next((i for i, c in enumerate(t.gold) if "itinerary-segment-add" in str(c.arguments)
                     or c.tool == "itinerary_segment_add"), None)

    def doubled(t: Task) -> World | None:
        """The world after the gold with its create done twice, where the second create goes through too (a
        duplicate the tool itself refuses, an overlapping segment, leaves nothing to judge)."""
        add = creates(t)
        if add is None or len(t.envs) != 1 or reward(cache, t, t.gold) != 1.0:
            return None
        world = World(cache, t)
        results = world.run(t.gold[:add + 1] + t.gold[add:])
        return world if results[add][0] and results[add + 1][0] else None

    task, world = next((t, w) for t in iter_tasks(Path(TASKS_DIR) / "travel_agency_itineraries.jsonl.gz")
                       if (w := doubled(t)) is not None)
    collateral = next(c for c in task.checks if c.kind == "collateral")
    env = task.envs[0]
    assert damage(collateral, world.start[env], world.final()[env])  # the second segment is damage
