"""The HTTP gateway: every environment over streamable HTTP, one URL per episode, and a control API.

Agent plane: `/env/<name>/<episode>/mcp`, the episode's own MCP server, bound to its own
workspace; its tools cannot name another episode's files. Control plane: `/control/...`, creating,
resetting, grading and deleting episodes, behind a bearer token that agents are never given.
Shell commands inside episodes have no network at all, so they cannot reach either.
"""

from __future__ import annotations

import contextlib
import hmac
import secrets
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from envcraft.registry.catalog import Environment, discover
from envcraft.registry.launch import InProcessLauncher
from envcraft.core.state import InitialState
from envcraft.registry.workspaces import WorkspaceRoot


class ControlError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


@dataclass
class GatewayEpisode:
    id: str
    env: Environment
    workspace: Path
    initial: InitialState | None
    task_id: str | None
    app: Any = None
    stop: anyio.Event = field(default_factory=anyio.Event)
    created: float = field(default_factory=time.monotonic)
    last_used: float = field(default_factory=time.monotonic)
    restarts: int = 0
    baseline: Any = None  # initial Snapshot, taken before the agent acts

    def describe(self, base_url: str) -> dict[str, Any]:
        url = f"{base_url}/env/{self.env.name}/{self.id}/mcp"
        return {"episode": self.id, "env": self.env.name, "task_id": self.task_id, "url": url,
                "mcpServers": {f"{self.env.name}-{self.id[:8]}": {"url": url}},
                "idle_seconds": round(time.monotonic() - self.last_used, 1), "restarts": self.restarts}


