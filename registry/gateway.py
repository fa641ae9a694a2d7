"""The HTTP gateway: every environment over streamable HTTP, one URL per episode, and a control API.

Agent plane: `/env/<name>/<episode>/mcp`, the episode's own MCP server, bound to its own
workspace; its tools cannot name another episode's files. Control plane: `/control/...`
(registry/control_api.py), creating, resetting, grading and deleting episodes, behind a bearer
token that agents are never given. Shell commands inside episodes have no network at all, so
they cannot reach either.

One episode cannot take the gateway down: every background task (an episode's server, the idle
reaper, a workspace's cleanup) runs guarded, so an exception in one is recorded (and shown by
/control/health) and never ends the task group the others live in. Work on a workspace (copy,
reset, snapshot for grading, removal) runs on worker threads of a limiter of its own, one call per
episode at a time and under a time limit, so a huge or deep tree made by one agent stalls neither
the event loop nor another episode. Each grade runs in a grading process of its own under a time and memory
limit (core/bounded_grade.py). Agent-plane requests are capped per episode (in flight and
in body size) and in time.

What an episode is (its task, each environment's initial state, baseline, grade, checkin) is decided by the
lifecycle the in-process farm shares (registry/lifecycle.py); this module schedules that work.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
import traceback
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from envcraft.benchmarks.registry import owner
from envcraft.core.bounded_grade import GradeLimits, GraderFailure
from envcraft.core.rendering import Rendering, episode_tools, render
from envcraft.core.state import InitialState
from envcraft.registry.asgi_limits import CappedReceive, Tracked, declared_length, refuse
from envcraft.registry.catalog import Environment, discover
from envcraft.registry.clients import client_entries
from envcraft.registry.control_api import ControlError, control_app
from envcraft.registry.descriptors import Reserve, lift_soft_limit, loop_error_handler
from envcraft.registry.episode_groups import disband, grade_group, group_routes
from envcraft.registry.episode_groups import group as group_of
from envcraft.registry.gateway_benchmarks import bench_routes, create_bench_episode, grade_bench, reset_bench
from envcraft.registry.launch import InProcessLauncher
from envcraft.registry.lifecycle import Lifecycle, Member, UnknownTask
from envcraft.registry.workspaces import WorkspaceRoot, end_processes, materialize
from envcraft_runtime import end_episode
from starlette.types import Receive, Scope, Send

AGENT_BODY_BYTES = 8 * 2**20  # an MCP request: write_file content is capped at 2 MB before JSON escaping


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
    baseline: Any = None  # initial Snapshot, taken before the agent acts (registry/lifecycle.py)
    busy: str | None = None  # the control call running on its workspace (one at a time)
    in_flight: int = 0  # agent-plane POSTs being answered
    group: str | None = None  # the multi-environment episode (registry/episode_groups.py) it belongs to
    served: anyio.Event = field(default_factory=anyio.Event)  # its MCP sessions have all ended
    bench: Any = None  # a foreign benchmark's live episode (registry/gateway_benchmarks.py): its own server and state
    shown: Rendering | None = None  # what a model is shown: system prompt, turns, tools (core/rendering.py)

    def describe(self, base_url: str) -> dict[str, Any]:
        url = f"{base_url}/env/{self.env.name}/{self.id}/mcp"
        clients = client_entries({f"{self.env.name}-{self.id[:8]}": url})
        shown = self.shown.model_dump() if self.shown else {}
        return {"episode": self.id, "env": self.env.name, "task_id": self.task_id, "url": url,
                "system_prompt": shown.get("system"), "turns": shown.get("turns", []), "tools": shown.get("tools", []),
                "mcpServers": clients["claude-code"]["mcpServers"], "clients": clients,
                "idle_seconds": round(time.monotonic() - self.last_used, 1), "restarts": self.restarts}


@dataclass
class Failures:
    """Exceptions caught in background work, counted and kept (the last few) for /control/health."""

    count: int = 0
    recent: list[str] = field(default_factory=list)

    def add(self, what: str, exc: BaseException) -> None:
        self.count += 1
        line = traceback.format_exception_only(type(exc), exc)[-1].strip()
        self.recent = [*self.recent[-4:], f"{what}: {line[:300]}"]


class Gateway:
    def __init__(self, token: str | None = None, *, host: str = "127.0.0.1", port: int = 8765,
                 max_episodes: int = 512, idle_seconds: float = 900.0, ttl_seconds: float = 4 * 3600.0,
                 tasks_dir: Path | None = None, root: WorkspaceRoot | None = None,
                 call_seconds: float = 60.0, agent_calls_per_episode: int = 8, workspace_threads: int = 4,
                 advertise_host: str | None = None, grade_limits: GradeLimits | None = None,
                 lifecycle: Lifecycle | None = None):
        self.token = token or secrets.token_urlsafe(24)
        self.host, self.port = host, port
        self.advertise_host = advertise_host or reachable_host(host)
        self.max_episodes, self.idle_seconds, self.ttl_seconds = max_episodes, idle_seconds, ttl_seconds
        self.call_seconds, self.agent_calls_per_episode = call_seconds, agent_calls_per_episode
        self.life = lifecycle or Lifecycle(tasks_dir, grade_limits)  # shared with the in-process farm
        self.envs = discover()
        self.root = root or WorkspaceRoot()
        self.launcher = InProcessLauncher()
        self.episodes: dict[str, GatewayEpisode] = {}
        self.reaped = 0
        self.failures = Failures()
        self._workspace_threads = anyio.CapacityLimiter(workspace_threads)
        self._group: anyio.abc.TaskGroup | None = None
        self._reaper_beat = 0.0
        self._reserve: Reserve | None = None  # descriptors given back when the process runs out (descriptors.py)
        self._listings: dict[str, tuple[str, list[Any]]] = {}  # env -> (server instructions, tools)
        self.control = control_app(self)
        self.control.router.routes.extend(group_routes(self))
        self.control.router.routes.extend(bench_routes(self))
        self.groups: dict[str, Any] = {}

    @property
    def base_url(self) -> str:
        return f"http://{self.advertise_host}:{self.port}"  # what episode URLs name: never 0.0.0.0

    @property
    def reaper_interval(self) -> float:
        return min(self.idle_seconds, self.ttl_seconds, 30.0) / 2

    # ------------------------------------------------------------ lifecycle

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Gateway]:
        self._reserve = Reserve()
        loop = asyncio.get_running_loop()  # uvicorn's backend; its last-resort error handler, restored at the end
        previous = loop.get_exception_handler()
        loop.set_exception_handler(loop_error_handler(self._reserve, self.failures.add))
        async with anyio.create_task_group() as group:
            self._group = group
            self._reaper_beat = time.monotonic()
            group.start_soon(self._reaper)
            try:
                yield self
            finally:
                for episode in list(self.episodes.values()):
                    self.episodes.pop(episode.id, None)
                    episode.stop.set()
                group.cancel_scope.cancel()
        self._group = None
        loop.set_exception_handler(previous)
        self._reserve.close()
        self.root.close()

    def _spawn(self, what: str, fn: Callable[..., Awaitable[Any]], *args: Any) -> None:
        """Run fn in the gateway's task group; whatever it raises is recorded, never propagated."""
        async def guarded() -> None:
            try:
                await fn(*args)
            except Exception as exc:  # noqa: BLE001 - one episode's failure must not end the group
                self.failures.add(what, exc)

        if self._group is None:
            raise ControlError(503, "the gateway is not running (it is starting up or shutting down): retry shortly")
        self._group.start_soon(guarded)

    async def _reaper(self) -> None:
        """Retire episodes idle longer than idle_seconds or older than ttl_seconds."""
        while True:
            self._reaper_beat = time.monotonic()
            await anyio.sleep(self.reaper_interval)
            if self._reserve is not None:
                self._reserve.refill()  # given back after running out of descriptors: taken again once free
            now = time.monotonic()
            for episode in list(self.episodes.values()):
                idle = now - episode.last_used > self.idle_seconds and not episode.in_flight  # a long call is not idleness
                try:
                    if idle or now - episode.created > self.ttl_seconds:
                        self.retire(episode)
                        self.reaped += 1
                except Exception as exc:  # noqa: BLE001 - the reaper goes on with the next episode
                    self.failures.add(f"reaping {episode.id}", exc)

    def health(self) -> dict[str, Any]:
        """What is true now: ok only while the task group runs and the reaper keeps its beat."""
        group_alive = self._group is not None and not self._group.cancel_scope.cancel_called
        reaper_alive = time.monotonic() - self._reaper_beat < 3 * self.reaper_interval + 5
        return {"ok": group_alive and reaper_alive, "task_group": group_alive, "reaper": reaper_alive,
                "live": len(self.episodes), "max": self.max_episodes, "reaped": self.reaped,
                "busy": sum(1 for e in self.episodes.values() if e.busy),
                "restarts": sum(e.restarts for e in self.episodes.values()), "envs": len(self.envs),
                "failures": self.failures.count, "recent_failures": self.failures.recent,
                "descriptor_reserve": len(self._reserve.fds) if self._reserve else 0}

    async def _serve(self, episode: GatewayEpisode, *, task_status=anyio.TASK_STATUS_IGNORED) -> None:
        """Run the episode's session manager until the episode is retired; restart it if it crashes."""
        try:
            await self._serve_until_stopped(episode, task_status)
        finally:
            episode.served.set()

    async def _serve_until_stopped(self, episode: GatewayEpisode, task_status) -> None:
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
            except Exception as exc:  # a crashed transport is restarted and counted in /control/health
                episode.restarts += 1
                self.failures.add(f"episode {episode.id} transport", exc)
                if episode.restarts > 3:
                    self.retire(episode)
                    if not started:
                        raise
                    return

    # ------------------------------------------------------------ work on workspaces, off the event loop

    async def _offload(self, what: str, fn: Callable[..., Any], *args: Any, episode: GatewayEpisode | None = None,
                       late: Callable[[Any], None] | None = None) -> Any:
        """fn(*args) on a workspace thread, waited for at most call_seconds.

        On timeout the caller gets a 504 at once; the thread finishes in the background (a thread
        cannot be stopped), keeps its episode busy until then, and its result goes to `late`.
        """
        if episode is not None:
            if episode.busy:
                raise ControlError(409, f"episode {episode.id} is still busy with {episode.busy}: "
                                        "retry when that finishes")
            episode.busy = what
        done, box = anyio.Event(), {}

        async def run() -> None:
            try:
                box["value"] = await anyio.to_thread.run_sync(fn, *args, limiter=self._workspace_threads)
            except Exception as exc:  # noqa: BLE001 - handed to the waiting request, or recorded below
                box["error"] = exc
            finally:
                if episode is not None:
                    episode.busy = None
                done.set()
                if box.get("abandoned"):
                    if "error" in box:
                        self.failures.add(f"{what} (after its timeout)", box["error"])
                    elif late is not None:
                        late(box["value"])

        self._spawn(what, run)
        with anyio.move_on_after(self.call_seconds):
            await done.wait()
        if not done.is_set():
            box["abandoned"] = True
            raise ControlError(504, f"{what} did not finish within {self.call_seconds:.0f}s; it goes on in the "
                                    "background and the episode answers 409 until it is done")
        if "error" in box:
            raise box["error"]
        return box["value"]

    # ------------------------------------------------------------ episodes

    def _task(self, task_id: str):
        try:
            return self.life.task(task_id)
        except UnknownTask as exc:
            raise ControlError(404, str(exc)) from None

    async def rendering(self, envs: list[str], turns: list[str]) -> Rendering | None:
        """The episode as a model is shown it: the same rendering an MCP client of these servers makes. None for
        a foreign benchmark's episode: its server lists its own tools, turn by turn."""
        from mcp import Client

        if any(name not in self.envs for name in envs):
            return None
        for name in envs:
            if name not in self._listings:  # a server's instructions and tools are the same for every episode
                async with Client(self.launcher.server(self.envs[name])) as client:
                    self._listings[name] = (client.instructions or "", (await client.list_tools()).tools)
        _, tools = episode_tools([(name, self._listings[name][1]) for name in envs])
        return render(turns, tools, {name: self._listings[name][0] for name in envs})

    async def task_listing(self, env: str, split: str = "all", limit: int | None = None) -> list[dict[str, Any]]:
        """Environment `env`'s tasks as a model is shown them, without starting an episode (GET /control/tasks)."""
        if env not in self.envs:
            raise ControlError(404, f"no environment {env!r}; known: {', '.join(sorted(self.envs))}")
        listed = []
        for task in self.life.tasks_of(env, split)[:limit]:
            shown = await self.rendering(task.envs, task.turns)
            listed.append({"task_id": task.id, "envs": task.envs, "split": task.split, "system_prompt": shown.system,
                           "turns": shown.turns, "tools": shown.tools})
        return listed

    async def create(self, env_name: str, task_id: str | None = None) -> GatewayEpisode:
        if env_name not in self.envs and (bench := owner(env_name)) is not None:
            return await create_bench_episode(self, bench, env_name, task_id, lambda env, task, live: GatewayEpisode(
                uuid.uuid4().hex, env, None, None, task, bench=live))  # no workspace
        if env_name not in self.envs:
            raise ControlError(404, f"no environment {env_name!r}; known: {', '.join(sorted(self.envs))}")
        if len(self.episodes) >= self.max_episodes:
            raise ControlError(429, f"the farm is full ({len(self.episodes)} of {self.max_episodes} live episodes): "
                                    "delete finished episodes (DELETE /control/episodes/<id>) or raise --max-episodes")
        env = self.envs[env_name]
        task = self._task(task_id) if task_id else None
        if task and env_name not in task.envs:
            raise ControlError(400, f"task {task_id} runs on {task.envs}, not {env_name}")
        shown = await self.rendering([env_name], task.turns if task else [])  # before a workspace is taken
        member = await self._offload(
            f"preparing a {env.name} workspace", self.life.check_out, self.root, env, task,
            late=lambda late: self._spawn("returning a late workspace", self._recycle, env, late.workspace))
        episode = GatewayEpisode(uuid.uuid4().hex, env, member.workspace, self.life.initial(task, env_name), task_id,
                                 baseline=member.baseline, shown=shown)
        self.episodes[episode.id] = episode
        try:
            await self._group.start(self._serve, episode)
        except Exception as exc:
            self.retire(episode)
            raise ControlError(500, f"the {env.name} server did not start: {exc}") from exc
        return episode

    def episode(self, episode_id: str) -> GatewayEpisode:
        episode = self.episodes.get(episode_id)
        if episode is None:
            raise ControlError(404, f"no live episode {episode_id!r}: it was deleted or reaped")
        return episode

    def retire(self, episode: GatewayEpisode) -> None:
        """End the episode now, and the other members of its group with it (a group lives and dies whole); its
        workspace is rebuilt (or removed) in the background. Never raises."""
        if self.episodes.pop(episode.id, None) is None:
            return
        episode.stop.set()
        if episode.bench is None:  # a benchmark's episode has no workspace: its server's task ends and closes it
            self._spawn(f"cleaning up episode {episode.id}", self._recycle, episode.env, episode.workspace, episode)
        for member in disband(self, episode.group) if episode.group else ():
            self.retire(member)

    async def _recycle(self, env: Environment, workspace: Path, episode: GatewayEpisode | None = None) -> None:
        """Hand the workspace back to the pool once nothing of the episode can act on it any more."""
        if episode is not None:
            # Its commands end now, not at their time limit; the tool calls they held then return.
            with contextlib.suppress(Exception):  # whatever survives is found, and the folder dropped, at checkin
                await anyio.to_thread.run_sync(end_episode, workspace, limiter=self._workspace_threads)
            # A control call still on it (past its timeout), an agent call being answered, or a session still
            # closing could act on the folder after its reset: they finish first.
            while episode.busy or episode.in_flight or not episode.served.is_set():
                await anyio.sleep(0.05)
        # checkin ends the episode's processes again (a call that was still arriving may have started one) and
        # verifies that none is left before the folder is reset and pooled.
        await anyio.to_thread.run_sync(self.life.check_in, self.root, env, workspace, limiter=self._workspace_threads)

    async def reset(self, episode: GatewayEpisode) -> GatewayEpisode:
        if episode.bench is not None:
            return await reset_bench(self, episode)
        try:
            await self._offload("a reset", _reset, episode.env.seed, episode.workspace, episode.initial,
                                episode=episode)
        except ControlError:
            raise
        except Exception as exc:
            self.failures.add(f"resetting {episode.id}", exc)
            self.retire(episode)
            raise ControlError(503, f"episode {episode.id} could not be reset ({type(exc).__name__}: {exc}); "
                                    "it was deleted: create a new one") from exc
        return episode

    async def grade(self, episode: GatewayEpisode) -> Any:
        if not episode.task_id:
            raise ControlError(400, "this episode was created without a task_id, so there is nothing to grade against")
        task = self._task(episode.task_id)
        if episode.bench is not None:
            return await grade_bench(self, episode)
        if episode.group:
            return await grade_group(self, group_of(self, episode.group))
        if len(task.envs) > 1:
            raise ControlError(400, f"task {task.id} spans {', '.join(task.envs)}: one grade needs all of them; "
                                    'create its episode with POST /control/groups {"task_id": ...}')
        return await self.grade_members(task, {episode.env.name: episode})

    async def grade_members(self, task: Any, members: dict[str, GatewayEpisode]) -> Any:
        """One grade of these episodes' workspaces (environment -> episode) in a bounded grading process
        (core/bounded_grade.py): the event loop serves everyone meanwhile, and a grade that cannot finish is
        a verdict of 0 with `unfinished` saying why."""
        for episode in members.values():
            if episode.busy:
                raise ControlError(409, f"episode {episode.id} is still busy with {episode.busy}: "
                                        "retry when that finishes")
        for episode in members.values():
            episode.busy = "grading"
        try:
            return await self.life.grade(task, {env: Member(e.workspace, e.baseline) for env, e in members.items()})
        except GraderFailure as exc:  # the grader's own failure, not the episode's: the caller may retry
            self.failures.add("grading", exc)
            raise ControlError(503, f"{exc}; retry shortly") from exc
        finally:
            for episode in members.values():
                episode.busy = None

    # ------------------------------------------------------------ ASGI

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        path: str = scope.get("path", "")
        if scope["type"] == "http" and path.startswith("/env/"):
            await self._agent_plane(scope, receive, send, path)
            return
        await self.control(scope, receive, send)

    async def _agent_plane(self, scope: Scope, receive: Receive, send: Send, path: str) -> None:
        parts = path.split("/")  # "", "env", name, episode, "mcp", ...
        episode = self.episodes.get(parts[3]) if len(parts) > 4 else None
        if episode is None or episode.env.name != parts[2] or parts[4] != "mcp":
            await refuse(send, 404, f"no live episode at {path}: create one through the control API")
            return
        episode.last_used = time.monotonic()
        if declared_length(scope) > AGENT_BODY_BYTES:
            await refuse(send, 413, f"the request is over {AGENT_BODY_BYTES} bytes")
            return
        calls = scope["method"] == "POST"  # a GET is the long-lived event stream: neither counted nor timed
        if calls and episode.in_flight >= self.agent_calls_per_episode:
            await refuse(send, 429, f"episode {episode.id} already has {episode.in_flight} calls in flight: "
                                     "wait for one to finish")
            return
        # Tools may run in this request's task or in the session's: bind the workspace in both.
        self.launcher.workspace_variable(episode.env).set(episode.workspace)
        capped, sent = CappedReceive(receive, AGENT_BODY_BYTES), Tracked(send)
        episode.in_flight += calls
        try:
            with anyio.move_on_after(self.call_seconds if calls else float("inf")) as timer:
                await episode.app({**scope, "path": "/mcp", "raw_path": b"/mcp"}, capped, sent)
        finally:
            episode.in_flight -= calls
            episode.last_used = time.monotonic()
        if not sent.started:
            if capped.over:
                await refuse(send, 413, f"the request is over {AGENT_BODY_BYTES} bytes")
            elif timer.cancelled_caught:
                await refuse(send, 504, f"no answer within {self.call_seconds:.0f}s")

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        message = await receive()
        async with self.running():
            await send({"type": "lifespan.startup.complete"})
            message = await receive()
        if message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})


