"""Answers are graded on what they claim about the asked record (issue 18, core/claims.py).

A small world: crew jobs with a status, people with an age. Each rule of core/claims.py has a test that pays
the careful answer and refuses the gaming one; each was seen failing with its rule switched off.
"""

from __future__ import annotations

import pytest
from envcraft.core.grading import Snapshot, grade
from envcraft.core.tasks import Check, Task

JOBS = [{"id": f"cjb-000{n}", "title": title, "status": status} for n, (title, status) in enumerate([
    ("Pole swap Elm Street", "en_route"), ("Line patrol North", "on_site"), ("Storm cleanup Oak Road", "cancelled"),
    ("Meter check Pine Lane", "received"), ("Tree trim Birch Way", "approved")], 1)]
PEOPLE = [{"id": f"ppl-000{n}", "name": name, "age": age} for n, (name, age) in enumerate([
    ("Ana Lima", 40), ("Bob Stone", 41), ("Cara Diaz", 38)], 1)]
WORLD = {"crew_jobs": JOBS, "people": PEOPLE}


def paid(check: Check, answer: str, turn: str = "What's the status of the Elm Street pole swap?") -> float:
    task = Task(id="t-1", envs=["x"], turns=[turn], checks=[check], gold=[])
    return grade(task, Snapshot(tables=WORLD, files={}), Snapshot(tables=WORLD, files={}, answer=answer)).reward


STATUS = Check(kind="answer", table="crew_jobs", column="status", contains=["en route"], about=["cjb-0001"])
AGE = Check(kind="answer", table="people", column="age", contains=["40"], about=["ppl-0001"])
REFUSAL = Check(kind="answer", table="crew_jobs", column="status", contains=["cancelled"],
                note="names why cjb-0003 cannot change: status cancelled",
                reasons=["dispatch_rule_1", "Only received or approved jobs can be dispatched."])


@pytest.mark.parametrize("answer", ["It isn't en route.", "It was never en_route.", "En route is wrong, I checked.",
                                    "It is no longer en route.", "Not en route."])
def test_a_negated_value_is_no_claim(answer):
    assert paid(STATUS, "It is en route.") == 1.0
    assert paid(STATUS, answer) == 0.0


def test_a_value_asked_back_is_no_claim():
    assert paid(STATUS, "Is it en route?") == 0.0
    assert paid(STATUS, "Did you mean the Elm Street job? It is en route.") == 1.0


@pytest.mark.parametrize("answer", ["Either en route or delayed.", "en route or delayed", "Maybe en route.",
                                    "It's en route, or delayed.", "It's en route. Or delayed."])
def test_a_hedged_value_is_no_claim(answer):
    """The second value ("delayed") is plausible and no row holds it: no dump, only the hedge can refuse it."""
    assert paid(STATUS, answer) == 0.0


@pytest.mark.parametrize("answer", ["en_route/delayed", "en route / delayed", "40/39"])
def test_a_slash_between_values_is_a_hedge(answer):
    check = AGE if answer[0].isdigit() else STATUS
    assert paid(check, answer) == 0.0


def test_a_value_said_about_another_record_is_context():
    assert paid(AGE, "The age of Bob Stone is 40.") == 0.0
    assert paid(AGE, "Ana Lima is 40.") == 1.0
    assert paid(AGE, "Ana Lima is 40 (Bob Stone is 41).") == 1.0  # another record's value: context, no dump


@pytest.mark.parametrize(("answer", "pays"), [
    ("Done: cjb-0002 is now on_site (on site). cjb-0001 is en route.", True),  # another record's new status
    ("cjb-0001 (en_route), cjb-0002 (on_site), cjb-0003 (cancelled)", True),  # each listed id with its status
    ("cjb-0001 is en route, on site, cancelled.", False),  # two candidates for the asked record
    ("It is en route. On site. Cancelled.", False),  # values with no record to own them
])
def test_context_is_no_dump_and_a_dump_is_still_one(answer, pays):
    assert (paid(STATUS, answer) == 1.0) is pays


@pytest.mark.parametrize("answer", ["en_route", "en route", "En Route", "EN ROUTE", "en-route"])
def test_an_enum_value_matches_in_every_form(answer):
    assert paid(STATUS, f"cjb-0001 ({answer})") == 1.0


def test_the_writers_own_verb_is_no_value():
    """"received" is a status of the column; said as the writer's verb it is prose."""
    assert paid(STATUS, "I've received your request and looked it up - it's en route.") == 1.0


@pytest.mark.parametrize(("answer", "pays"), [("Received what you sent. It's en route.", True),
                                              ("Received everything else; cjb-0001 is en route.", True),
                                              ("Received. It's en route.", False)])  # a bare "Received." is a guess
def test_a_verb_with_its_subject_dropped_is_the_writers(answer, pays):
    assert (paid(STATUS, answer) == 1.0) is pays


