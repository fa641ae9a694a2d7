"""`envcraft run --ray [ADDRESS]`: episodes sharded over Ray actors, rollouts streamed into one log.

Each actor is a farm worker on one node, with its own in-process farm and workspace pools. The
driver hands out small batches (so a fast node takes more), appends each rollout to the run's
rollouts.jsonl the moment its batch returns, and skips what the log already holds: a killed run
resumes like a local one. Every rollout names the node that served it (`Rollout.node`).

Ray is an extra: `pip install 'envcraft[ray]'`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from envcraft.core.rollout import Rollout
from envcraft.core.tasks import Task
from envcraft.harness.runner import RolloutLog
from envcraft.harness.shards import batches, land, recorded, run_batch, todo
from envcraft.registry.ray_connect import connect


def _worker_class(ray: Any) -> Any:
    @ray.remote(num_cpus=0)
    class FarmWorker:
        """One node's farm: runs batches of episodes with its own pools, returns rollouts as JSON."""

        def __init__(self, settings: Any, agent_name: str, make_agent: Callable[..., Any]):
            self.settings, self.agent_name, self.make_agent = settings, agent_name, make_agent
            self.node = ray.get_runtime_context().get_node_id()  # the farm's settings reach run_batch's launcher

        def node_id(self) -> str:
            return self.node

        async def run(self, tasks_json: list[str], attempts: list[int], run_id: str) -> list[str]:
            """The rollouts of exactly these (task, attempt) episodes, as JSON, each naming this node."""
            return await run_batch(self.settings, self.agent_name, self.make_agent, tasks_json, attempts, run_id,
                                   self.node)

    return FarmWorker


def run_on_ray(settings: Any, agent_name: str, tasks: list[Task], log: RolloutLog, *, run_id: str,
               make_agent: Callable[..., Any], on_done: Callable[[Rollout], None] | None = None,
               workers_per_node: int = 1, batch: int | None = None, max_nodes: int | None = None) -> list[Rollout]:
    """`settings` is the run's RunSettings; each worker builds its agent with make_agent(name, settings, tasks)."""
    ray = connect(settings.ray)
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    pairs = todo(settings, agent_name, tasks, log)
    worker = _worker_class(ray)
    nodes = [n["NodeID"] for n in ray.nodes() if n["Alive"]][:max_nodes]
    actors = [worker.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False)).remote(
        settings, agent_name, make_agent) for node in nodes for _ in range(workers_per_node)]
    size = batch or max(settings.concurrency, 1)
    queue = batches(pairs, size)
    running: dict[Any, Any] = {}

    def submit(actor: Any) -> None:
        if queue:
            chunk = queue.pop(0)
            ref = actor.run.remote([t.model_dump_json() for t, _ in chunk], [a for _, a in chunk], run_id)
            running[ref] = actor

    try:
        for actor in actors:
            submit(actor)
        while running:
            [ready], _ = ray.wait(list(running), num_returns=1)
            actor = running.pop(ready)
            land(ray.get(ready), log, on_done)  # streamed into the one log as each batch lands
            submit(actor)
    finally:
        for actor in actors:
            ray.kill(actor)
    return recorded(settings, agent_name, tasks, log)
