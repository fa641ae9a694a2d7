"""`envcraft run --ray` on a real two-node Ray cluster started on this machine, all on loopback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="install the [ray] extra: pip install -e .[ray]")

from envcraft.core.rollout import Rollout
from envcraft.core.tasks import write_tasks
from envcraft.harness.ray_cluster import local_cluster, loopback_alias

from tests.helpers import REPO, mail_task


@pytest.fixture(scope="module")
def cluster():
    if loopback_alias() is None:
        pytest.skip("no /etc/hosts alias of 127.0.0.1 besides localhost: a second Ray node cannot stay on loopback")
    with local_cluster(2) as (address, found):
        yield address, found


def run(address: str, folder: Path, out: Path, **popen) -> subprocess.Popen:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ENVCRAFT_", "RAY_ADDRESS"))}
    return subprocess.Popen([sys.executable, "-m", "envcraft.cli", "run", "--ray", address, "--agent", "gold",
                             "--env", "office", "--tasks-dir", str(folder), "--out", str(out), "--concurrency", "2"], cwd=REPO,
                            env=clean, start_new_session=True, **popen)


def rollouts(out: Path) -> list[Rollout]:
    path = out / "rollouts.jsonl"
    return [Rollout.model_validate_json(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_gold_run_spreads_over_both_nodes_and_a_killed_run_resumes(cluster, tmp_path):
    address, found = cluster
    assert {ip for _, ip in found} == {"127.0.0.1"}  # both nodes on loopback
    tasks = [mail_task(i) for i in range(24)]
    write_tasks(tmp_path / "tasks" / "office.jsonl", tasks)
    out = tmp_path / "run"
    first = run(address, tmp_path / "tasks", out, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    while len(rollouts(out)) < 4:  # killed mid-run, once some batches have landed
        assert first.poll() is None and time.monotonic() < deadline, first.stderr.read().decode()[-3000:]
        time.sleep(0.2)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait(timeout=30)
    kept = len(rollouts(out))
    assert kept < len(tasks)
    second = run(address, tmp_path / "tasks", out, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, stderr = second.communicate(timeout=600)
    assert second.returncode == 0, stderr.decode()[-3000:]
    assert f"{kept} rollout(s) already recorded" in stderr.decode()
    done = rollouts(out)
    assert sorted(r.task_id for r in done) == sorted(t.id for t in tasks)  # every task once: none lost, none twice
    assert all(r.reward == 1.0 and r.failure is None for r in done)
    assert {r.node for r in done} == {node for node, _ in found}  # both nodes served episodes
