"""The numbers of `envcraft report`, computed once and shown three ways (terminal, --json, --html).

Per series (a run's agent and model): success and mean reward, pass@k / pass^k over repeated attempts
(tau2's pass^k: every one of k attempts succeeds; run with --attempts k), breakdowns by environment,
kind, archetype, tier and split, steps / tokens / seconds per episode, and failures by boundary. What an episode
counts as (an episode's own failure is reward 0; an infrastructure failure is shown, not scored) is defined once
in core/outcomes.py and used by every number here.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from math import comb
from pathlib import Path
from statistics import mean

from envcraft.benchmarks.registry import find_task
from envcraft.core.outcomes import (
    INFRASTRUCTURE_BOUNDARIES,
    counted,
    infrastructure_failures,
    mean_reward,
    success_rate,
)
from envcraft.core.rollout import Rollout
from envcraft.core.tasks import TASKS_DIR, Task, load_tasks, task_file
from envcraft.harness.benchmark_runs import category_rows
from envcraft.harness.runner import RolloutLog

REPORT_FORMAT = "envcraft.report/1"
DIMENSIONS = ("env", "kind", "archetype", "tier", "split")
BOUNDARIES = tuple(sorted(INFRASTRUCTURE_BOUNDARIES))  # shown per series; an episode's own failures are scored
EPISODE_FAILURE = "episode_failures"  # task and agent failures: counted as reward 0 (core/outcomes.py)


def pass_at(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n attempts with c successes."""
    return 1.0 if n - c < k else 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat(n: int, c: int, k: int) -> float:
    """pass^k: the chance that k attempts drawn from n all succeed."""
    return comb(c, k) / comb(n, k) if n >= k else 0.0


def summary_rows(rollouts: list[Rollout]) -> list[dict]:
    """One row per agent and model: what `envcraft run` prints at the end and writes to summary.json."""
    groups: dict[tuple[str, str], list[Rollout]] = defaultdict(list)
    for rollout in rollouts:
        groups[(rollout.agent, rollout.model or "-")].append(rollout)
    rows = []
    for (agent, model), group in sorted(groups.items()):
        rows.append({
            "agent": agent, "model": model, "episodes": len(group),
            "success_rate": success_rate(group), "mean_reward": mean_reward(group),
            "mean_steps": mean(r.steps for r in group), "mean_seconds": mean(r.timings.total_seconds for r in group),
            "infra_failures": infrastructure_failures(group),
        })
    return rows


def report_rows(rollouts: list[Rollout]) -> list[dict]:
    """Per agent and split: success and reward over counted episodes (core/outcomes.py), pass@k, pass^k."""
    groups: dict[tuple[str, str, str], dict[str, list[Rollout]]] = defaultdict(lambda: defaultdict(list))
    for rollout in rollouts:
        groups[(rollout.agent, rollout.model or "-", rollout.split)][rollout.task_id].append(rollout)
    rows = []
    for (agent, model, split), by_task in sorted(groups.items()):
        attempts = min(len(v) for v in by_task.values())
        every = [r for v in by_task.values() for r in v]
        row = {"agent": agent, "model": model, "split": split, "tasks": len(by_task), "attempts": attempts,
               "success": success_rate(every), "mean_reward": mean_reward(every),
               "infra_failures": infrastructure_failures(every)}
        tallies = [(len(v), sum(r.passed for r in v)) for v in by_task.values()]  # every attempt: a failure is no pass
        for k in sorted({1, attempts}):
            row[f"pass@{k}"] = sum(pass_at(n, c, k) for n, c in tallies) / len(tallies)
            row[f"pass^{k}"] = sum(pass_hat(n, c, k) for n, c in tallies) / len(tallies)
        rows.append(row)
    return rows


@dataclass
class Run:
    """A run folder as a report reads it: its rollouts and the settings it ran with."""

    folder: Path
    run_id: str
    settings: dict
    rollouts: list[Rollout]


def load_run(folder: Path) -> Run:
    """Read a run folder; a missing or empty one is an error that says how to make it (nothing is created)."""
    folder = Path(folder)
    log = folder / "rollouts.jsonl"
    if not folder.is_dir():
        raise FileNotFoundError(f"no run folder {folder}: run `envcraft run --out {folder}` first")
    if not log.exists():
        raise FileNotFoundError(f"{folder} holds no rollouts.jsonl: is it a run folder? (`envcraft run --out {folder}`)")
    rollouts = list(RolloutLog(log).done.values())
    if not rollouts:
        raise FileNotFoundError(f"no rollouts in {log}: run `envcraft run --out {folder}` first")
    meta = folder / "run.json"
    settings = json.loads(meta.read_text("utf-8")) if meta.exists() else {}
    return Run(folder, settings.get("run_id", folder.name), settings, rollouts)


def _tasks_by_id(run: Run, envs: Iterable[str]) -> dict[str, Task]:
    """The run's tasks, read only from the files of the environments it touched."""
    tasks_dir = Path(run.settings.get("tasks_dir") or TASKS_DIR)
    found: dict[str, Task] = {}
    for env in sorted(set(envs)):
        path = task_file(env, tasks_dir)
        if path is not None:
            found.update((task.id, task) for task in load_tasks(path))
    return found


def _kinds() -> dict[str, str]:
    from envcraft.benchmarks.registry import every
    from envcraft.registry.catalog import discover

    benchmarks = {name: bench.kind for bench in every() for name in bench.env_names}
    return {**benchmarks, **{name: env.manifest.env.kind for name, env in discover().items()}}


