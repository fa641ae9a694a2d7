"""`envcraft run --ray` and `envcraft serve --all --ray` on a real two-node Ray cluster started on this machine, all on loopback."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="install the [ray] extra: pip install -e .[ray]")

from envcraft.core.rollout import Rollout
from envcraft.core.tasks import write_tasks
from envcraft.harness.agents.policies import GoldReplayAgent
from envcraft.harness.farm_remote import RemoteFarm
from envcraft.harness.ray_cluster import local_cluster, loopback_alias
from envcraft.harness.runner import RolloutLog, run_tasks

from tests.helpers import REPO, free_port, mail_task, marked, wait_for_port

pytestmark = pytest.mark.slow  # a two-node Ray cluster started on this machine: not in the fast lane


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


@pytest.mark.anyio
async def test_serve_all_on_ray_puts_a_gateway_worker_on_each_node_and_leaves_nothing_behind(cluster, tmp_path):
    address, found = cluster
    tasks = [mail_task(i) for i in range(4)]
    write_tasks(tmp_path / "office.jsonl", tasks)
    port, marker, token = free_port(), uuid.uuid4().hex, "ray-serve-token"
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ENVCRAFT_", "RAY_ADDRESS"))}
    front = subprocess.Popen([sys.executable, "-m", "envcraft.cli", "serve", "--all", "--ray", address, "--port",
                              str(port), "--token", token, "--tasks-dir", str(tmp_path), "--host", "0.0.0.0",
                              "--advertise-host", "127.0.0.1"],
                             cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                             env={**clean, "ENVCRAFT_RUN_MARKER": marker})
    try:
        wait_for_port(port, timeout=240)
        async with RemoteFarm(f"http://127.0.0.1:{port}", token) as farm:
            health = await farm.control.request("GET", "/health")
            assert health["ok"] and health["workers"] == 2
            assert sorted(health["nodes"]) == sorted(node for node, _ in found)  # one worker on each node
            where = dict(zip(health["urls"], health["nodes"]))
            ip = dict(map(tuple, found))
            for url, node in where.items():  # each worker advertises its own node's address, not 0.0.0.0
                assert url.startswith(f"http://{ip[node]}:")
            created = [await farm.control.create(t.id) for t in tasks[:2]]
            served = {next(iter(c["urls"].values())).split("/env/")[0] for c in created}
            assert served == set(where)  # the two episodes were placed on the two nodes' workers
            for c in created:
                await farm.control.delete(c["episode"])
            assert await farm.control.request("GET", "/episodes") == []
            log = RolloutLog(tmp_path / "r.jsonl")
            done = await run_tasks(tasks, GoldReplayAgent({t.id: t.gold for t in tasks}), None, log, run_id="r",
                                   farm=farm, concurrency=2)
            assert await farm.control.request("GET", "/episodes") == []  # every episode deleted after grading
        assert [r.reward for r in done] == [1.0] * len(tasks) and all(r.failure is None for r in done)
        running = marked(marker)
        gateways = [pid for pid in running if b"serve\0--all\0--host" in Path(f"/proc/{pid}/cmdline").read_bytes()]
        assert len(gateways) == 2  # the marker reaches the workers Ray starts, so the check below can fail
        front.terminate()  # the front alone: its workers on both nodes must go with it
        front.wait(timeout=120)
        deadline = time.monotonic() + 60
        while marked(marker) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert marked(marker) == [], [Path(f"/proc/{p}/cmdline").read_bytes() for p in marked(marker)]
    finally:
        if front.poll() is None:
            os.killpg(front.pid, signal.SIGKILL)
            front.wait(timeout=60)
        for pid in marked(marker):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