@pytest.mark.parametrize(("answer", "pays"), [
    ("All received except one item. cjb-0003 is cancelled.", True),  # month_end_close-0099: "All done except ..."
    ("Received: your note. Skipped cjb-0003: it is cancelled.", True),
    ("cjb-0003: all received.", False),  # a status said about the refused job, not a tally of the work
])
def test_a_value_heading_the_writers_tally_is_no_claim(answer, pays):
    assert (paid(REFUSAL, answer, "Dispatch the Oak Road storm cleanup.") == 1.0) is pays


@pytest.mark.parametrize(("answer", "pays"), [
    ("Skipped cjb-0003: it is cancelled.", True),
    ("Skipped cjb-0003: rule dispatch_rule_1 does not allow it.", True),  # the rule's id is the reason too
    ("Done: cjb-0004 is now approved. Skipped Storm cleanup Oak Road: it is cancelled, and only received or "
     "approved jobs can be dispatched.", True),  # the changed record's status and the rule are context
    ("Skipped cjb-0003: it is cancelled. That is rule dispatch_rule_1: Only received or approved jobs can be "
     "dispatched.", True),
    ("Skipped cjb-0003: it is cancelled; we can only dispatch jobs that are received.", True),  # a rule, paraphrased
    ("Skipped cjb-0003: rules dispatch_rule_1, dispatch_rule_2 and crew_rule_1 do not allow it.", False),
    ("Skipped cjb-0003: it is cancelled or received.", False),
    ("Skipped cjb-0003: it is cancelled, received, approved.", False),
    ("Skipped cjb-0002: it is cancelled.", False),  # the reason said about another record
])
def test_a_refusal_is_paid_for_its_reason_about_the_refused_record(answer, pays):
    assert (paid(REFUSAL, answer, "Dispatch the Oak Road storm cleanup.") == 1.0) is pays


def test_an_old_store_reads_the_asked_record_from_the_note():
    """A check built before `about` existed names its record in the note; the request's names stand for it."""
    old = Check(kind="answer", table="people", column="age", contains=["40"], note="answer: age of ppl-0001")
    assert paid(old, "The age of Bob Stone is 40.") == 0.0
    assert paid(old, "Ana Lima is 40.") == 1.0


def test_the_questions_own_values_restated_are_no_dump():
    """"received" is another status of the column, but the question said it first."""
    turn = "The Elm Street pole swap was received yesterday - what's its status now?"
    assert paid(STATUS, "It was received yesterday; now it's en route.", turn) == 1.0
    assert paid(STATUS, "It was approved yesterday; now it's en route.", turn) == 0.0  # not the question's value


def test_the_worlds_own_identifiers_are_not_other_rules():
    """"four_on_four_off" is a value the world writes, not a second rule id: the refusal's rule id still pays."""
    world = {**WORLD, "crews": [{"id": "crw-0001", "pattern": "four_on_four_off"}]}
    task = Task(id="t-1", envs=["x"], turns=["Dispatch the Oak Road storm cleanup."], checks=[REFUSAL], gold=[])
    answer = "Skipped cjb-0003 under rule dispatch_rule_1; crew crw-0001 works four_on_four_off."
    assert grade(task, Snapshot(tables=world, files={}), Snapshot(tables=world, files={}, answer=answer)).reward == 1.0


def test_a_quoted_rule_ends_where_a_clause_names_a_record():
    """The claim after a quoted rule is read: "rule x: <text>, and cjb-0003 is cancelled"."""
    answer = ("Not done: cjb-0003 - rule dispatch_rule_1: only received or approved jobs are dispatched, and "
              "cjb-0003 is cancelled. Rule dispatch_rule_2 did not apply.")
    assert paid(REFUSAL, answer) == 1.0


def test_a_careful_full_report_past_600_characters_is_read():
    done = " ".join(f"Checked {job['title']} ({job['id']}); it is unchanged." for job in JOBS if job["id"] != "cjb-0003")
    answer = f"{done} Skipped Storm cleanup Oak Road (cjb-0003): it is cancelled, so it cannot be dispatched. " * 2
    assert 600 < len(answer) <= 2000 and paid(REFUSAL, answer) == 1.0


@pytest.mark.parametrize(("answer", "pays"), [
    ("I compared Ana Lima with Bob Stone. Bob is 41 while Ana is 40.", True),  # each first name owns its clause
    ("Ana Lima and Bob Stone are both on file; Lima is 40, Stone is 41.", True),  # last names too
    ("The age of Bob is 40.", False),  # the right value said about another person, by first name
    ("The age of Cara is 40.", False),  # a first name no one else has, before any full name
])
def test_a_first_or_last_name_alone_names_its_record(answer, pays):
    assert (paid(AGE, answer) == 1.0) is pays


BUDGETS = [{"id": f"bud-000{n}", "code": f"CC-00{n}", "department": dept}
           for n, dept in enumerate(["Finance", "Legal", "Procurement", "Facilities"], 1)]
DEPARTMENT = Check(kind="answer", table="office_budgets", column="department", contains=["Legal"], about=["bud-0002"],
                   note="names why the requisition is refused: bud-0002 department Legal (rule supply_1)",
                   reasons=["supply_1", "Kitchen supplies are charged to Facilities, never to the requesting team."])


