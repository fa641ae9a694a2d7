"""N gateway workers behind one control API: `envcraft serve --all --workers N [--ray [ADDRESS]]`.

Each worker is a whole gateway (its own process, event loop, servers and workspace pools), so
agent-plane throughput grows with cores; on Ray, workers are actors placed on every node. The front
holds only the control API: it places each new episode on the worker with the fewest live ones,
forwards later control calls to the episode's worker, and returns the worker's own episode URLs,
which name the worker's reachable address: agents talk to workers directly, never through the front.
"""

from __future__ import annotations

import contextlib
import secrets
import sys
from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.to_thread
import httpx2
from envcraft.registry.control_api import ControlError, check_bearer, read_json
from envcraft.registry.gateway_workers import Worker, start_process_workers
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


class Pool:
    """The front's control API over the workers."""

    def __init__(self, workers: list[Worker], token: str):
        self.workers, self.token = workers, token
        self.owner: dict[str, Worker] = {}
        self.http = httpx2.AsyncClient(timeout=120.0, headers={"Authorization": f"Bearer {token}"})

    async def forward(self, worker: Worker, request: Request, body: Any = None) -> JSONResponse:
        response = await self.http.request(request.method, f"{worker.url}{request.url.path}",
                                           params=request.query_params, json=body if request.method == "POST" else None)
        data = response.json() if response.content else {}
        return JSONResponse(data, status_code=response.status_code)

    def app(self) -> Starlette:
        def authorized(request: Request) -> None:
            check_bearer(request.headers.get("authorization"), self.token)

        async def create(request: Request) -> JSONResponse:
            authorized(request)
            body = await read_json(request)
            worker = min(self.workers, key=lambda w: len(w.episodes))
            response = await self.forward(worker, request, body)
            if response.status_code == 201:
                import json

                created = json.loads(response.body)
                ids = [created["episode"], *created.get("members", {}).values()]
                for episode in ids:
                    self.owner[episode] = worker
                worker.episodes.add(created["episode"])
            return response

        async def owned(request: Request) -> JSONResponse:
            authorized(request)
            episode = request.path_params.get("episode") or request.path_params.get("group")
            worker = self.owner.get(episode)
            if worker is None:
                raise ControlError(404, f"no live episode {episode!r}: it was deleted or reaped")
            body = await read_json(request) if request.method == "POST" and int(
                request.headers.get("content-length") or 0) else None
            response = await self.forward(worker, request, body)
            if request.method == "DELETE" and response.status_code < 300:
                worker.episodes.discard(episode)
                self.owner.pop(episode, None)
            return response

        async def tasks(request: Request) -> JSONResponse:
            authorized(request)
            return await self.forward(self.workers[0], request)  # every worker reads the same task files

        async def health(request: Request) -> JSONResponse:
            authorized(request)
            reports = [(await self.http.get(f"{w.url}/control/health")).json() for w in self.workers]
            return JSONResponse({"ok": all(r.get("ok") for r in reports), "workers": len(self.workers),
                                 "live": sum(r.get("live", 0) for r in reports),
                                 "urls": [w.url for w in self.workers], "nodes": [w.node for w in self.workers],
                                 "per_worker": reports})

        async def listing(request: Request) -> JSONResponse:
            authorized(request)
            return JSONResponse([e for w in self.workers for e in (await self.http.get(f"{w.url}/control/episodes")).json()])

        async def refused(request: Request, exc: ControlError) -> JSONResponse:
            return JSONResponse({"error": str(exc)}, status_code=exc.status)

        return Starlette(routes=[
            Route("/control/health", health, methods=["GET"]),
            Route("/control/episodes", listing, methods=["GET"]),
            Route("/control/tasks", tasks, methods=["GET"]),
            Route("/control/episodes", create, methods=["POST"]),
            Route("/control/groups", create, methods=["POST"]),
            Route("/control/episodes/{episode}/{action}", owned, methods=["POST"]),
            Route("/control/episodes/{episode}", owned, methods=["DELETE"]),
            Route("/control/groups/{group}/{action}", owned, methods=["POST"]),
            Route("/control/groups/{group}", owned, methods=["DELETE"]),
        ], exception_handlers={ControlError: refused}, lifespan=self._lifespan)

    @contextlib.asynccontextmanager
    async def _lifespan(self, app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:  # here, not after uvicorn.run: uvicorn re-raises SIGTERM once it has shut down
            await self.http.aclose()
            for worker in self.workers:
                await anyio.to_thread.run_sync(worker.stop)


def serve_pool(*, host: str, port: int, token: str | None, max_episodes: int, tasks_dir: Any = None,
               idle_seconds: float = 900.0, workers: int = 2, advertise_host: str | None = None,
               ray: str | None = None, grade_seconds: float = 30.0) -> int:
    import uvicorn
    from envcraft.registry.gateway import reachable_host

    token = token or secrets.token_urlsafe(24)
    advertise = advertise_host or reachable_host(host)
    options = ["--max-episodes", str(max_episodes), "--idle-seconds", str(idle_seconds), "--grade-seconds", str(grade_seconds)]
    if tasks_dir:
        options += ["--tasks-dir", str(tasks_dir)]
    if ray:
        from envcraft.registry.gateway_ray import start_ray_workers

        started = start_ray_workers(ray, max(workers, 1), token, options)
    else:
        started = start_process_workers(max(workers, 1), host, advertise, token, options)
    pool = Pool(started, token)
    print(f"gateway: {len(started)} worker(s): {', '.join(w.url for w in started)}\n"
          f"control API: http://{advertise}:{port}/control (Authorization: Bearer {token}); "
          f"create an episode: POST /control/groups {{\"task_id\": ...}} or /control/episodes {{\"env\": ...}}",
          file=sys.stderr, flush=True)
    uvicorn.run(pool.app(), host=host, port=port, log_level="warning")
    return 0


__all__ = ["Pool", "serve_pool"]