def episode_facts(runs: list[Run]) -> list[dict]:
    """One flat row per rollout: what every breakdown, curve and distribution is computed from."""
    kinds = _kinds()
    several = len(runs) > 1
    facts = []
    for run in runs:
        tasks = _tasks_by_id(run, (r.envs[0] for r in run.rollouts))
        for r in run.rollouts:
            task = tasks.get(r.task_id) or find_task(r.task_id)  # ours from task files; a benchmark's from it
            agent = f"{r.agent}:{r.model}" if r.model else r.agent
            facts.append({
                "series": f"{run.run_id} · {agent}" if several else agent, "run": run.run_id,
                "rollout_id": r.rollout_id, "task_id": r.task_id, "attempt": r.attempt,
                "env": "+".join(r.envs), "kind": kinds.get(r.envs[0], "-"),
                "archetype": (task.archetype if task else "") or "-", "tier": task.difficulty if task else "-",
                "split": r.split, "passed": r.passed, "reward": r.reward, "steps": r.steps,
                "tokens": r.usage.prompt_tokens + r.usage.completion_tokens, "seconds": r.timings.total_seconds,
                "boundary": r.failure.boundary if r.failure else None, "stop_reason": r.stop_reason,
                "counted": counted(r),
            })
    return facts


def _rate(rows: list[dict]) -> dict:
    """Success and reward over the counted episodes (core/outcomes.py); `episodes` is every one."""
    scored = [r for r in rows if r["counted"]]
    return {"episodes": len(rows), "success": mean(r["passed"] for r in scored) if scored else 0.0,
            "reward": mean(r["reward"] for r in scored) if scored else 0.0}


def breakdowns(facts: list[dict]) -> dict[str, list[dict]]:
    """Success and mean reward per series and value, for each dimension."""
    out = {}
    for dim in DIMENSIONS:
        groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
        for f in facts:
            groups[(f["series"], f[dim])].append(f)
        out[dim] = [{"series": s, "value": v, **_rate(rows)} for (s, v), rows in sorted(groups.items())]
    return out


def pass_curves(facts: list[dict]) -> list[dict]:
    """pass@k and pass^k for k = 1 .. the fewest attempts any task of the series had."""
    by_series: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for f in facts:  # every attempt: an infrastructure failure is no pass either
        by_series[f["series"]][f["task_id"]].append(f["passed"])
    curves = []
    for series, by_task in sorted(by_series.items()):
        tallies = [(len(v), sum(v)) for v in by_task.values()]
        for k in range(1, min(n for n, _ in tallies) + 1):
            curves.append({"series": series, "k": k, "tasks": len(tallies),
                           "pass@k": sum(pass_at(n, c, k) for n, c in tallies) / len(tallies),
                           "pass^k": sum(pass_hat(n, c, k) for n, c in tallies) / len(tallies)})
    return curves


def distributions(facts: list[dict]) -> dict[str, dict[str, list[float]]]:
    """Per measure, per series: every episode's value (steps, tokens, seconds)."""
    out: dict[str, dict[str, list[float]]] = {m: defaultdict(list) for m in ("steps", "tokens", "seconds")}
    for f in facts:
        for measure in out:
            out[measure][f["series"]].append(f[measure])
    return {m: dict(v) for m, v in out.items()}


def failures(facts: list[dict]) -> list[dict]:
    """Per series: infrastructure failures by boundary, the episodes' own failures (task, agent: scored as 0),
    and episodes graded below full reward ("graded")."""
    rows = []
    for series in sorted({f["series"] for f in facts}):
        mine = [f for f in facts if f["series"] == series]
        counts = Counter(f["boundary"] for f in mine if not f["counted"])
        rows.append({"series": series, **{b: counts.get(b, 0) for b in BOUNDARIES},
                     EPISODE_FAILURE: sum(1 for f in mine if f["counted"] and f["boundary"]),
                     "graded": sum(1 for f in mine if not f["boundary"] and not f["passed"]), "episodes": len(mine)})
    return rows


def series_summary(facts: list[dict]) -> list[dict]:
    """The side-by-side table: one row per series."""
    rows = []
    for series in sorted({f["series"] for f in facts}):
        mine = [f for f in facts if f["series"] == series]
        rows.append({"series": series, **_rate(mine), "tasks": len({f["task_id"] for f in mine}),
                     "mean_steps": mean(f["steps"] for f in mine), "mean_tokens": mean(f["tokens"] for f in mine),
                     "mean_seconds": mean(f["seconds"] for f in mine),
                     "infra_failures": sum(1 for f in mine if not f["counted"])})
    return rows


def report_data(runs: list[Run]) -> dict:
    """Every number the report shows, JSON-ready (`envcraft report --json`)."""
    facts = episode_facts(runs)
    return {
        "format": REPORT_FORMAT,
        "runs": [{"run_id": run.run_id, "folder": str(run.folder), "episodes": len(run.rollouts),
                  "summary": summary_rows(run.rollouts), "by_agent_and_split": report_rows(run.rollouts),
                  "benchmarks": category_rows(run.rollouts)}  # standard benchmarks: their checkers' accuracy
                 for run in runs],
        "series": series_summary(facts),
        "breakdowns": breakdowns(facts),
        "pass_curves": pass_curves(facts),
        "distributions": distributions(facts),
        "failures": failures(facts),
        "episodes": facts,
    }
