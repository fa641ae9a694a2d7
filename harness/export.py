"""What trainers read from a run folder (`envcraft export`; the `report` command lives in reports/).

- `--format sft`: successful rollouts as chat transcripts (system prompt first, tools as a JSON string),
  infrastructure failures excluded; `.jsonl` or `.parquet` by the output's suffix. Both load with
  `datasets.load_dataset("json" | "parquet", data_files=...)`.
- `--format verl`: one prompt row per task in verl's dataset layout (parquet; see trainer_data.py), and
  beside it `<name>.tools.yaml`, the tool config pointing verl's tool agent loop at a gateway.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import yaml
from envcraft.benchmarks.registry import find_task
from envcraft.core.extras import require
from envcraft.core.tasks import TASKS_DIR, Task, load_tasks, task_files
from envcraft.harness.agents.claw import SYSTEM_PROMPT
from envcraft.harness.farm_bench import benchmark_of
from envcraft.harness.farm_local import LocalFarm
from envcraft.harness.reports.numbers import load_run
from envcraft.harness.trainer_data import sft_row, verl_row, verl_tool_config, write_rows

DEFAULT_GATEWAY = "http://127.0.0.1:8765"


def tools_key(task: Task) -> tuple[str, ...]:
    """Ours list the same tools for every task of an environment set; a benchmark's task lists its own classes'."""
    return (task.id,) if benchmark_of(task) is not None else tuple(task.envs)


async def tools_of(tasks: list[Task]) -> dict[tuple[str, ...], list[dict]]:
    """The OpenAI tools an episode of each environment set (a benchmark's: each task) exposes at its first turn
    (read from the real servers)."""
    found: dict[tuple[str, ...], list[dict]] = {}
    async with LocalFarm() as farm:
        for task in tasks:
            if tools_key(task) not in found:
                info = await farm.create(task)
                found[tools_key(task)] = info.tools
                await farm.delete(info.id)
    return found


def export(run: Path, fmt: str, out: Path, min_reward: float = 1.0, tasks_dir: Path = TASKS_DIR,
           gateway_url: str = DEFAULT_GATEWAY, system_prompt: str = SYSTEM_PROMPT) -> int:
    rollouts = load_run(run).rollouts  # a missing or empty run is an error, and nothing is created
    if fmt not in ("sft", "verl"):
        raise ValueError(f"unknown export format {fmt!r}: use sft or verl")
    out = Path(out)
    if out.suffix == ".parquet":  # before any work: a missing extra is named at once
        require("pyarrow.parquet", "trainers", "a parquet export")
    if fmt == "sft":
        rows = [sft_row(r, system_prompt) for r in rollouts if r.failure is None and r.reward >= min_reward]
        write_rows(rows, out, "sft")
    elif fmt == "verl":
        wanted = {r.task_id for r in rollouts}
        tasks = [t for path in task_files(tasks_dir) for t in load_tasks(path) if t.id in wanted]
        tasks += [t for i in sorted(wanted - {t.id for t in tasks}) if (t := find_task(i)) is not None]  # BFCL's, ...
        tools = anyio.run(tools_of, tasks)
        rows = [verl_row(task, i, system_prompt, tools[tools_key(task)]) for i, task in enumerate(tasks)]
        write_rows(rows, out, "verl")
        union = list({t["function"]["name"]: t for group in tools.values() for t in group}.values())
        config = out.with_name(out.stem + ".tools.yaml")
        config.write_text(yaml.safe_dump(verl_tool_config(union, gateway_url), sort_keys=False), "utf-8")
        print(f"wrote verl's tool config to {config} ({len(union)} tools; gateway {gateway_url})")
    else:
        raise ValueError(f"unknown export format {fmt!r}: use sft or verl")
    print(f"wrote {len(rows)} row(s) to {out}")
    return 0
