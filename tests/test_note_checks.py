"""A note that must name the new row's id is graded like an answer: one guess, no dump (issue 9).

The hole: 247 tasks check a note file ("write a note with the id of the new X") by substring, so a note
listing every id of the table paid 1.0. The check now knows what it is about (the table's id column, or
the table that holds the named row, for stores built before) and fails a note that also names other ids
of that table or words of the id's shape (ids past the last one). A correct note with prose, dates and
other numbers keeps full reward.
"""

from __future__ import annotations

import random

import anyio
import pytest
from envcraft.core.grading import Snapshot, grade
from envcraft.core.tasks import Check, Task, iter_tasks, task_files
from envcraft.generator.tasks.audit import reward
from envcraft.generator.tasks.env import EnvCache, generated_envs
from envcraft.generator.tasks.mutations import answer_dump, note_check

ROWS = [{"id": f"spc-{i:04d}", "name": f"space {i}"} for i in range(1, 47)]
NEW = {"id": "spc-0047", "name": "new space"}


def _paid(note: str, check: Check) -> float:
    task = Task(id="t-1", envs=["x"], turns=["Create the space, then note its id in notes/log_spc.md."],
                checks=[check], gold=[])
    start = Snapshot(tables={"spaces": ROWS}, files={})
    return grade(task, start, Snapshot(tables={"spaces": ROWS + [NEW]}, files={"notes/log_spc.md": note})).reward


CHECKS = {"about the id column": Check(kind="file_contains", path="notes/log_spc.md", contains=["spc-0047"],
                                       table="spaces", column="id"),
          "stored before checks said (inferred)": Check(kind="file_contains", path="notes/log_spc.md",
                                                        contains=["spc-0047"])}


@pytest.mark.parametrize("which", CHECKS)
def test_a_correct_note_with_prose_dates_and_numbers_is_paid(which):
    for note in ("Done: spc-0047", "Created **spc-0047** on 2026-12-01 for 12 people, budget $4,500 (ref prj-0003).",
                 "- new space: `SPC-0047`\n- set up by Dana, 3 rooms, ready Nov 30, 2026 at 9:00\n",
                 "spc-0047."):
        assert _paid(note, CHECKS[which]) == 1.0, note


@pytest.mark.parametrize("which", CHECKS)
def test_a_note_naming_other_ids_of_the_table_is_not_paid(which):
    for note in (" ".join(f"spc-{i:04d}" for i in range(1, 400)),  # every id there is and many that are not
                 " ".join(f"spc-{i:04d}" for i in range(47, 60)),  # only ids past the last one: none in the world
                 "New: spc-0047 (copied from spc-0012)", "spc-0046 or spc-0047", "spc-0047, SPC-48",
                 "Done: spc-00470"):
        assert _paid(note, CHECKS[which]) < 1.0, note


@pytest.mark.parametrize("which", CHECKS)
@pytest.mark.parametrize(("note", "pays"), [
    ("Created spc-0047; it is not a copy of anything.", True),  # a negation after the claim takes nothing back
    ("I did not reuse an old space. Created spc-0047.", True),
    ("Not spc-0047.", False),  # negated
    ("The new space isn't spc-0047.", False),
    ("Is it spc-0047?", False),  # asked back
    ("Maybe spc-0047.", False),  # hedged
    ("spc-0047/spc-0048", False),  # alternatives, the second an id no row has yet
])
def test_a_note_is_read_for_what_it_claims(which, note, pays):
    """A note is graded by the claims reader as an answer is (core/claims.py): its id negated, asked or hedged
    names nothing."""
    assert (_paid(note, CHECKS[which]) == 1.0) is pays


def test_a_note_past_the_answer_cap_is_not_read():
    """The task asks for a short note; past MAX_ANSWER_CHARS a note is not graded, as an answer is not."""
    from envcraft.core.answers import MAX_ANSWER_CHARS

    note = "Created spc-0047. " + "All set for the move, rooms checked and keys handed over. " * 40
    assert len(note) > MAX_ANSWER_CHARS
    assert _paid(note[:MAX_ANSWER_CHARS], CHECKS["about the id column"]) == 1.0
    assert _paid(note, CHECKS["about the id column"]) == 0.0


