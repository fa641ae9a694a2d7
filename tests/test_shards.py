"""`envcraft run --workers N`: episodes sharded over local worker processes, one log, resumable."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from envcraft.core.rollout import Rollout
from envcraft.core.tasks import write_tasks

from tests.helpers import REPO, mail_task

pytestmark = pytest.mark.slow  # servers and whole runs, seconds each: not in the fast lane


def run(folder: Path, out: Path, workers: int, *agents: str, **popen) -> subprocess.Popen:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ENVCRAFT_")}
    picks = [arg for agent in agents for arg in ("--agent", agent)]
    return subprocess.Popen([sys.executable, "-m", "envcraft.cli", "run", *picks, "--env", "office", "--tasks-dir",
                             str(folder), "--out", str(out), "--concurrency", "2", "--workers", str(workers)],
                            cwd=REPO, env=clean, start_new_session=True, **popen)


def finish(process: subprocess.Popen) -> str:
    _, stderr = process.communicate(timeout=600)
    assert process.returncode == 0, stderr.decode()[-3000:]
    return stderr.decode()


def rollouts(out: Path) -> list[Rollout]:
    path = out / "rollouts.jsonl"
    return [Rollout.model_validate_json(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_two_workers_give_what_one_gives(tmp_path):
    tasks = [mail_task(i) for i in range(6)]
    write_tasks(tmp_path / "tasks" / "office.jsonl", tasks)
    outcomes = {}
    for workers in (1, 2):
        out = tmp_path / f"run{workers}"
        finish(run(tmp_path / "tasks", out, workers, "gold", "noop", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
        done = rollouts(out)
        keys = [(r.task_id, r.agent) for r in done]
        assert len(keys) == len(set(keys)) == 2 * len(tasks)  # every episode once
        outcomes[workers] = {(r.task_id, r.agent): (r.reward, r.failure) for r in done}
        for agent in ("gold", "noop"):
            nodes = {r.node for r in done if r.agent == agent}
            if workers == 2:  # both worker processes (started per agent) served episodes
                assert len(nodes) == 2 and all(n.startswith("local:") for n in nodes), nodes
    assert outcomes[1] == outcomes[2]
    assert {reward for reward, _ in outcomes[2].values()} == {0.0, 1.0}  # gold solves, no-op does not


def test_a_killed_sharded_run_resumes_without_duplicates(tmp_path):
    tasks = [mail_task(i) for i in range(24)]
    write_tasks(tmp_path / "tasks" / "office.jsonl", tasks)
    out = tmp_path / "run"
    first = run(tmp_path / "tasks", out, 2, "gold", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    while len(rollouts(out)) < 4:  # killed mid-run, once some batches have landed
        assert first.poll() is None and time.monotonic() < deadline, first.stderr.read().decode()[-3000:]
        time.sleep(0.1)
    os.killpg(first.pid, signal.SIGKILL)  # the driver and its workers
    first.wait(timeout=30)
    kept = len(rollouts(out))
    assert kept < len(tasks)
    stderr = finish(run(tmp_path / "tasks", out, 2, "gold", stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    assert f"{kept} rollout(s) already recorded" in stderr
    done = rollouts(out)
    assert sorted(r.task_id for r in done) == sorted(t.id for t in tasks)  # every task once: none lost, none twice
    assert all(r.reward == 1.0 and r.failure is None for r in done)
    assert len({r.node for r in done[kept:]}) == 2  # both workers of the resumed run served episodes
