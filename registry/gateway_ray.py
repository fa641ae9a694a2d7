"""Gateway workers as Ray actors: `envcraft serve --all --ray [ADDRESS] --workers N` (N per node).

Each actor starts a gateway process on its node, bound to and advertising the node's address as
Ray reports it, so episode URLs are reachable from anywhere in the cluster. Ray is an extra.
"""

from __future__ import annotations

from typing import Any

from envcraft.registry.gateway_workers import Worker
from envcraft.registry.ray_connect import connect
from envcraft.registry.settings import Settings


def start_ray_workers(address: str, per_node: int, token: str, options: list[str]) -> list[Worker]:
    ray = connect(address)
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    @ray.remote(num_cpus=0)
    class GatewayWorker:
        def start(self, token: str, options: list[str]) -> tuple[str, str]:
            from envcraft.registry.gateway_workers import start_process_workers

            ip = ray.util.get_node_ip_address()
            [self.worker] = start_process_workers(1, ip, ip, token, options)
            return self.worker.url, ray.get_runtime_context().get_node_id()

        def stop(self) -> None:
            self.worker.stop()

    nodes = [n["NodeID"] for n in ray.nodes() if n["Alive"]]
    # The run's marker (how tests find a run's processes) reaches the actors' processes and the gateways they start.
    marker = Settings.from_env().runtime.marker_environ()  # how tests find a run's processes, on every node
    marker = {"env_vars": marker} if marker else None
    actors = [GatewayWorker.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False),
                                    runtime_env=marker).remote()
              for node in nodes for _ in range(per_node)]
    started = ray.get([actor.start.remote(token, options) for actor in actors])
    workers = []
    for actor, (url, node) in zip(actors, started):
        def stop(actor: Any = actor) -> None:
            try:
                ray.get(actor.stop.remote(), timeout=60)
            finally:
                ray.kill(actor)

        workers.append(Worker(url, stop, node=node))
    return workers
