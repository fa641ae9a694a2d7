"""`envcraft run --ray` on a real two-node Ray cluster started on this machine, all on loopback."""

from __future__ import annotations

import json
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
from tests.helpers import REPO, free_port, mail_task, wait_for_port

RAY = str(Path(sys.executable).with_name("ray"))
NODES = ("import json, ray; ray.init(address='{address}', log_to_driver=False, configure_logging=False); "
         "print(json.dumps([[n['NodeID'], n['NodeManagerAddress']] for n in ray.nodes() if n['Alive']]))")


def loopback_alias() -> str | None:
    """A host name /etc/hosts maps to 127.0.0.1 other than localhost: Ray rewrites 127.0.0.1 and localhost
    to the machine's outward IP when a worker node joins, but keeps an alias's loopback address."""
    for line in Path("/etc/hosts").read_text().splitlines():
        fields = line.split("#")[0].split()
        if fields and fields[0] == "127.0.0.1":
            names = [n for n in fields[1:] if n not in ("localhost", "localhost.localdomain")]
            if names:
                return names[0]
    return None


def nodes(address: str) -> list[list[str]]:
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    done = subprocess.run([sys.executable, "-c", NODES.format(address=address)], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def cluster():
    alias = loopback_alias()
    if alias is None:
        pytest.skip("no /etc/hosts alias of 127.0.0.1 besides localhost: a second Ray node cannot stay on loopback")
    port = free_port()
    base = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    common = ["--num-cpus", "1", "--disable-usage-stats", "--block"]
    head = subprocess.Popen([RAY, "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}",
                             "--include-dashboard=false", *common], start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**base, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"})
    second = None
    try:
        wait_for_port(port, timeout=120)
        second = subprocess.Popen([RAY, "start", f"--address={alias}:{port}", "--resources", '{"node2": 1}', *common],
                                  start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  env={**base, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "1"})
        address = f"127.0.0.1:{port}"
        deadline = time.monotonic() + 180
        while len(found := nodes(address)) < 2:
            assert time.monotonic() < deadline, f"the second Ray node never joined: {found}"
            time.sleep(1)
        yield address, found
    finally:
        for process in (second, head):
            if process is not None and process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait(timeout=30)


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
