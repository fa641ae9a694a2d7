"""`envcraft export --format skyrl` rows, loaded by SkyRL's own dataset code and run as SkyRL's generator runs
them: one episode from a row, graded (in an isolated venv with the skyrl package: tests/consumer_venvs.py)."""

from __future__ import annotations

import json
import subprocess

import pytest
from envcraft.core.tasks import write_tasks

from tests.consumer_venvs import consumer_venv
from tests.helpers import REPO, mail_task
from tests.test_run import envcraft

pytestmark = pytest.mark.slow  # servers, subprocesses or whole runs: out of the fast lane

pytest.importorskip("skyrl_gym", reason="install the [trainers] extra: pip install 'envcraft[trainers]'")


def completion(calls) -> str:
    return "".join(f"<tool_call>{json.dumps({'name': c.tool, 'arguments': c.arguments})}</tool_call>" for c in calls)


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    folder = tmp_path_factory.mktemp("skyrl-rows")
    task = mail_task(11)
    write_tasks(folder / "tasks" / "office.jsonl", [task])
    ran = envcraft("run", "--env", "office", "--agent", "gold", "--tasks-dir", str(folder / "tasks"),
                   "--out", str(folder / "run"))
    assert ran.returncode == 0, ran.stderr
    for name in ("rows.parquet", "rows.jsonl"):
        done = envcraft("export", str(folder / "run"), "--format", "skyrl", "--out", str(folder / name))
        assert done.returncode == 0, done.stderr
    return folder, task


@pytest.mark.parametrize("name", ["rows.parquet", "rows.jsonl"])
@pytest.mark.parametrize("solved", [True, False])
def test_skyrl_loads_an_exported_row_and_runs_its_episode(rows, name, solved):
    folder, task = rows
    python = consumer_venv("skyrl")
    said = completion(task.gold) if solved else "I will not do anything."
    done = subprocess.run([str(python), str(REPO / "tests" / "skyrl_row_episode.py"), str(folder / name),
                           str(folder / "tasks"), said], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["rows"] == 1 and seen["env_class"] == "envcraft" and seen["task_id"] == task.id
    assert seen["prompt_is_row"] and seen["done"]
    assert seen["reward"] == (1.0 if solved else 0.0)