@pytest.fixture(scope="module")
def note_tasks() -> tuple[EnvCache, list[Task]]:
    """The first 30 note tasks of the store, in file order, whose gold scores 1.0 on this catalog (a task gone
    stale under a newer environment says nothing about the grader, as in the audit)."""
    cache = EnvCache(generated_envs())
    tasks: list[Task] = []
    for path in task_files():
        tasks += [t for t in iter_tasks(path) if note_check(t) and set(t.envs) <= set(cache.names)
                  and reward(cache, t, t.gold) == 1.0]
        if len(tasks) >= 30:
            break
    return cache, tasks


@pytest.mark.slow
def test_the_audit_dumps_the_note_of_every_note_task_and_never_pays_it(note_tasks):
    """answer_dump reaches a task that reads a note instead of an answer: the note lists every id of the new
    row's table. Graded on the fast path, as `envcraft tasks audit` does; a harmless rewording keeps 1.0."""
    cache, tasks = note_tasks
    assert len(tasks) >= 25, len(tasks)
    for task in tasks:
        dumped = answer_dump(cache, task, random.Random(task.id))
        assert dumped is not None and dumped != task.gold, task.id
        assert reward(cache, task, dumped) < 1.0, f"{task.id}: a note naming every id was paid"
        check = note_check(task)
        kind = [c.model_copy(update={"arguments": {**c.arguments, "content": (
            f"# Handoff 2026-12-01\n\nCreated {check.contains[0]} as asked; 2 other items still open, "
            "follow up Friday at 10:30.\n")}}) if c.tool == "write_file" and c.arguments.get("path") == check.path else c
            for c in task.gold]
        assert reward(cache, task, kind) == 1.0, f"{task.id}: a correct note with prose lost reward"


def test_a_note_dump_through_the_real_servers(note_tasks):
    """The hole as first reproduced (cloud_cost_allocation-0047: a note listing spc-0001 .. spc-0399), through
    the farm and the real MCP server: the gold's note pays 1.0, a note of every id of that shape does not."""
    from envcraft.harness.farm_local import LocalFarm

    task = note_tasks[1][0]
    prefix = note_check(task).contains[0].split("-")[0]

    async def paid(content: str | None) -> float:
        async with LocalFarm() as farm:
            episode = await farm.create(task)
            for call in task.gold:
                args = dict(call.arguments)
                if call.tool == "write_file" and content is not None:
                    args["content"] = content
                await farm.call_tool(episode.id, call.tool, args)
            return (await farm.grade(episode.id)).reward

    assert anyio.run(paid, None) == 1.0
    assert anyio.run(paid, " ".join(f"{prefix}-{i:04d}" for i in range(1, 400))) < 1.0, task.id


def test_generated_note_checks_say_what_they_are_about():
    """The generator writes the table and column into a note check, so the grader need not infer them."""
    from envcraft.generator.tasks.build import Failed, build_write

    cache = EnvCache({k: v for k, v in generated_envs().items() if k == "cloud_cost_allocation"})
    ops = ("cloud_account_search", "spend_charge_post", "spend_charge_dispute")
    seen = 0
    for seed in range(40):
        try:
            task = build_write(cache, cache["cloud_cost_allocation"], ops, random.Random(f"note:{seed}"), "train").task
        except Failed:
            continue
        check = note_check(task)
        if check is None:
            continue
        seen += 1
        assert (check.table, check.column) == ("spend_charges", "id"), check
        assert reward(cache, task, task.gold) == 1.0
    assert seen >= 2, f"only {seen} note tasks drawn"


@pytest.mark.slow
def test_the_audit_reads_a_task_folder_and_its_answer_dump_covers_notes(note_tasks, tmp_path, capsys):
    """`envcraft tasks audit --dir`: the note tasks alone, written to a folder; answer_dump reaches every one
    (they read no answer) and never keeps full reward."""
    import json

    from envcraft.core.tasks import write_tasks

    from envcraft.cli import main

    tasks = note_tasks[1]
    for env in {t.envs[0] for t in tasks}:
        write_tasks(tmp_path / f"{env}.jsonl", [t for t in tasks if t.envs[0] == env])
    main(["tasks", "audit", "--dir", str(tmp_path), "--sample", str(len(tasks)), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["sample"] == len(tasks) and report["gold_below_one"] == []
    assert report["mutations"]["answer_dump"]["n"] == len(tasks), report["mutations"]["answer_dump"]
    assert report["mutations"]["answer_dump"]["kept_full"] == 0, report["mutations"]["answer_dump"]
