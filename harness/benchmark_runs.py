"""`envcraft run --bench NAME [--category C] [--limit N]`: a foreign benchmark's tasks through the same run loop,
and its accuracy per category (the benchmark's own verdicts) as a table."""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from pathlib import Path

from envcraft.benchmarks import registry
from envcraft.core.outcomes import infrastructure_failures
from envcraft.core.rollout import Rollout
from envcraft.core.tasks import Task


def bench_tasks(name: str, category: str | None, limit: int | None, split: str = "all") -> list[Task]:
    """The benchmark's tasks, `limit` per category (None or 0: all)."""
    bench = registry.load_file(Path(name)) if name.endswith(".py") else registry.get(name)  # a user's own module
    if problem := bench.installed():
        raise FileNotFoundError(problem)
    tasks = [t for t in bench.tasks(category) if split in ("all", t.split)]
    by_env = itertools.groupby(tasks, key=lambda t: t.envs[0])
    return [t for _, group in by_env for t in itertools.islice(group, limit or None)]


def category_rows(rollouts: list[Rollout]) -> list[dict]:
    """Per benchmark category (environment) and agent: tasks, the benchmark's accuracy, seconds, error types."""
    groups: dict[tuple[str, str], list[Rollout]] = defaultdict(list)
    for r in rollouts:
        if r.verdict is not None or registry.owner(r.envs[0]) is not None:
            groups[(r.envs[0], f"{r.agent}:{r.model}" if r.model else r.agent)].append(r)
    rows = []
    for (category, agent), group in sorted(groups.items()):
        verdicts = [r.verdict for r in group if r.verdict is not None]
        rows.append({"benchmark": verdicts[0].benchmark if verdicts else "-", "category": category, "agent": agent,
                     "tasks": len({r.task_id for r in group}), "episodes": len(group),
                     "correct": sum(1 for v in verdicts if v.valid), "accuracy": sum(v.valid for v in verdicts) / len(group),
                     "infra_failures": infrastructure_failures(group),  # core/outcomes.py: accuracy counts every episode
                     "episode_seconds": round(sum(r.timings.total_seconds for r in group), 2),
                     "errors": dict(Counter(v.error_type for v in verdicts if not v.valid).most_common(4))})
    return rows


def replay_table(rows: list[dict]) -> list[list]:
    """category, tasks, gold correct, no-op correct, seconds: the gold/no-op proof of a benchmark, one row each."""
    by_category: dict[str, dict[str, dict]] = defaultdict(dict)
    for row in rows:
        by_category[row["category"]][row["agent"]] = row
    out = []
    for category, agents in sorted(by_category.items()):
        gold, noop = agents.get("gold"), agents.get("noop")
        out.append([category, max(r["tasks"] for r in agents.values()),
                    f"{gold['correct']}/{gold['episodes']}" if gold else "-",
                    f"{noop['correct']}/{noop['episodes']}" if noop else "-",
                    f"{sum(r['episode_seconds'] for r in agents.values()):.1f}"])
    return out