def _reset(seed: Path, workspace: Path, initial: InitialState | None) -> None:
    """Back to the initial state: what the episode still runs ends first (it would act on the restored folder)."""
    end_processes(workspace)
    materialize(seed, workspace, initial)


def reachable_host(host: str) -> str:
    """The address episode URLs should name when serving on `host`: a wildcard bind is not an address a
    client can reach, so it becomes this machine's name (pass --advertise-host to choose)."""
    import socket

    if host in ("0.0.0.0", "::", ""):
        return socket.getfqdn() or "127.0.0.1"
    return host


def serve_gateway(*, host: str, port: int, token: str | None, max_episodes: int, tasks_dir: Path | None = None,
                  idle_seconds: float = 900.0, advertise_host: str | None = None, grade_seconds: float = 30.0) -> int:
    import sys

    import uvicorn
    gateway = Gateway(token, host=host, port=port, max_episodes=max_episodes, tasks_dir=tasks_dir,
                      idle_seconds=idle_seconds, advertise_host=advertise_host,
                      grade_limits=GradeLimits(seconds=grade_seconds))
    from envcraft_runtime.cgroups import containment

    print(f"gateway: {len(gateway.envs)} environment(s) at {gateway.base_url}/env/<name>/<episode>/mcp\n"
          f"{containment().banner()}\n"
          f"control API: {gateway.base_url}/control (Authorization: Bearer {gateway.token})\n"
          f"create an episode: curl -X POST -H 'Authorization: Bearer {gateway.token}' "
          f"-d '{{\"env\": \"office\"}}' {gateway.base_url}/control/episodes", file=sys.stderr, flush=True)
    from envcraft.registry.gc_tuning import collect_less

    collect_less()
    lift_soft_limit()  # the shell's soft 1,024 is no budget for hundreds of episodes (descriptors.py)
    uvicorn.run(gateway, host=host, port=port, log_level="warning", lifespan="on")
    return 0