@pytest.mark.parametrize(("answer", "pays"), [
    ("Submitted the requisition on the Procurement budget. Skipped the one on CC-002: that is the Legal budget, and "
     "kitchen supplies go to the Facilities budget.", True),  # other budgets named by their department
    ("Skipped CC-002: it is Legal's budget, not Finance's.", True),
    ("Skipped CC-002: it is Legal, Finance or Procurement.", False),
    ("Skipped CC-002: Legal. Finance. Procurement.", False),  # values with no kind named: still a dump
])
def test_a_value_written_as_another_records_name_names_it(answer, pays):
    """A refusal about a budget's department: "the Procurement budget" is another budget, not a second guess."""
    world = {"office_budgets": BUDGETS}
    task = Task(id="t-1", envs=["x"], turns=["Order dish soap on CC-002."], checks=[DEPARTMENT], gold=[])
    reward = grade(task, Snapshot(tables=world, files={}), Snapshot(tables=world, files={}, answer=answer)).reward
    assert (reward == 1.0) is pays


@pytest.mark.parametrize(("answer", "pays"), [
    # month_end_close-0070, as a careful agent wrote it through MCP: the second sentence is about the new entry
    ("Drafted crew job cjb-0009. To undo it I took it through the only route: received, approved, then cancelled. "
     "Not done: cjb-0003. It is cancelled.", True),
    ("Drafted crew job cjb-0009. To undo it I cancelled it. Skipped cjb-0003: it is approved.", False),
    ("Skipped cjb-0003. As for the one you asked about, it is received, approved, cancelled.", False),  # a dump
])
def test_a_pronoun_in_a_sentences_first_clause_refers_to_the_record_before(answer, pays):
    assert (paid(REFUSAL, answer) == 1.0) is pays


def test_a_first_name_stands_for_the_person_named_in_full_before_it():
    """Two people share a first name: "Ana" is the Ana named last before it, whichever was named first."""
    world = {**WORLD, "people": PEOPLE + [{"id": "ppl-0004", "name": "Ana Ortiz", "age": 52}]}
    task = Task(id="t-1", envs=["x"], turns=["How old is Ana Lima?"], checks=[AGE], gold=[])

    def reward(answer: str) -> float:
        return grade(task, Snapshot(tables=world, files={}), Snapshot(tables=world, files={}, answer=answer)).reward

    assert reward("Ana Ortiz (ppl-0004) is 52. Ana Lima is on file too: Ana is 40.") == 1.0
    assert reward("Ana Lima (ppl-0001) is on file. Ana Ortiz is too: Ana is 40.") == 0.0  # said of Ana Ortiz
    assert reward("Ana is 40; ppl-0004 is 52.") == 1.0  # a record named after it is no antecedent: the asked Ana


def test_only_a_two_word_name_gives_a_first_name():
    """grant_program_admin-0093: "Senior Wellbeing Fund" is a programme, and "Senior tech tutoring has status
    awarded" is about the asked application, not about the fund."""
    world = {**WORLD, "funds": [{"id": "fnd-0001", "name": "Senior Wellbeing Fund"},
                                {"id": "fnd-0002", "name": "Youth Arts Fund"}, {"id": "fnd-0003", "name": "Green Streets"}]}
    task = Task(id="t-1", envs=["x"], turns=["How old is Ana Lima?"], checks=[AGE], gold=[])
    answer = "Senior staff checked: Ana Lima is on file. Senior records say she is 40."
    assert grade(task, Snapshot(tables=world, files={}), Snapshot(tables=world, files={}, answer=answer)).reward == 1.0
    answer = "Green Streets has it on file. Green is 40."  # a two-word name's first word: that record
    assert grade(task, Snapshot(tables=world, files={}), Snapshot(tables=world, files={}, answer=answer)).reward == 0.0
    answer = "Ana Lima is on file. Green Room staff say she is 40."  # a capitalized word after it: another name
    assert grade(task, Snapshot(tables=world, files={}), Snapshot(tables=world, files={}, answer=answer)).reward == 1.0


def test_a_label_before_a_bracketed_id_is_that_records():
    """lms_assignment_grading-0102: "Essay Draft (asg-0022) is now published", where draft is a status: the words
    before the id are the record's label, not a claim about the asked one."""
    assert paid(STATUS, "Approved tree trim (cjb-0005) is now received. cjb-0001 is en route.") == 1.0
    assert paid(STATUS, "Approved (cjb-0001) and en route.") == 0.0  # the asked record's own: still two guesses


def test_a_value_inside_a_longer_name_is_the_names():
    world = {**WORLD, "crew_jobs": JOBS + [{"id": "cjb-0006", "title": "Approved vendor audit", "status": "on_site"}]}
    task = Task(id="t-1", envs=["x"], turns=["What's the status of the Elm Street pole swap?"], checks=[STATUS],
                gold=[])
    answer = "Approved vendor audit is on site. cjb-0001 is en route."
    assert grade(task, Snapshot(tables=world, files={}), Snapshot(tables=world, files={}, answer=answer)).reward == 1.0
