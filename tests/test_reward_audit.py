"""The reward audit (issue 9): mutated gold solutions of 300 sampled tasks, graded by the harness's code.

Sloppy or gaming mutations (a dropped or wrong write, an extra or duplicate write anywhere, an answer
that dumps every value of the asked field) never keep full reward; good work done differently (steps
swapped, extra reads, a scratch file, the answer in another format, free text recased) always does.
A few tasks' mutants also run through the real MCP servers and must be graded the same there.
"""

from __future__ import annotations

import json

import anyio
import pytest
from envcraft.generator.tasks.mutations import NAMES, SHOULD_DROP, SHOULD_KEEP

from envcraft.cli import main

# Only the 2 environments whose blueprints declare a follow-up (a `side_effect` policy) can post one: about 1 task
# in 100 of a sample. The audit tops such a mutation up from the rest of the store until it applied 15 times.


@pytest.mark.slow
def test_audit_of_300_tasks_keeps_the_rules(capsys):
    main(["tasks", "audit", "--sample", "300", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["sample"] == 300 and list(report["mutations"]) == list(NAMES)
    # a task whose own gold fails on this catalog is stale (regenerate the store); its mutants are not tallied
    assert report["gold_below_one"] == [], report["gold_below_one"]
    for name, tally in report["mutations"].items():
        assert set(tally) == {"n", "kept_full", "partial", "zero"}
        assert tally["n"] >= 15, f"{name} applied to only {tally['n']} tasks: the audit would prove little"
        assert tally["kept_full"] + tally["partial"] + tally["zero"] == tally["n"]
    for name in SHOULD_DROP:
        assert report["mutations"][name]["kept_full"] == 0, (name, report["mutations"][name])
    for name in SHOULD_KEEP:
        assert report["mutations"][name]["kept_full"] == report["mutations"][name]["n"], (name, report["mutations"][name])


@pytest.mark.slow
def test_mutants_are_graded_the_same_through_the_real_servers():
    from envcraft.replays import cross_check

    rows = anyio.run(cross_check, 4, 1)
    assert len({name for _, name, _, _ in rows}) >= 6
    assert [r for r in rows if r[2] != r[3]] == []


def test_an_ambiguous_reference_to_the_new_row_is_rejected():
    import random

    from envcraft.core.tasks import Check, Task, ToolCall
    from envcraft.generator.tasks.env import EnvCache, generated_envs
    from envcraft.generator.tasks.validate import validate

    cache = EnvCache({k: v for k, v in generated_envs().items() if k == "vet_clinic"})
    checks = [Check(kind="record", table="invoices", match={"amount": 75.0}, count=1),
              Check(kind="collateral", role="guard", grow={"invoices": 2})]
    for text, reason in (("Create two invoices, then note the id of the new invoice.", "ambiguous_reference"),
                         ("Create a new invoice for each visit.", None)):
        task = Task(id="t", envs=["vet_clinic"], turns=[text], checks=checks, gold=[ToolCall(tool="finish")])
        verdict = validate(cache, task, random.Random(0))
        assert (verdict.reason == "ambiguous_reference") == (reason is not None), (text, verdict.reason)


def test_two_writes_to_one_field_are_not_swapped_as_independent():
    """ski_rental_shop-0109 (store of 2026-11-30): reserve a package (available 2 -> 1), then set its
    availability to 34. Swapped, the reservation lands after the reset and leaves 33: the calls do not
    commute, so swapping them is another outcome, not the same work reordered (it lost reward)."""
    import random

    from envcraft.core.tasks import Task, ToolCall
    from envcraft.generator.tasks.env import EnvCache, generated_envs
    from envcraft.generator.tasks.mutations import swap_independent

    cache = EnvCache({k: v for k, v in generated_envs().items() if k == "ski_rental_shop"})
    reserve = ToolCall(tool="rental_agreement_reserve", arguments={
        "renter_id": "rnt-0031", "rental_package_id": "pkg-0002", "quantity": 1, "start_date": "2026-12-13", "days": 5})
    gold = [ToolCall(tool="renter_search", arguments={"name": "Quentin Okafor"}),
            ToolCall(tool="rental_package_search", arguments={"name": "Adult Ski Performance"}), reserve,
            ToolCall(tool="rental_package_set_available", arguments={"rental_package_id": "pkg-0002", "available": 34}),
            ToolCall(tool="finish", arguments={"answer": "Done."})]
    task = Task(id="t", envs=["ski_rental_shop"], turns=["..."], checks=[], gold=gold)
    for seed in range(8):
        swapped = swap_independent(cache, task, random.Random(seed))
        assert swapped is not None  # the two searches commute
        assert swapped.index(reserve) == 2, [c.tool for c in swapped]
