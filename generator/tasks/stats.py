"""`envcraft tasks stats`: what the generated task files hold, and how generation went."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from pathlib import Path

from envcraft.core.tasks import Task, load_tasks
from envcraft.generator.model.blueprint import BLUEPRINTS, load_blueprint
from envcraft.generator.tasks.env import SERVERS
from envcraft.generator.tasks.generate import REPORT
from envcraft.generator.tasks.quality import measure
from envcraft.generator.tasks.realism import realism

HAND_WRITTEN = {"office.jsonl"}



def share(n: int, d: int) -> float:
    return round(n / d, 4) if d else 0.0

def task_files(folder: Path) -> list[Path]:
    files = sorted(list(folder.glob("*.jsonl")) + list(folder.glob("*.jsonl.gz")))
    return [p for p in files if p.name not in HAND_WRITTEN]


def _shape(task: Task) -> str:
    return "cross_env" if len(task.envs) > 1 else "question" if "question" in task.tags else "write"


def _length(task: Task) -> int | None:
    return next((int(t[4:]) for t in task.tags if t.startswith("len:")), None)


def _table(title: str, counts: Counter, total: int) -> list[str]:
    lines = [f"{title}:"]
    for key, n in sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0]))):
        lines.append(f"  {key!s:<36} {n:>7}  {100 * n / total:5.1f}%")
    return lines


def _load(folder: Path) -> tuple[list[Task], Counter]:
    tasks: list[Task] = []
    per_env: Counter = Counter()
    for path in task_files(folder):
        loaded = [t for t in load_tasks(path) if any(tag.startswith("chain:") for tag in t.tags)]
        tasks += loaded
        per_env[path.name.split(".")[0]] = len(loaded)
    return tasks, per_env


def mean_domain_tools(servers: Path = SERVERS) -> float:
    """Domain tools per generated environment, as their manifests list them."""
    counts = []
    for manifest in sorted(Path(servers).glob("*/server.json")):
        meta = json.loads(manifest.read_text("utf-8")).get("_meta", {}).get("io.github.envcraft/environment", {})
        if meta.get("envId") and (BLUEPRINTS / f"{meta['envId']}.yaml").exists():
            counts.append(sum(1 for t in meta.get("tools", []) if t.get("layer") == "domain"))
    return round(sum(counts) / len(counts), 2) if counts else 0.0


def world_figures(servers: Path = SERVERS) -> dict[str, int]:
    """What the agent reads and what the seeds hold, over every generated environment (the store's worlds)."""
    from envcraft.generator.audit.rule_lint import unbacked_count
    from envcraft.generator.seeds.seed_census import contradiction_rows, future_event_count, misplaced_event_count

    return {"unbacked_rule_sentences": unbacked_count(servers), "future_event_rows": future_event_count(servers),
            "misplaced_event_rows": misplaced_event_count(servers),
            "contradiction_rows": sum(contradiction_rows(servers).values())}


def figures(folder: Path, examples: int = 0) -> dict:
    """The headline figures of a task store (the thresholds tests/test_task_quality.py asserts)."""
    tasks, _ = _load(Path(folder))
    total = len(tasks)
    writes = named = write_tasks = step_lists = raw = glitch_count = 0
    samples: dict[str, list[str]] = {"raw_enum": [], "glitch": []}
    for task in tasks:
        m = measure(task)
        writes += m["writes"]
        named += m["named"]
        if m["writes"]:
            write_tasks += 1
            step_lists += m["step_list"]
        raw += bool(m["raw_enum"])
        glitch_count += len(m["glitches"])
        if m["raw_enum"] and len(samples["raw_enum"]) < examples:
            samples["raw_enum"].append(f"{task.id}: {m['raw_enum']}")
        if m["glitches"] and len(samples["glitch"]) < examples:
            samples["glitch"].append(f"{task.id}: {m['glitches'][0]}")
    out = {
        "total": total,
        "cross_env_share": share(sum(len(t.envs) > 1 for t in tasks), total),
        "question_share": share(sum("question" in t.tags for t in tasks), total),
        "multi_turn_share": share(sum(len(t.turns) > 1 for t in tasks), total),
        "dependent_turn_share": share(sum("dependent_turns" in t.tags for t in tasks), total),
        "tool_verb_share": share(named, writes),
        "step_list_share": share(step_lists, write_tasks),
        "raw_enum_share": share(raw, total),
        "glitch_count": glitch_count,
        "judgement_share": share(sum("judgement" in t.tags for t in tasks), total),
        "needs_workspace_share": share(sum(any(tag.startswith("needs:") for tag in t.tags) for t in tasks), total),
        "needs": dict(sorted(Counter(tag for t in tasks for tag in t.tags if tag.startswith("needs:")).items())),
        "difficulty": dict(sorted(Counter(t.difficulty for t in tasks).items())),
        "mean_domain_tools": mean_domain_tools(),
        **realism(tasks),
        **world_figures(),
    }
    if examples:
        out["examples"] = samples
    return out


def stats(folder: Path, as_json: bool = False) -> str:
    folder = Path(folder)
    if as_json:
        return json.dumps(figures(folder), indent=1, sort_keys=True)
    tasks, per_env = _load(folder)
    if not tasks:
        return f"no generated tasks in {folder} (envcraft tasks generate writes them)"
    total = len(tasks)
    kinds: dict[str, str] = {}
    for env in {e for t in tasks for e in t.envs}:
        path = BLUEPRINTS / f"{env}.yaml"
        kinds[env] = load_blueprint(path).kind if path.exists() else "?"
    counts = sorted(per_env.values())
    lines = [f"{total} generated tasks in {len(per_env)} environment files ({folder})",
             f"per environment: min {counts[0]}, median {statistics.median(counts):g}, max {counts[-1]}; "
             f"fewest: {', '.join(f'{e} {n}' for e, n in sorted(per_env.items(), key=lambda kv: (kv[1], kv[0]))[:5])}"]
    lines += _table("kind (first environment)", Counter(kinds[t.envs[0]] for t in tasks), total)
    lines += _table("shape", Counter(_shape(t) for t in tasks), total)
    lines += _table("archetype", Counter(t.archetype for t in tasks), total)
    lines += _table("difficulty tier", Counter(t.difficulty for t in tasks), total)
    lines += _table("split", Counter(t.split for t in tasks), total)
    report_path = folder / REPORT
    report = json.loads(report_path.read_text("utf-8")) if report_path.exists() else {}
    held_out = set(report.get("test_envs", []))
    leaked = sum(1 for t in tasks if t.split == "train" and any(e in held_out for e in t.envs))
    lines.append(f"  held-out (test) environments: {len(held_out & set(per_env))} of {len(per_env)}; "
                 f"train tasks touching one: {leaked}")
    extras = Counter(tag for t in tasks for tag in t.tags if tag in ("decoy", "decoy_file", "multi_turn", "shell", "file_note"))
    lines += _table("features", extras, total)
    lengths = Counter(_length(t) for t in tasks)
    top = max(lengths.values())
    lines.append("chain length (domain calls in the gold):")
    for length in sorted(k for k in lengths if k is not None):
        lines.append(f"  {length:>3} {lengths[length]:>7} {'#' * max(1, round(40 * lengths[length] / top))}")
    if report:
        random_agent = report.get("random_agent", {})
        lines.append(f"generation: {report.get('tasks')} tasks from {report.get('attempts')} attempts in "
                     f"{report.get('seconds')}s ({report.get('tasks_per_second')} tasks/s, {report.get('workers')} workers)")
        lines += _table("dropped (by reason)", Counter(report.get("drops", {})), max(1, report.get("attempts", 1)))
        lines.append(f"random-tool agent: passed {random_agent.get('passed')} of {random_agent.get('tasks')} "
                     f"(pass rate {random_agent.get('pass_rate')}, mean reward {random_agent.get('mean_reward')})")
        coverage = report.get("coverage", {})
        partial = {e: c for e, c in coverage.items() if c[0] < c[1]}
        covered = sum(c[0] for c in coverage.values())
        lines.append(f"tool coverage: {covered} of {sum(c[1] for c in coverage.values())} domain tools appear in a gold "
                     f"solution; environments missing some: {len(partial)}"
                     + (f" ({', '.join(f'{e} {c[0]}/{c[1]}' for e, c in sorted(partial.items())[:8])})" if partial else ""))
    lines.append("quality: " + json.dumps(figures(folder), sort_keys=True))
    return "\n".join(lines)
