"""`envcraft tasks sample`: a fixed-seed sample of instructions, to compare task stores over time.

The rule is stable so that two stores can be compared by the same ids: random.Random(seed) picks
`n` ids from the sorted ids of every generated task (hand-written office tasks left out).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from envcraft.core.tasks import Task, load_tasks


def sample(folder: Path, seed: int = 12, n: int = 12) -> list[Task]:
    from envcraft.generator.tasks.stats import task_files

    tasks = {t.id: t for path in task_files(Path(folder)) for t in load_tasks(path)}
    ids = random.Random(seed).sample(sorted(tasks), min(n, len(tasks)))
    return [tasks[i] for i in ids]


def ids_in(sample_file: Path) -> list[str]:
    """The task ids an earlier sample printed (its `## <id> (...)` lines)."""
    return re.findall(r"(?m)^## (\S+) \(", Path(sample_file).read_text("utf-8"))


def render_sample(folder: Path, seed: int = 12, n: int = 12, like: Path | None = None) -> str:
    """The sample, or (with `like`) the same ids as an earlier sample file, as they read in `folder` now."""
    from envcraft.generator.tasks.stats import task_files

    if like is not None:
        wanted = ids_in(like)
        found = {t.id: t for path in task_files(Path(folder)) for t in load_tasks(path) if t.id in set(wanted)}
        lines = [f"# the ids of {like}, as they read in {folder}"]
        chosen = [found[i] for i in wanted if i in found]
    else:
        lines = [f"# random.Random({seed}).sample(sorted task ids, {n}) over {folder}"]
        chosen = sample(folder, seed, n)
    for task in chosen:
        lines.append(f"\n## {task.id} ({', '.join(task.envs)}; {task.difficulty})")
        for i, turn in enumerate(task.turns, 1):
            lines.append(f"[turn {i}] {turn}" if len(task.turns) > 1 else turn)
    return "\n".join(lines) + "\n"
