"""One guess per answer (core/guesses.py): times, numbers in words, and the count a total is taken over.

Each case is graded by the harness's own grading code. A dump (several values of the asked kind) never
pays; the right value written as a person would write it, with its context, does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from envcraft.core.grading import Snapshot, grade
from envcraft.core.tasks import Check, Task, load_tasks

REPO = Path(__file__).resolve().parent.parent
COUNT = "How many open tickets over $500 do we have right now (as of 2026-11-30)? Just the number, please."
TOTAL = "What do the received purchase orders come to, all together?"


def _paid(question: str, expected: list[str], answer: str) -> float:
    task = Task(id="t-1", envs=["x"], turns=[question], checks=[Check(kind="answer", contains=expected)], gold=[])
    return grade(task, Snapshot(tables={}, files={}), Snapshot(tables={}, files={}, answer=answer)).reward


def test_office_014_a_dump_of_every_time_is_not_paid_the_right_time_with_its_context_is():
    """office-014 asks for the first event after 12:00 that goes ahead (16:00; the 12:30 lunch is cancelled).
    Every half hour of the day named 16:00 and paid 1.0: a time now gets one guess, like a count."""
    task = next(t for t in load_tasks(REPO / "tasks" / "office.jsonl") if t.id == "office-014")
    state = json.loads((REPO / "servers" / "office" / "seed" / ".app" / "state.json").read_text())
    start = Snapshot(tables=state, files={})

    def paid(answer: str) -> float:
        return grade(task, start, Snapshot(tables=state, files={}, answer=answer)).reward

    gold = next(c.arguments["answer"] for c in task.gold if c.tool == "finish")
    assert paid(gold) == 1.0  # "... at 16:00 (the 12:30 PrintWorks vendor lunch is cancelled)"
    assert paid("The dentist (out of office), 4 pm.") == 1.0
    assert paid("Dentist at 16:00; the 12:30 lunch was called off.") == 1.0
    every = " ".join(f"{h:02d}:{m:02d}" for h in range(24) for m in (0, 30))
    assert paid(f"dentist {every}") < 1.0
    assert paid("dentist at 12:30 or 16:00") < 1.0
    assert paid("dentist, 2 pm, 3 pm or 4 pm") < 1.0


@pytest.mark.parametrize("answer", [
    "three", "Three.", "There are three open tickets.", "three of the twelve open tickets",
    "There are three; one of them is T-104.", "Three (I missed one).", "3, and two of them are urgent",
])
def test_a_count_in_words_is_credited(answer):
    assert _paid(COUNT, ["3"], answer) == 1.0


@pytest.mark.parametrize("answer", [
    "zero one two three four five six seven eight nine ten", "three or four", "two, three, four",
    "3 or four", "three, 4", "twenty-one twenty-two twenty-three three",
])
def test_a_dump_in_words_is_not_paid(answer):
    """Stated in words, the value is one guess among every number the answer states, in words or digits, so
    only one value can ever pay ("3, or four" pays for 3 alone, never for 4)."""
    assert _paid(COUNT, ["4"] if answer.startswith("3 or") else ["3"], answer) < 1.0


def test_words_read_as_the_numbers_they_are():
    from envcraft.core.answers import numbers

    cases = {"twenty-one": {21}, "one hundred and five": {105}, "five thousand": {5000}, "seven, eight": {7, 8},
             "no one came": set(), "the one with the dent": set(), "a one-off fee": set(), "one ticket": {1},
             "zero one two": {0, 1, 2}}
    for text, want in cases.items():
        assert numbers(text) == want, text


@pytest.mark.parametrize("answer", [
    "$5,000 across 3 orders", "They come to $5,000 across 3 orders.", "5,000 USD over the 3 orders",
    "$5,000.00 from 3 received orders", "five thousand dollars across three orders", "5000",
])
def test_a_total_may_name_the_count_of_the_rows_it_sums(answer):
    assert _paid(TOTAL, ["5000"], answer) == 1.0


@pytest.mark.parametrize("answer", [
    "$4,999, $5,000 or $5,001", "$5,000 or $5,001 across 3 orders", "across 5000 orders",
    "$5,000 across 4999 orders, $5,001", "4999 across 5000 orders",
])
def test_the_count_of_rows_is_context_never_a_guess(answer):
    """The count a total is taken over is never credited, so it cannot carry a dump: 'across 5000 orders'
    does not pay a total of 5000, and a second total beside it still fails."""
    assert _paid(TOTAL, ["5000"], answer) < 1.0


ORDERS = "How many received purchase orders are there, and which?"


@pytest.mark.parametrize("answer", [
    "3 orders for 2 suppliers", "3 orders, all due in 30 days", "3, up from 2 last week", "3 (was 2 last week)",
    "There are 3 POs.", "3 received orders; the 2 oldest came from Acme",
])
def test_a_count_may_count_other_things_beside_it(answer):
    """A careful answer says more than the number: a number of something the task never names is context."""
    assert _paid(ORDERS, ["3"], answer) == 1.0


@pytest.mark.parametrize("answer", [
    "1 zz 2 zz 3 zz 4 zz", "3 orders or 4 orders", "3 orders, 4 received", "3 or 4", "2 orders for 3 suppliers",
    "1 supplier 2 suppliers 3 suppliers",
])
def test_context_never_carries_a_second_guess(answer):
    """Only one value can pay: numbers of things the task never names are never credited, so a dump spread
    over made-up nouns states no guess at all and is read whole (one guess each)."""
    assert _paid(ORDERS, ["3"], answer) < 1.0


@pytest.mark.parametrize("answer", [
    "3 orders; 1 is overdue", "3 received orders, 1 of them overdue", "3, of which 2 are overdue",
    "There are 3 received orders; 2 were placed with Acme.", "3 orders (3 are overdue)",
])
def test_a_count_may_say_how_many_of_them_are_something(answer):
    """A number said of a part of what the count counts ("1 is overdue") is context, not a second guess."""
    assert _paid(ORDERS, ["3"], answer) == 1.0


@pytest.mark.parametrize(("expected", "answer"), [
    ("3", "3 orders; 4 are overdue"), ("3", "3 or 4 orders; 1 is overdue"), ("1", "3 orders; 1 is overdue"),
    ("3", "1 is overdue; 2 are overdue; 3 are overdue"), ("3", "2 orders; 1 is late; 3 are late"),
    ("2", "9 orders; 1 is late; 2 are late; 3 are late"),
])
def test_a_part_is_never_a_second_guess(expected, answer):
    """A part is context only beside a whole at least as large, and never credited: a dump of parts with no
    whole is read whole (one guess each), and a part larger than every whole is another guess."""
    assert _paid(ORDERS, [expected], answer) < 1.0


COMMITTED = "What do the loan commitments for the investor Arjun Keller come to in amount, all together?"


@pytest.mark.parametrize("answer", [
    "Arjun Keller's commitments come to 1,070.10 in total. Of that, 982.37 is settled and 87.73 still committed.",
    "$388,866.94 across 2 signed files: GSE-26-0007 holds $377,366.12 and GSE-26-0013 holds $11,500.82.",
    "1,070.10 (982.37 + 87.73)", "5 tickets: 3 open and 2 closed",
])
def test_a_total_may_show_its_parts(answer):
    """p2p_lending_marketplace-0008, escrow_closing_desk-0109 through MCP: the right total followed by the parts
    it adds up from paid 0; the parts are its working, not other guesses."""
    total = {"1,070.10": "1070.1", "$388,866.94": "388866.94", "5 tickets": "5"}
    expected = next(v for k, v in total.items() if k in answer)
    assert _paid(COMMITTED, [expected], answer) == 1.0


@pytest.mark.parametrize(("expected", "answer"), [
    ("1070.1", "1070.10 or 982.37"), ("982.37", "1,070.10 in total: 982.37 settled and 87.73 committed"),
    ("87.73", "1070.10, 982.37, 87.73"), ("1070.1", "1070.10, 982.37"), ("10", "10, 15, 5"), ("5", "10, 15, 5"),
    ("1070.1", "982.37 and 87.73"), ("3", "1, 2, 3"), ("3", "2 orders; 1 is late; 3 are late"),
])
def test_parts_never_carry_a_second_guess(expected, answer):
    """Only the largest number of a list can be the sum of all the rest: a list of guesses still gets one, a
    part is never credited as the total, and parts alone state no total."""
    assert _paid(COMMITTED, [expected], answer) < 1.0


SITTING = "When is the next sitting of the planning board?"


@pytest.mark.parametrize("answer", [
    "The next sitting is 2026-12-09; I checked on 2026-11-30.", "2026-12-09 (as of 2026-11-30)",
    "Wednesday 9 December 2026. The agenda was issued on 2026-11-25.", "2026-12-09",
    "It was moved: the notice sent 2026-11-20 says Dec 9, 2026.",
])
def test_a_date_may_come_with_dates_marked_as_context(answer):
    assert _paid(SITTING, ["2026-12-09"], answer) == 1.0


@pytest.mark.parametrize(("question", "answer"), [
    (SITTING, "Booked on 2026-12-09."), (SITTING, "Since 2026-12-09 it meets monthly."),
    ("When was the planning notice issued?", "It was issued on 2026-12-09; I checked on 2026-11-30."),
])
def test_a_date_marked_like_context_is_the_answer_when_it_is_all_there_is(question, answer):
    """A marking word the task asks about marks nothing, and a lone date marked like context is still a guess."""
    assert _paid(question, ["2026-12-09"], answer) == 1.0


def test_a_date_the_task_names_is_context():
    assert _paid("As of 2026-11-30, when is the next sitting of the planning board?", ["2026-12-09"],
                 "On 2026-11-30 the next sitting is 2026-12-09.") == 1.0


@pytest.mark.parametrize(("question", "answer"), [
    (SITTING, "2026-12-08 or 2026-12-09"), (SITTING, "2026-12-09, checked on 2026-11-30, or 2026-12-10"),
    (SITTING, " ".join(f"checked on 2026-12-{d:02d}" for d in range(1, 29))),
    (SITTING, "as of 2026-12-08, as of 2026-12-09"), (SITTING, "2026-12-08 (checked on 2026-12-09)"),
    ("When was the planning notice issued?", "2026-12-08; issued 2026-12-09"),
])
def test_context_dates_never_carry_a_second_guess(question, answer):
    """Only one date can pay: a date marked as context is never credited, a dump marked whole is read whole,
    and a marking word the task asks about ("issued" for "when was it issued?") marks nothing."""
    assert _paid(question, ["2026-12-09"], answer) < 1.0


def _paid_id(answer: str) -> float:
    rows = [{"id": f"PO-000{n}", "status": "received" if n != 17 else "cancelled"} for n in range(10, 30)]
    task = Task(id="t-1", envs=["x"], turns=["Which purchase order is the oldest one still received?"],
                checks=[Check(kind="answer", table="purchase_orders", column="id", contains=["PO-00016"])], gold=[])
    start = Snapshot(tables={"purchase_orders": rows}, files={})
    return grade(task, start, Snapshot(tables={"purchase_orders": rows}, files={}, answer=answer)).reward


@pytest.mark.parametrize("answer", [
    "PO-00016", "PO-00016 (not PO-00017, which was cancelled)", "PO-00016 and PO-00017 (cancelled)",
    "PO-00016; I skipped the old PO-00012",
    "PO-00016 (cancelled)",  # a status noted beside the answer annotates it (issue 18: "cjb-0031 (cancelled)")
])
def test_an_id_named_as_not_the_answer_is_context(answer):
    assert _paid_id(answer) == 1.0


@pytest.mark.parametrize("answer", [
    "PO-00016 or PO-00017", "not PO-00015, PO-00016, PO-00017", "PO-00016 (cancelled) PO-00018",
    "not PO-00016",
])
def test_disowning_never_carries_a_second_guess(answer):
    """Only mentions named as not the answer are context: every other id of the column is still a guess, and
    the expected id named as not the answer is not credited."""
    assert _paid_id(answer) < 1.0
