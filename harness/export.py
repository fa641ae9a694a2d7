"""What trainers and benchmark reports read from a run folder.

- `report`: per agent and split, success and mean reward, and pass@k / pass^k over repeated attempts
  (tau2's pass^k: every one of k attempts succeeds; run with --attempts k).
- `export --format sft`: successful rollouts as chat transcripts (messages + tools), infrastructure
  failures excluded.
- `export --format verl`: one prompt row per task in verl's dataset layout (data_source, prompt,
  ability, reward_model, extra_info); the reward comes from grading the final state by task id.
"""

from __future__ import annotations

import json
from collections import defaultdict
from math import comb
from pathlib import Path

from envcraft.core.rollout import Rollout
from envcraft.harness.runner import RolloutLog
from envcraft.core.tasks import TASKS_DIR, load_tasks, task_files

EXPORT_FORMAT = "envcraft.export/1"


def _pass_at(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n attempts with c successes."""
    return 1.0 if n - c < k else 1.0 - comb(n - c, k) / comb(n, k)


def _pass_hat(n: int, c: int, k: int) -> float:
    """pass^k: the chance that k attempts drawn from n all succeed."""
    return comb(c, k) / comb(n, k) if n >= k else 0.0


def report_rows(rollouts: list[Rollout]) -> list[dict]:
    groups: dict[tuple[str, str, str], dict[str, list[Rollout]]] = defaultdict(lambda: defaultdict(list))
    for rollout in rollouts:
        groups[(rollout.agent, rollout.model or "-", rollout.split)][rollout.task_id].append(rollout)
    rows = []
    for (agent, model, split), by_task in sorted(groups.items()):
        attempts = min(len(v) for v in by_task.values())
        usable = [r for v in by_task.values() for r in v if r.failure is None]
        row = {"agent": agent, "model": model, "split": split, "tasks": len(by_task), "attempts": attempts,
               "success": sum(r.passed for r in usable) / max(len(usable), 1),
               "mean_reward": sum(r.reward for r in usable) / max(len(usable), 1),
               "infra_failures": sum(r.failure is not None for v in by_task.values() for r in v)}
        for k in sorted({1, attempts}):
            tallies = [(len(v), sum(r.passed for r in v)) for v in by_task.values()]
            row[f"pass@{k}"] = sum(_pass_at(n, c, k) for n, c in tallies) / len(tallies)
            row[f"pass^{k}"] = sum(_pass_hat(n, c, k) for n, c in tallies) / len(tallies)
        rows.append(row)
    return rows


def print_report(run: Path) -> int:
    rollouts = list(RolloutLog(Path(run) / "rollouts.jsonl").done.values())
    if not rollouts:
        raise FileNotFoundError(f"no rollouts in {run}: run `envcraft run --out {run}` first")
    for row in report_rows(rollouts):
        passes = "  ".join(f"{k}={v:.3f}" for k, v in row.items() if k.startswith("pass"))
        print(f"{row['agent']:<6} {row['model'][:16]:<16} {row['split']:<5} tasks={row['tasks']:<5} "
              f"attempts={row['attempts']} success={row['success']:.3f} reward={row['mean_reward']:.3f} "
              f"infra={row['infra_failures']}  {passes}")
    return 0


def export(run: Path, fmt: str, out: Path, min_reward: float = 1.0, tasks_dir: Path = TASKS_DIR) -> int:
    rollouts = list(RolloutLog(Path(run) / "rollouts.jsonl").done.values())
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with open(out, "w", encoding="utf-8") as handle:
        if fmt == "sft":
            for r in rollouts:
                if r.failure is None and r.reward >= min_reward:
                    handle.write(json.dumps({"format": EXPORT_FORMAT, "messages": r.messages, "tools": r.tools,
                                             "reward": r.reward, "task_id": r.task_id, "envs": r.envs}) + "\n")
                    written += 1
        elif fmt == "verl":
            wanted = {r.task_id for r in rollouts}
            for path in task_files(tasks_dir):
                for task in load_tasks(path):
                    if task.id in wanted:
                        handle.write(json.dumps({
                            "data_source": f"envcraft/{task.envs[0]}", "ability": "agentic-tool-use",
                            "prompt": [{"role": "user", "content": task.turns[0]}],
                            "reward_model": {"style": "rule", "ground_truth": task.id},
                            "extra_info": {"task_id": task.id, "envs": task.envs, "turns": task.turns,
                                           "split": task.split, "task_hash": task.content_hash}}) + "\n")
                        written += 1
        else:
            raise ValueError(f"unknown export format {fmt!r}: use sft or verl")
    print(f"wrote {written} row(s) to {out}")
    return 0
