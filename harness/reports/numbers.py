"""The numbers of `envcraft report`: per agent and split, success and mean reward, and pass@k / pass^k
over repeated attempts (tau2's pass^k: every one of k attempts succeeds; run with --attempts k)."""

from __future__ import annotations

from collections import defaultdict
from math import comb
from pathlib import Path

from envcraft.core.rollout import Rollout
from envcraft.harness.runner import RolloutLog


def pass_at(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n attempts with c successes."""
    return 1.0 if n - c < k else 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat(n: int, c: int, k: int) -> float:
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
            row[f"pass@{k}"] = sum(pass_at(n, c, k) for n, c in tallies) / len(tallies)
            row[f"pass^{k}"] = sum(pass_hat(n, c, k) for n, c in tallies) / len(tallies)
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
