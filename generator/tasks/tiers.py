"""Difficulty tiers from the minimal solution and the reasoning it takes, not from the gold's length.

The minimal solution of a task is one call per write, one lookup per existing row the writes (or
the answer) need, and the answer itself; the gold may read more on the way (a walk's detours, a
file it reads for convenience), which makes nothing harder. Reasoning features add to it: finding
a value only a document holds, aggregating or comparing rows, deciding a condition, refusing
what a rule forbids, carrying a value between systems or across turns, and telling a decoy apart.
"""

from __future__ import annotations

from collections.abc import Iterable

from envcraft.generator.tasks.execute import Plan

FEATURE_POINTS = {"needs:aggregate": 2, "needs:conditional": 2, "needs:note": 2, "needs:history": 2, "judgement": 3,
                  "cross_env": 2, "dependent_turns": 2, "decoy": 1, "multi_turn": 1}


def minimal_calls(plan: Plan | None, extra_rows: Iterable[str] = (), answer: bool = False) -> int:
    """Writes, plus one lookup per distinct existing row they act on or point at, plus the answer."""
    writes, rows = 0, set(extra_rows)
    if plan is not None:
        created = set(plan.created)
        for step in plan.steps:
            if not step.writes:
                continue
            writes += 1
            if step.target and step.target not in created:
                rows.add(step.target)
            for value in step.fields.values():
                if isinstance(value, str) and value in plan_ids(plan) and value not in created:
                    rows.add(value)
    return writes + len(rows) + int(answer)


def plan_ids(plan: Plan) -> set[str]:
    if not hasattr(plan, "_ids"):
        plan._ids = {r["id"] for rows in plan.initial.values() for r in rows}  # type: ignore[attr-defined]
    return plan._ids  # type: ignore[attr-defined]


def tier(min_calls: int, tags: Iterable[str]) -> str:
    points = min_calls + sum(FEATURE_POINTS.get(t, 0) for t in set(tags))
    return "easy" if points <= 3 else "medium" if points <= 7 else "hard"
