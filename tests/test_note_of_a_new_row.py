"""A note naming the new row's id is paid only when the episode made that row (core/grading.py `_held`; redteam4).
Ids are handed out in order, so the next one is known without any work: with every call but the note's write left
out, 32 of 32 sampled note checks were paid."""

from __future__ import annotations

from envcraft.core.grading import Snapshot, grade
from envcraft.core.tasks import Check, Task

REQUESTS = [{"id": f"rrq-{n:04d}", "unit": f"#{n:03d}", "status": "open"} for n in range(1, 41)]
NOTE = Check(kind="file_contains", path="notes/new_request.txt", table="repair_requests", column="id",
             contains=["rrq-0041"])
TASK = Task(id="t-1", envs=["x"], turns=["Log a repair request for unit #041 and put its id in notes/new_request.txt."],
            checks=[NOTE], gold=[])


def reward(note: str, created: bool) -> float:
    rows = REQUESTS + ([{"id": "rrq-0041", "unit": "#041", "status": "open"}] if created else [])
    return grade(TASK, Snapshot(tables={"repair_requests": REQUESTS}, files={}),
                 Snapshot(tables={"repair_requests": rows}, files={"notes/new_request.txt": note})).reward


def test_a_note_of_an_id_no_row_holds_is_not_paid():
    assert reward("New request: rrq-0041.", created=False) == 0.0


def test_a_note_of_the_row_made_is_paid():
    assert reward("New request: rrq-0041.", created=True) == 1.0
    assert reward("New request: rrq-0042.", created=True) == 0.0  # and of another id, not


def test_an_answer_naming_the_new_rows_id_is_paid_only_once_the_row_is_made():
    check = Check(kind="answer", table="repair_requests", column="id", contains=["rrq-0041"])
    task = Task(id="t-1", envs=["x"], turns=["Log a repair request for unit #041; what is its id?"], checks=[check],
                gold=[])

    def paid(created: bool) -> float:
        rows = REQUESTS + ([{"id": "rrq-0041", "unit": "#041", "status": "open"}] if created else [])
        return grade(task, Snapshot(tables={"repair_requests": REQUESTS}, files={}),
                     Snapshot(tables={"repair_requests": rows}, files={}, answer="Logged as rrq-0041.")).reward

    assert paid(created=True) == 1.0
    assert paid(created=False) == 0.0
