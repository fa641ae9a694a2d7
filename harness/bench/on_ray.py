"""`run --ray` episodes/s on a 1-node against a 2-node local cluster (scale.py)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from envcraft.core.tasks import tasks_for
from envcraft.harness.ray_cluster import local_cluster
from envcraft.harness.ray_runner import run_on_ray
from envcraft.harness.run import RunSettings, make_agent
from envcraft.harness.runner import RolloutLog


def _run(address: str, tasks: list, nodes: int) -> dict[str, float]:
    settings = RunSettings(ray=address, concurrency=4, envs=["office"])
    with tempfile.TemporaryDirectory() as scratch:
        log = RolloutLog(Path(scratch) / "rollouts.jsonl")
        start = time.perf_counter()
        done = run_on_ray(settings, "gold", tasks, log, run_id="bench", make_agent=make_agent, max_nodes=nodes)
        seconds = time.perf_counter() - start
    return {"episodes": len(done), "seconds": round(seconds, 1), "episodes_per_s": round(len(done) / seconds, 2),
            "reward": round(sum(r.reward for r in done) / max(len(done), 1), 3)}


def ray_rows(count: int = 64) -> list[dict]:
    # ray is imported by connect(), never at the top of this module: the variable that keeps a cluster on
    # 127.0.0.1 is read when ray is first imported (registry/ray_connect.py).
    from envcraft.registry.ray_connect import connect

    tasks = tasks_for("office")[:count]
    with local_cluster(2) as (address, _):
        ray = connect(address)  # before anything imports ray: it keeps the loopback address
        _run(address, tasks[:8], 2)  # workers import and build their servers once, outside the figure
        one, two = _run(address, tasks, 1), _run(address, tasks, 2)
        ray.shutdown()
    return [{"figure": f"run --ray gold episodes/s ({len(tasks)} office tasks): 2 nodes vs 1 node", "ours": two,
             "baseline": one, "ratio": round(two["episodes_per_s"] / max(one["episodes_per_s"], 1e-9), 2),
             "target": "> 1 with a core per node"}]
