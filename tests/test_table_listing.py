"""A copy of the asked record's table is no answer (core/listing.py; redteam4). Every row beside its own value
names the asked record too, so its clause was credited and the rest read as context about other records: the copy
kept full reward on 76 of 78 sampled questions and refusals, in every layout tried. A careful answer naming a few
other records, or every record it changed, is still paid."""

from __future__ import annotations

import json

import pytest
from envcraft.core.grading import Snapshot, grade
from envcraft.core.listing import MAX_BYSTANDERS
from envcraft.core.tasks import Check, Task

STATES = ["submitted", "kyc_review", "catalog_review", "contract_sent", "live", "rejected"]
APPLICATIONS = [{"id": f"sap-{n:04d}", "seller": f"Seller {chr(64 + n)} Ltd", "status": STATES[n % len(STATES)]}
                for n in range(1, 25)]  # few states over many rows: an enum, not names
WORLD = {"seller_applications": APPLICATIONS}
ASKED = "sap-0004"  # Seller D Ltd, live
QUESTION = Check(kind="answer", table="seller_applications", column="status", contains=["live"], about=[ASKED],
                 note=f"answer: status of {ASKED}")
REFUSAL = QUESTION.model_copy(update={"note": f"names why {ASKED} cannot change: status live",
                                      "reasons": ["to_catalog_review.status_in", "Only submitted applications move."]})


def reward(check: Check, answer: str, final_rows: list[dict] | None = None,
           turn: str = "What is the status of Seller D Ltd's application?") -> float:
    task = Task(id="t-1", envs=["x"], turns=[turn], checks=[check], gold=[])
    final = {"seller_applications": final_rows or APPLICATIONS}
    return grade(task, Snapshot(tables=WORLD, files={}), Snapshot(tables=final, files={}, answer=answer)).reward


def rows_as(layout: str, rows: list[dict]) -> str:
    if layout == "json":
        return json.dumps({r["id"]: r["status"] for r in rows}, separators=(",", ":"))
    if layout == "lines":
        return "\n".join(f"- {r['id']}: {r['status'].replace('_', ' ')}" for r in rows)
    if layout == "table":
        return "| id | status |\n|---|---|\n" + "\n".join(f"| {r['id']} | {r['status']} |" for r in rows)
    if layout == "sentences":
        return " ".join(f"{r['seller']} is {r['status']}." for r in rows)
    return "Context: " + "; ".join(f"{r['id']}: {r['status']}" for r in rows)


@pytest.mark.parametrize("check", [QUESTION, REFUSAL], ids=["question", "refusal"])
@pytest.mark.parametrize("layout", ["semicolons", "json", "lines", "table", "sentences"])
def test_a_copy_of_the_table_is_no_answer(check, layout):
    assert reward(check, rows_as(layout, APPLICATIONS)) == 0.0
    assert reward(check, f"{ASKED} is live. " + rows_as(layout, APPLICATIONS)) == 0.0  # the answer, then the copy


@pytest.mark.parametrize("check", [QUESTION, REFUSAL], ids=["question", "refusal"])
def test_a_few_other_records_beside_their_values_are_context(check):
    """Up to MAX_BYSTANDERS other records with their values: alternatives offered, a record skipped and why."""
    others = [r for r in APPLICATIONS if r["id"] != ASKED][:MAX_BYSTANDERS]
    answer = f"Not moved: {ASKED} is live. " + "; ".join(f"{r['id']} is {r['status']}" for r in others) + "."
    assert reward(check, answer) == 1.0
    assert reward(check, answer + " sap-0012 is submitted.") == 0.0  # one more is a listing


def test_records_the_episode_changed_or_the_request_names_are_no_bystanders():
    """A careful report names every record it changed and its new state; the request's own records are its words."""
    changed = [dict(r, status="rejected") if r["id"] != ASKED else r for r in APPLICATIONS]
    report = " ".join(f"Done: {r['id']} is now rejected." for r, was in zip(changed, APPLICATIONS) if r != was)
    assert reward(REFUSAL, f"{report} Skipped {ASKED}: it is live.", changed) == 1.0
    named = [r for r in APPLICATIONS if r["id"] != ASKED][:6]
    turn = "Move " + ", ".join(r["id"] for r in named) + f" and {ASKED} to catalog review."
    listed = " ".join(f"{r['id']} is {r['status']}." for r in named)
    assert reward(REFUSAL, f"{listed} {ASKED} is live, so it stays.", turn=turn) == 1.0
