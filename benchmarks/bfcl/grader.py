"""BFCL's own multi-turn checker on an episode's call history: no re-implementation of its rules.

The history is what BFCL's eval runner hands `multi_turn_checker`: per turn the model reached, its steps
(one per MCP tool call, each a list of one call string; empty steps dropped, as the runner drops them).
The checker replays those calls and the possible answer on fresh instances of its own and compares state
and per-turn results. Around it we keep only the runner's one check before it (fewer turns than the
task has: `multi_turn:force_terminated`, in the runner's words) and add one after: when BFCL says valid,
its replayed instances must equal the ones the episode served, or what we recorded is not what happened.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from envcraft.benchmarks.bfcl.data import Entry
from envcraft.core.grading import CheckResult, Grade
from envcraft.core.verdicts import Verdict

BENCHMARK = "bfcl-multi-turn"
CHECKER = "bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker.multi_turn_checker"


def _table() -> dict[str, Any]:
    """The executor's instance table: its module globals, where BFCL keeps every instance it builds."""
    from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils

    return multi_turn_utils.__dict__


def _instance_name(key: str, item: Entry, cls: str) -> str:
    return re.sub(r"[-./:]", "_", f"{key}_{item.id}_{cls}_instance")  # the executor's own naming


def live_instances(key: str, item: Entry) -> dict[str, Any]:
    table = _table()
    return {cls: table[_instance_name(key, item, cls)] for cls in item.involved_classes}


def drop(key: str) -> None:
    """Forget the instances the executor built under `key` (ours alone: keys are random)."""
    table, prefix = _table(), re.sub(r"[-./:]", "_", key) + "_"
    for name in [n for n in table if n.startswith(prefix)]:
        table.pop(name, None)


def _excerpt(result: dict[str, Any], limit: int = 4000) -> dict[str, Any]:
    details = {k: result[k] for k in ("details", "differences", "missing_items") if k in result}
    text = json.dumps(details, default=str)
    return json.loads(text) if len(text) <= limit else {"excerpt": text[:limit]}


def check(item: Entry, history: list[list[list[str]]]) -> dict[str, Any]:
    """BFCL's verdict on the history, as its eval runner reaches it for one entry."""
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

    decoded = [[step for step in turn if step] for turn in history]
    if len(decoded) != len(item.ground_truth):
        return {"valid": False, "error_type": "multi_turn:force_terminated",
                "error_message": "Model was force-terminated during inference phase. The length of the model result "
                                 f"turns ({len(decoded)}) does not match the length of the ground truth turns "
                                 f"({len(item.ground_truth)})."}
    name = f"envcraft_grade_{uuid.uuid4().hex}"
    try:
        result = multi_turn_checker(decoded, item.ground_truth, item.test_entry(), item.category, name)
        if result["valid"]:
            result["replayed"] = live_instances(name + "_eval", item)
        return result
    finally:
        drop(name)


def grade_history(item: Entry, history: list[list[list[str]]], key: str) -> Grade:
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import state_checker

    result = check(item, history)
    valid = bool(result["valid"])
    if valid:
        same = state_checker(live_instances(key, item), result.pop("replayed"))
        if not same["valid"]:  # our bug, never the agent's: the recorded history does not reproduce the episode
            raise RuntimeError(f"{item.id}: BFCL's replay of the recorded calls does not end in the served state "
                               f"({same['error_message']})")
    verdict = Verdict(benchmark=BENCHMARK, checker=CHECKER, valid=valid, error_type=result.get("error_type", ""),
                      error_message=str(result.get("error_message", "")), details=_excerpt(result))
    note = "BFCL multi_turn_checker: " + ("valid" if valid else f"{verdict.error_type}: {verdict.error_message}")
    return Grade(reward=1.0 if valid else 0.0, passed=valid, verdict=verdict,
                 checks=[CheckResult(kind="bfcl", role="goal", passed=valid, weight=1.0, note=note[:500])])