class Gateway:
    def __init__(self, token: str | None = None, *, host: str = "127.0.0.1", port: int = 8765,
                 max_episodes: int = 512, idle_seconds: float = 900.0, ttl_seconds: float = 4 * 3600.0,
                 tasks_dir: Path | None = None, root: WorkspaceRoot | None = None):
        self.token = token or secrets.token_urlsafe(24)
        self.host, self.port = host, port
        self.max_episodes, self.idle_seconds, self.ttl_seconds = max_episodes, idle_seconds, ttl_seconds
        self.tasks_dir = tasks_dir
        self.envs = discover()
        self.root = root or WorkspaceRoot()
        self.launcher = InProcessLauncher()
        self.episodes: dict[str, GatewayEpisode] = {}
        self.reaped = 0
        self._group: anyio.abc.TaskGroup | None = None
        self._tasks: dict[str, Any] | None = None
        self.control = Starlette(routes=[
            Route("/control/health", self._health, methods=["GET"]),
            Route("/control/episodes", self._list, methods=["GET"]),
            Route("/control/episodes", self._create, methods=["POST"]),
            Route("/control/episodes/{episode}/reset", self._reset, methods=["POST"]),
            Route("/control/episodes/{episode}/grade", self._grade, methods=["POST"]),
            Route("/control/episodes/{episode}", self._delete, methods=["DELETE"]),
        ], exception_handlers={ControlError: self._error})

    @staticmethod
    async def _error(request: Request, exc: ControlError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=exc.status)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    # ------------------------------------------------------------ lifecycle

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Gateway]:
        async with anyio.create_task_group() as group:
            self._group = group
            group.start_soon(self._reaper)
            try:
                yield self
            finally:
                for episode in list(self.episodes.values()):
                    self._drop(episode)
                group.cancel_scope.cancel()
        self.root.close()

    async def _reaper(self) -> None:
        """Delete episodes idle longer than idle_seconds or older than ttl_seconds."""
        while True:
            await anyio.sleep(min(self.idle_seconds, self.ttl_seconds, 30.0) / 2)
            now = time.monotonic()
            for episode in list(self.episodes.values()):
                if now - episode.last_used > self.idle_seconds or now - episode.created > self.ttl_seconds:
                    self._drop(episode)
                    self.reaped += 1

    async def _serve(self, episode: GatewayEpisode, *, task_status=anyio.TASK_STATUS_IGNORED) -> None:
        """Run the episode's session manager until the episode is deleted; restart it if it crashes."""
        started = False
        self.launcher.workspace_variable(episode.env).set(episode.workspace)  # inherited by this episode's sessions
        while not episode.stop.is_set():
            server = self.launcher.server(episode.env)
            episode.app = server.streamable_http_app(streamable_http_path="/mcp", host=self.host)
            manager = server.session_manager  # this episode's own; the server is shared
            try:
                async with manager.run():
                    if not started:
                        started = True
                        task_status.started()
                    await episode.stop.wait()
            except Exception:  # noqa: BLE001 - a crashed transport is restarted and counted in /control/health
                episode.restarts += 1
                if episode.restarts > 3:
                    self._drop(episode)
                    return

    # ------------------------------------------------------------ episodes

    def _task(self, task_id: str):
        from envcraft.core.tasks import TASKS_DIR, load_tasks, task_files

        folder = self.tasks_dir or TASKS_DIR
        if self._tasks is None:  # read once: an unknown id must not rescan every task file
            self._tasks = {}
            for path in task_files(folder):
                for task in load_tasks(path):
                    self._tasks[task.id] = task
        if task_id not in self._tasks:
            raise ControlError(404, f"no task {task_id!r} in {folder}")
        return self._tasks[task_id]

    async def create(self, env_name: str, task_id: str | None = None) -> GatewayEpisode:
        from envcraft.core.grading import Snapshot

        if env_name not in self.envs:
            raise ControlError(404, f"no environment {env_name!r}; known: {', '.join(sorted(self.envs))}")
        if len(self.episodes) >= self.max_episodes:
            raise ControlError(429, f"the farm is full ({len(self.episodes)} of {self.max_episodes} live episodes): "
                                    "delete finished episodes (DELETE /control/episodes/<id>) or raise --max-episodes")
        env = self.envs[env_name]
        task = self._task(task_id) if task_id else None
        if task and env_name not in task.envs:
            raise ControlError(400, f"task {task_id} runs on {task.envs}, not {env_name}")
        initial = task.initial if task else None
        workspace = self.root.checkout(env.name, env.seed, initial)
        episode = GatewayEpisode(uuid.uuid4().hex, env, workspace, initial, task_id)
        episode.baseline = Snapshot.of(workspace)
        self.episodes[episode.id] = episode
        await self._group.start(self._serve, episode)
        return episode

    def _drop(self, episode: GatewayEpisode) -> None:
        if self.episodes.pop(episode.id, None) is None:
            return
        episode.stop.set()
        self.root.checkin(episode.env.seed, episode.workspace)

    def _episode(self, request: Request) -> GatewayEpisode:
        episode = self.episodes.get(request.path_params["episode"])
        if episode is None:
            raise ControlError(404, f"no live episode {request.path_params['episode']!r}: it was deleted or reaped")
        return episode

    # ------------------------------------------------------------ control API

    def _authorized(self, request: Request) -> None:
        offered = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if not hmac.compare_digest(offered.encode(), self.token.encode()):
            raise ControlError(401, "the control API needs 'Authorization: Bearer <token>' (printed when the gateway starts)")

    async def _health(self, request: Request) -> JSONResponse:
        self._authorized(request)
        return JSONResponse({"ok": True, "live": len(self.episodes), "max": self.max_episodes, "reaped": self.reaped,
                             "restarts": sum(e.restarts for e in self.episodes.values()), "envs": len(self.envs)})

    async def _list(self, request: Request) -> JSONResponse:
        self._authorized(request)
        return JSONResponse([e.describe(self.base_url) for e in self.episodes.values()])

    async def _create(self, request: Request) -> JSONResponse:
        self._authorized(request)
        try:
            body = await request.json()
        except ValueError:
            raise ControlError(400, 'send a JSON body like {"env": "office", "task_id": "office-001"}') from None
        if not isinstance(body, dict) or not isinstance(body.get("env"), str):
            raise ControlError(400, 'the body needs "env" (an environment name; GET /control/health lists how many)')
        episode = await self.create(body["env"], body.get("task_id"))
        return JSONResponse(episode.describe(self.base_url), status_code=201)

    async def _reset(self, request: Request) -> JSONResponse:
        from envcraft.registry.workspaces import materialize

        self._authorized(request)
        episode = self._episode(request)
        materialize(episode.env.seed, episode.workspace, episode.initial)
        return JSONResponse({"episode": episode.id, "reset": True})

    async def _grade(self, request: Request) -> JSONResponse:
        from envcraft.core.grading import Snapshot, grade

        self._authorized(request)
        episode = self._episode(request)
        if not episode.task_id:
            raise ControlError(400, "this episode was created without a task_id, so there is nothing to grade against")
        result = grade(self._task(episode.task_id), episode.baseline, Snapshot.of(episode.workspace))
        return JSONResponse(result.model_dump())

    async def _delete(self, request: Request) -> JSONResponse:
        self._authorized(request)
        episode = self._episode(request)
        self._drop(episode)
        return JSONResponse({"episode": episode.id, "deleted": True})

    # ------------------------------------------------------------ ASGI

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        path: str = scope.get("path", "")
        if scope["type"] == "http" and path.startswith("/env/"):
            parts = path.split("/")  # "", "env", name, episode, "mcp", ...
            episode = self.episodes.get(parts[3]) if len(parts) > 4 else None
            if episode is None or episode.env.name != parts[2] or parts[4] != "mcp":
                await JSONResponse({"error": f"no live episode at {path}: create one through the control API"},
                                   status_code=404)(scope, receive, send)
                return
            episode.last_used = time.monotonic()
            # Tools may run in this request's task or in the session's: bind the workspace in both.
            self.launcher.workspace_variable(episode.env).set(episode.workspace)
            await episode.app({**scope, "path": "/mcp", "raw_path": b"/mcp"}, receive, send)
            return
        await self.control(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        message = await receive()
        async with self.running():
            await send({"type": "lifespan.startup.complete"})
            message = await receive()
        if message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})


def serve_gateway(*, host: str, port: int, token: str | None, max_episodes: int, tasks_dir: Path | None = None) -> int:
    import sys

    import uvicorn

    gateway = Gateway(token, host=host, port=port, max_episodes=max_episodes, tasks_dir=tasks_dir)
    print(f"gateway: {len(gateway.envs)} environment(s) at {gateway.base_url}/env/<name>/<episode>/mcp\n"
          f"control API: {gateway.base_url}/control (Authorization: Bearer {gateway.token})\n"
          f"create an episode: curl -X POST -H 'Authorization: Bearer {gateway.token}' "
          f"-d '{{\"env\": \"office\"}}' {gateway.base_url}/control/episodes", file=sys.stderr, flush=True)
    uvicorn.run(gateway, host=host, port=port, log_level="warning", lifespan="on")
    return 0
