"""What trainers read from a run folder (`envcraft export`; the `report` command lives in reports/).

- `--format sft`: successful rollouts as chat transcripts (system prompt first, tools as a JSON string),
  infrastructure failures excluded; `.jsonl` or `.parquet` by the output's suffix. Both load with
  `datasets.load_dataset("json" | "parquet", data_files=...)`.
- `--format verl`: one prompt row per task in verl's dataset layout (parquet; see trainer_data.py), and
  beside it `<name>.tools.yaml`, the tool config pointing verl's tool agent loop at a gateway.
- `--format skyrl`: one prompt row per task in SkyRL's dataset layout (`prompt`, `env_class`, and the
  columns SkyRL hands the environment as extras: `task_id` first), for `EnvCraftTextEnv`.

Every prompt is the episode's rendering (core/rendering.py): what the claw agent is shown for the task.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import yaml
from envcraft.benchmarks.registry import find_task
from envcraft.core.extras import require
from envcraft.core.rendering import Rendering, render
from envcraft.core.tasks import TASKS_DIR, Task, load_tasks, task_files
from envcraft.harness.client import EpisodeInfo
from envcraft.harness.farm_benchmarks import benchmark_of
from envcraft.harness.farm_local import LocalFarm
from envcraft.harness.reports.numbers import load_run
from envcraft.harness.trainer_data import sft_row, skyrl_row, verl_row, verl_tool_config, write_rows

DEFAULT_GATEWAY = "http://127.0.0.1:8765"
FORMATS = ("sft", "verl", "skyrl")


def tools_key(task: Task) -> tuple[str, ...]:
    """Ours list the same tools for every task of an environment set; a benchmark's task lists its own classes'."""
    return (task.id,) if benchmark_of(task) is not None else tuple(task.envs)


async def episodes_of(tasks: list[Task]) -> dict[tuple[str, ...], EpisodeInfo]:
    """An episode per environment set (a benchmark's: per task) as the real servers open it at its first turn:
    its tools and its servers' instructions."""
    found: dict[tuple[str, ...], EpisodeInfo] = {}
    async with LocalFarm() as farm:
        for task in tasks:
            if tools_key(task) not in found:
                info = await farm.create(task)
                found[tools_key(task)] = info
                await farm.delete(info.id)
    return found


def renderings(tasks: list[Task]) -> dict[str, Rendering]:
    """task id -> what a model is shown of it (the same as the claw agent's episode of it)."""
    opened = anyio.run(episodes_of, tasks)
    return {task.id: render(task.turns, opened[tools_key(task)].tools, opened[tools_key(task)].instructions)
            for task in tasks}


def export(run: Path, fmt: str, out: Path, min_reward: float = 1.0, tasks_dir: Path | None = None,
           gateway_url: str = DEFAULT_GATEWAY) -> int:
    """`tasks_dir`: where the run's tasks are (default: the folder the run recorded, else tasks/)."""
    loaded = load_run(run)  # a missing or empty run is an error, and nothing is created
    rollouts = loaded.rollouts
    tasks_dir = Path(tasks_dir or loaded.settings.get("tasks_dir") or TASKS_DIR)
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}: use {', '.join(FORMATS)}")
    out = Path(out)
    if out.suffix == ".parquet":  # before any work: a missing extra is named at once
        require("pyarrow.parquet", "trainers", "a parquet export")
    wanted = {r.task_id for r in rollouts}
    tasks = [t for path in task_files(tasks_dir) for t in load_tasks(path) if t.id in wanted]
    tasks += [t for i in sorted(wanted - {t.id for t in tasks}) if (t := find_task(i)) is not None]  # BFCL's, ...
    if fmt == "sft":
        kept = [r for r in rollouts if r.failure is None and r.reward >= min_reward]
        shown = renderings([t for t in tasks if t.id in {r.task_id for r in kept}])
        rows = [sft_row(r, shown[r.task_id].system if r.task_id in shown else None) for r in kept]
        write_rows(rows, out, "sft")
    else:
        shown = renderings(tasks)
        if fmt == "skyrl":
            rows = [skyrl_row(task, i, shown[task.id]) for i, task in enumerate(tasks)]
        else:
            rows = [verl_row(task, i, shown[task.id]) for i, task in enumerate(tasks)]
        write_rows(rows, out, fmt)
        if fmt == "verl":
            union = list({t["function"]["name"]: t for r in shown.values() for t in r.tools}.values())
            config = out.with_name(out.stem + ".tools.yaml")
            config.write_text(yaml.safe_dump(verl_tool_config(union, gateway_url), sort_keys=False), "utf-8")
            print(f"wrote verl's tool config to {config} ({len(union)} tools; gateway {gateway_url})")
    print(f"wrote {len(rows)} row(s) to {out}")
    return 0
