"""What a person watching a run sees: a progress line while it runs, a summary table at the end."""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from statistics import mean

from envcraft.core.rollout import Rollout


class Progress:
    """A one-line progress bar on stderr (redrawn in place on a terminal, every 10% otherwise)."""

    def __init__(self, total: int, label: str, stream=sys.stderr):
        self.total, self.label, self.stream = max(total, 1), label, stream
        self.done = self.passed = self.failed = 0
        self.rewards: list[float] = []
        self.start = time.perf_counter()
        self.tty = stream.isatty()
        self._last_decile = -1

    def update(self, rollout: Rollout) -> None:
        self.done += 1
        self.passed += rollout.passed
        self.failed += rollout.failure is not None
        self.rewards.append(rollout.reward)
        decile = self.done * 10 // self.total
        if self.tty or decile != self._last_decile or self.done == self.total:
            self._last_decile = decile
            self.draw()

    def draw(self) -> None:
        width = 24
        filled = width * self.done // self.total
        rate = self.done / max(time.perf_counter() - self.start, 1e-9)
        line = (f"{self.label:<10} [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
                f"passed={self.passed} infra_failures={self.failed} mean_reward={mean(self.rewards):.3f} {rate:.1f} ep/s")
        self.stream.write(("\r" + line) if self.tty else line + "\n")
        if self.tty and self.done == self.total:
            self.stream.write("\n")
        self.stream.flush()


def summary_rows(rollouts: list[Rollout]) -> list[dict]:
    groups: dict[tuple[str, str], list[Rollout]] = defaultdict(list)
    for rollout in rollouts:
        groups[(rollout.agent, rollout.model or "-")].append(rollout)
    rows = []
    for (agent, model), group in sorted(groups.items()):
        rows.append({
            "agent": agent, "model": model, "episodes": len(group),
            "success_rate": mean(r.passed for r in group), "mean_reward": mean(r.reward for r in group),
            "mean_steps": mean(r.steps for r in group), "mean_seconds": mean(r.timings.total_seconds for r in group),
            "infra_failures": sum(r.failure is not None for r in group),
        })
    return rows


def summary_table(rollouts: list[Rollout]) -> str:
    header = f"{'agent':<8} {'model':<16} {'episodes':>8} {'success':>8} {'reward':>7} {'steps':>6} {'sec/ep':>7} {'infra':>6}"
    lines = [header, "-" * len(header)]
    for row in summary_rows(rollouts):
        lines.append(f"{row['agent']:<8} {row['model'][:16]:<16} {row['episodes']:>8} {row['success_rate']:>8.1%} "
                     f"{row['mean_reward']:>7.3f} {row['mean_steps']:>6.1f} {row['mean_seconds']:>7.3f} {row['infra_failures']:>6}")
    return "\n".join(lines)
