"""The committed task store is what the engine generates: regenerate a few environments and compare."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
from envcraft.core.tasks import TASKS_DIR, load_tasks, task_file, task_files
from envcraft.generator.tasks.generate import generate

pytestmark = pytest.mark.slow  # servers and whole runs, seconds each: not in the fast lane

SAMPLE = ["vet_clinic", "saas_helpdesk", "tutor_matching_center"]  # a claw workspace, a claw tool, a general env


def test_committed_tasks_match_a_fresh_generation(tmp_path):
    generate(seed=0, envs=SAMPLE, out=tmp_path, workers=1, compress=True)  # the default per_env, as the CLI
    for env in SAMPLE:
        fresh = gzip.decompress((tmp_path / f"{env}.jsonl.gz").read_bytes())
        committed = gzip.decompress(task_file(env).read_bytes())
        assert fresh == committed, f"tasks/{env}.jsonl.gz is stale: run `envcraft tasks generate --gzip`"


def test_task_store_holds_more_tasks_than_envcraft_with_cross_env_and_held_out_envs():
    tasks = [t for path in sorted(Path(TASKS_DIR).glob("*.jsonl.gz")) for t in load_tasks(path)]
    assert len(tasks) > 19_777
    assert sum(len(t.envs) > 1 for t in tasks) >= 0.10 * len(tasks)
    test_envs = {t.envs[0] for t in tasks if t.split == "test"}
    assert test_envs and not any(env in test_envs for t in tasks if t.split == "train" for env in t.envs)
    assert len({t.content_hash for t in tasks}) == len(tasks)


def test_no_request_or_gold_answer_says_none():
    """An empty label once rendered as Python's None ("Not possible for None: it is abandoned", 16 tasks)."""
    said = [t.id for path in task_files(TASKS_DIR) for t in load_tasks(path)
            if re.search(r"\bNone\b", " ".join([*(str(turn) for turn in t.turns), *(
                str(c.arguments.get("answer", "")) for c in t.gold if c.tool == "finish")]))]
    assert said == []
