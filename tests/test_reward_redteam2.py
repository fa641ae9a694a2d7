"""Red-team probes of the answer rules (issue 9), graded by the harness's own code on real tasks.

Found holes: a short enum value (a state code) dumped in lower case paid 1.0, since other short values
were matched only as written; a total with cents hedged with a bare whole number ("62287.05 or 62287")
paid either way, since a whole number was never a guess beside a non-whole total. And a correct count
that lists each row's amount ("2: PO-00011 ($4,500) and PO-00025 ($7,000)") was refused.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

import pytest
from envcraft.core.grading import Snapshot, grade
from envcraft.core.tasks import Check, Task, iter_tasks, task_files
from envcraft.generator.tasks.audit import reward
from envcraft.generator.tasks.env import EnvCache, generated_envs
from envcraft.generator.tasks.mutations import _with_answer


def _task(task_id: str) -> Task:
    env = task_id.rsplit("-", 1)[0]
    path = next(p for p in task_files() if p.name.split(".")[0] == env)
    return next(t for t in iter_tasks(path) if t.id == task_id)


@pytest.fixture(scope="module")
def paid():
    envs = generated_envs()

    def pay(task_id: str | Task, answer: str) -> float:
        task = task_id if isinstance(task_id, Task) else _task(task_id)
        cache = EnvCache({k: v for k, v in envs.items() if k in task.envs})
        assert reward(cache, task, task.gold) == 1.0
        return reward(cache, task, _with_answer(task, answer))
    return pay


def _asking(env: str, pattern: str) -> tuple[str, str]:
    """The first task of `env` whose answer check expects one value written like `pattern`, and that value (found
    by what it asks, so the probe survives a regenerated store)."""
    path = next(p for p in task_files() if p.name.split(".")[0] == env)
    for task in iter_tasks(path):
        for check in task.checks:
            if check.kind == "answer" and check.table and len(check.contains) == 1 \
                    and re.fullmatch(pattern, check.contains[0]):
                return task.id, check.contains[0]
    raise AssertionError(f"no task of {env} asks for a value like {pattern}")


def _loss_state_question() -> tuple[Task, str]:
    """A question for one claim's loss state in adjuster_assignment: the store's own, or (when a regenerated store
    asks none) one of its questions about a claim re-aimed at that claim's state, graded against the same world."""
    try:
        task_id, state = _asking("adjuster_assignment", r"[A-Z]{2}")
        return _task(task_id), state
    except AssertionError:
        pass
    path = next(p for p in task_files() if p.name.split(".")[0] == "adjuster_assignment")
    for task in iter_tasks(path):
        check = next((c for c in task.checks if c.kind == "answer" and c.table), None)
        claim = next((a for a in (check.about if check else []) if a.startswith("pcl-")), None)
        if claim is None or len(task.envs) != 1:
            continue
        from envcraft.generator.tasks.replay import World
        cache = EnvCache({k: v for k, v in generated_envs().items() if k in task.envs})
        rows = World(cache, task).start[task.envs[0]].tables["pending_claims"]
        state = next(r["loss_state"] for r in rows if r["id"] == claim)
        asked = check.model_copy(update={"column": "loss_state", "table": "pending_claims", "contains": [state],
                                         "about": [claim]})
        question = task.model_copy(update={"checks": [asked if c is check else c for c in task.checks]})
        return question.model_copy(update={"gold": _with_answer(question, state)}), state
    raise AssertionError("no adjuster_assignment question about a claim")


def test_a_short_enum_value_dumped_in_lower_case_is_not_paid(paid):
    """adjuster_assignment asks for a claim's loss state (OH in the store it was found on): every state code in
    lower case paid 1.0."""
    task_id, state = _loss_state_question()
    others = [s for s in ("OH", "CA", "NY", "TX", "FL", "PA", "IL", "GA", "NC", "MI", "WA", "AZ", "MA") if s != state]
    assert paid(task_id, " ".join(s.lower() for s in [state, *others])) < 1.0
    assert paid(task_id, f"{state.lower()} or {others[0].lower()}") < 1.0
    for answer in (state, state.lower(), f"The loss state is {state}.", f"It is {state}, as recorded."):
        assert paid(task_id, answer) == 1.0, answer


