"""Every verdict the grader gives on a seeded sample of environments, to prove a grading change changes none.

    python tools/verdicts.py --out /tmp/before.json                    # on the tree before the change
    python tools/verdicts.py --out /tmp/after.json --against /tmp/before.json   # after: exit 1 on any difference

For every task of `--envs` environments drawn with `--seed` (all of each environment's task file), the task is
graded on its gold calls, on no calls at all, and on every audit mutation that applies to it
(generator/tasks/mutations.py), on the fast path the audit uses (replay.World). A verdict is the reward and
each check's pass or fail, in the task's check order; the file maps "<task id> <variant>" to it.

Verdicts alone can miss a change: a world fact no sampled answer happens to need. So each answer and file
check's reading (grading.reading: the world's names, identifiers, nouns, phrases and references it reads the
answer against) is written too, as a digest of its every field, under "<task id> reading <check index>".
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import random
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from envcraft.core.grading import given, grade, reading
from envcraft.core.tasks import TASKS_DIR, Task, ToolCall, load_tasks, task_files
from envcraft.generator.tasks.audit import mutants
from envcraft.generator.tasks.env import EnvCache, generated_envs
from envcraft.generator.tasks.replay import World


def _verdict(cache: EnvCache, task: Task, calls: list[ToolCall]) -> str:
    world = World(cache, task)
    world.run(calls)
    result = grade(task, world.start, world.final())
    return f"{result.reward} " + "".join("1" if c.passed else "0" for c in result.checks)


def _plain(value: Any) -> Any:
    """A reading's field in one canonical form: sets and mappings sorted, whatever type holds them."""
    if isinstance(value, Mapping):
        return sorted([_plain(k), _plain(v)] for k, v in value.items())
    if isinstance(value, (set, frozenset)):
        return sorted(_plain(v) for v in value)
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def _readings(task: Task, initial: dict) -> dict[str, str]:
    out = {}
    for index, check in enumerate(task.checks):
        if check.kind in ("answer", "file_contains"):
            read = reading(check, initial[check.env or task.envs[0]], [], given(task))
            fields = {f.name: _plain(getattr(read, f.name)) for f in dataclasses.fields(read)}
            text = json.dumps(fields, sort_keys=True, default=str)
            out[f"{task.id} reading {index}"] = hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
    return out


def verdicts(envs: int, seed: int, tasks_dir: Path = TASKS_DIR) -> dict[str, str]:
    cache = EnvCache(generated_envs())
    files = [p for p in task_files(tasks_dir) if p.name.split(".")[0] in cache.names]
    out: dict[str, str] = {}
    for path in random.Random(seed).sample(files, min(envs, len(files))):
        for task in load_tasks(path):
            if not set(task.envs) <= set(cache.names):
                continue
            out.update(_readings(task, World(cache, task).start))
            variants = {"gold": task.gold, "noop": [], **mutants(cache, task, seed)}
            for name, calls in variants.items():
                out[f"{task.id} {name}"] = _verdict(cache, task, calls)
    return dict(sorted(out.items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", type=int, default=30, help="environments to sample (default: 30)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dir", type=Path, default=TASKS_DIR, help="task folder (default: tasks/)")
    parser.add_argument("--out", type=Path, required=True, help="write the verdicts here (JSON)")
    parser.add_argument("--against", type=Path, help="verdicts written before: list every difference, exit 1 if any")
    args = parser.parse_args()
    before = json.loads(args.against.read_text()) if args.against else None  # read first: fail before the long run
    start = time.process_time()
    found = verdicts(args.envs, args.seed, args.dir)
    args.out.write_text(json.dumps(found, indent=0))
    tasks = len({key.split(" ")[0] for key in found})
    readings = sum(" reading " in key for key in found)
    print(f"{len(found) - readings} verdicts and {readings} readings on {tasks} tasks of {args.envs} environments, {time.process_time() - start:.1f} s CPU")
    if before is None:
        return 0
    differ = sorted(k for k in before.keys() | found.keys() if before.get(k) != found.get(k))
    for key in differ[:50]:
        print(f"  {key}: {before.get(key)} -> {found.get(key)}")
    print(f"{len(differ)} of {len(before.keys() | found.keys())} verdicts and readings differ from {args.against}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
