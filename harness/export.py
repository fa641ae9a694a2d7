"""What trainers read from a run folder (`envcraft export`; the `report` command lives in reports/).

- `export --format sft`: successful rollouts as chat transcripts (messages + tools), infrastructure
  failures excluded.
- `export --format verl`: one prompt row per task in verl's dataset layout (data_source, prompt,
  ability, reward_model, extra_info); the reward comes from grading the final state by task id.
"""

from __future__ import annotations

import json
from pathlib import Path

from envcraft.harness.reports.numbers import load_run
from envcraft.core.tasks import TASKS_DIR, load_tasks, task_files

EXPORT_FORMAT = "envcraft.export/1"


def export(run: Path, fmt: str, out: Path, min_reward: float = 1.0, tasks_dir: Path = TASKS_DIR) -> int:
    rollouts = load_run(run).rollouts  # a missing or empty run is an error, and nothing is created
    if fmt not in ("sft", "verl"):
        raise ValueError(f"unknown export format {fmt!r}: use sft or verl")
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
