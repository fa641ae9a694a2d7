"""An answer that pastes the workspace's policies claims nothing they say (core/quotes.py; redteam4). The policies
describe states in general ("The case is already resolved."), and a sentence naming no record is read as about the
asked one: the "## Policies" section of SKILL.md pasted as the answer kept full reward on 7 of 129 sampled refusals.
A careful answer quoting a rule's phrase to explain itself is still paid."""

from __future__ import annotations

from envcraft.core.grading import Snapshot, grade
from envcraft.core.tasks import Check, Task

STATES = ["open", "in_progress", "awaiting_info", "escalated", "resolved", "closed"]
CASES = [{"id": f"cas-{n:04d}", "student": f"Student {n}", "status": STATES[n % len(STATES)]} for n in range(1, 25)]
SKILL = """# SKILL: student help desk

## Policies

### State rules
- student_case_request_info: Information can be requested only on open or in-progress cases. The case is already resolved.
- student_case_escalate: Assign the case before escalating it to the dean's office.

### Left to your judgement
- Be warm and concise. Verify identity before discussing records: ask for the student number and the date of birth.
"""
CHECK = Check(kind="answer", table="student_cases", column="status", contains=["resolved"], about=["cas-0004"],
              note="names why cas-0004 cannot change: status resolved",
              reasons=["student_case_request_info.status_in", "Information can be requested only on open cases."])


def reward(answer: str) -> float:
    task = Task(id="t-1", envs=["x"], turns=["Ask Student 4 for the missing transcript on their case."],
                checks=[CHECK], gold=[])
    world = {"student_cases": CASES}
    files = {"SKILL.md": SKILL}
    return grade(task, Snapshot(tables=world, files=files), Snapshot(tables=world, files=files, answer=answer)).reward


def test_the_policies_pasted_claim_nothing():
    assert reward("Not done.\n" + SKILL[SKILL.index("## Policies"):]) == 0.0


def test_a_careful_answer_quoting_a_rules_phrase_is_paid():
    assert reward("Not done: cas-0004 is resolved.") == 1.0
    assert reward("Not done for cas-0004: information can be requested only on open or in-progress cases. The case is "
                  "already resolved.") == 1.0  # the rule's own words, a quote that explains