def test_a_total_with_cents_hedged_with_a_whole_number_is_not_paid(paid):
    """accounts_payable_desk asks for a total with cents (62287.05 in the store it was found on): '62287.05 or
    62287' paid 1.0. The total is found by what the task asks, so the probe survives a regenerated store."""
    task_id, total = _asking_aggregate("accounts_payable_desk", r"\d+\.\d\d")
    whole = int(float(total))
    money = f"{float(total):,.2f}"
    for answer in (f"{total} or {whole}", f"${money} or ${whole:,}", f"{money}, {whole + 1:,} or {whole - 1:,}"):
        assert paid(task_id, answer) < 1.0, answer
    for answer in (f"${money}", f"${money} across the bills", f"the bills total ${money}", f"{money} USD"):
        assert paid(task_id, answer) == 1.0, answer


def _asking_aggregate(env: str, pattern: str) -> tuple[str, str]:
    """The first task of `env` whose answer is a total over several rows written like `pattern`."""
    path = next(p for p in task_files() if p.name.split(".")[0] == env)
    for task in iter_tasks(path):
        for check in task.checks:
            if check.kind == "answer" and check.note.startswith("aggregate") and len(check.contains) == 1 \
                    and re.fullmatch(pattern, check.contains[0]):
                return task.id, check.contains[0]
    raise AssertionError(f"no task of {env} asks for a total like {pattern}")


COUNT = "How many open tickets over $500 do we have right now? Just the number, please."


def _count_paid(expected: str, answer: str) -> float:
    task = Task(id="t-1", envs=["x"], turns=[COUNT], checks=[Check(kind="answer", contains=[expected])], gold=[])
    return grade(task, Snapshot(tables={}, files={}), Snapshot(tables={}, files={}, answer=answer)).reward


@pytest.mark.parametrize("answer", [
    "2: T-11 ($4,500) and T-25 ($7,000)", "2 tickets totalling $11,500", "2 tickets, $11,500 in all",
    "2 (worth 11,500 USD together)"])
def test_a_count_beside_the_amounts_of_its_rows_is_paid(answer):
    assert _count_paid("2", answer) == 1.0


@pytest.mark.parametrize("answer", ["2 or 3", "$2 or 3", "2, $3", "2 or 2.5", "2 or 3 tickets", "two, $3", "three or $2"])
def test_a_count_hedged_with_money_or_a_fraction_pays_at_most_one_value(answer):
    """An amount beside a count is context only when the count is written bare: the hedge pays for one value."""
    assert min(_count_paid("2", answer), _count_paid("3", answer)) < 1.0


def test_a_dump_of_dates_the_world_does_not_hold_is_not_paid(paid):
    """trademark_filing_pipeline asked for a response due date that no row held at the start, so a dump of every
    other day of the month named no other value of the column: it paid 1.0. A date now gets one guess, like a
    count or a time."""
    task_id, due = _asking("trademark_filing_pipeline", r"\d{4}-\d{2}-\d{2}")
    day = date.fromisoformat(due)
    month = [day.replace(day=d) for d in range(1, 29)] + [day]
    assert paid(task_id, " ".join(d.isoformat() for d in dict.fromkeys(month))) < 1.0
    assert paid(task_id, f"{day.isoformat()} or {(day + timedelta(days=1)).isoformat()}") < 1.0
    for answer in (day.isoformat(), f"{day:%b} {day.day}, {day.year}", f"It is due {day.day} {day:%B} {day.year}.",
                   f"{day:%m/%d/%Y}",
                   f"Due {day.isoformat()} (the old due date {(day - timedelta(days=7)).isoformat()} no longer applies)"):
        assert paid(task_id, answer) == 1.0, answer


def test_a_date_read_two_ways_is_one_guess():
    task = Task(id="t-1", envs=["x"], turns=["When is it due?"], checks=[Check(kind="answer", contains=["2026-11-12"])],
                gold=[])
    for answer, want in (("11/12/2026", 1.0), ("12/11/2026", 1.0), ("11/12/2026 or 11/13/2026", 0.0)):
        got = grade(task, Snapshot(tables={}, files={}), Snapshot(tables={}, files={}, answer=answer)).reward
        assert got == want, answer
