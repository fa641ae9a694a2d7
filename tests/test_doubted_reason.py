"""A refusal's rule named beside a doubted blocking value is no reason (core/claims.py rule 3; redteam4). Naming the
refusing rule's id states the reason as its value would, so a hedge on the value cost nothing: "Not done: <rule>. It is
A or B." kept full reward on 95 of 95 sampled refusals, with A the right value or not, and so did "It is maybe A".
The rule is named of the refused record in each (a rule's id said of no record is no reason either: careful20g)."""

from __future__ import annotations

import pytest
from envcraft.core.grading import Snapshot, grade
from envcraft.core.tasks import Check, Task

STATES = ["submitted", "kyc_review", "catalog_review", "contract_sent", "live", "rejected"]
WORLD = {"seller_applications": [{"id": f"sap-{n:04d}", "seller": f"Seller {chr(64 + n)} Ltd",
                                  "status": STATES[n % len(STATES)]} for n in range(1, 25)]}
RULE = "to_catalog_review.status_in"
REFUSAL = Check(kind="answer", table="seller_applications", column="status", contains=["live"], about=["sap-0004"],
                note="names why sap-0004 cannot change: status live",
                reasons=[RULE, "Only submitted applications move to catalog review."])


def reward(answer: str) -> float:
    task = Task(id="t-1", envs=["x"], turns=["Move Seller D Ltd's application to catalog review."], checks=[REFUSAL],
                gold=[])
    return grade(task, Snapshot(tables=WORLD, files={}), Snapshot(tables=WORLD, files={}, answer=answer)).reward


@pytest.mark.parametrize("answer", [
    f"Not done for Seller D Ltd: {RULE}. It is live or rejected.",  # the right value among two
    f"Not done for Seller D Ltd: {RULE}. It is rejected or submitted.",  # two wrong values, both hedged
    f"Not done for Seller D Ltd: {RULE}. It is live or escalated.",  # beside a value no row holds
    f"Not done for Seller D Ltd ({RULE}): it is either escalated or live.",
    f"Not done for Seller D Ltd: {RULE}. It is maybe live.",
    f"Not done for Seller D Ltd, per {RULE}: it is probably live.",
    f"Not done for Seller D Ltd: {RULE}. It is live, or possibly escalated.",
    f"Not done ({RULE}): Seller D Ltd is not live.",  # the blocking value denied (careful20g's AL twins)
    f"Not done for sap-0004: {RULE}. It is no longer live.",
])
def test_a_rule_named_beside_a_doubted_value_is_no_reason(answer):
    assert reward(answer) == 0.0


@pytest.mark.parametrize("answer", [
    f"Not done for Seller D Ltd: {RULE}.",  # the rule alone is the reason
    f"Not done for Seller D Ltd: {RULE}. It is live.",
    f"Not done for Seller D Ltd: {RULE}. Please pick a submitted application for 3 Dec - or sooner.",  # no doubt
    f"Not done for Seller D Ltd: {RULE}. It is live; you could withdraw it or leave it.",  # an offer, no value in it
    f"Not done for Seller D Ltd: {RULE}. It is not submitted.",  # the state the rule wants, denied: the reason
])
def test_a_rule_named_beside_no_doubt_is_the_reason(answer):
    assert reward(answer) == 1.0
