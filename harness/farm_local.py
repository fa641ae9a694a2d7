"""The episode API in process: the registry launches each environment, grading reads the workspaces.

Each episode's instances (server connections, workspaces) live in a task of their own that enters
and leaves them, so the SDK's cancel scopes stay in one task whoever calls create and delete.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from envcraft.core.grading import Grade, Snapshot, grade
from envcraft.core.tasks import TASKS_DIR, Task, load_tasks, task_files
from envcraft.harness.client import EpisodeInfo, ToolResult, episode_tools, parse_arguments, reply_text
from envcraft.harness.errors import SandboxFailure, ServerFailure, TaskFailure, leaf
from envcraft.harness.schema_cache import share_output_validators
from envcraft.registry import catalog
from envcraft.registry.launch import InProcessLauncher, Instance, Launcher, launch
from envcraft.registry.workspaces import WorkspaceRoot

SHELL_TOOLS = {"run_shell"}  # an unexpected error in these is the sandbox's, not the agent's


@dataclass
class _Live:
    task: Task
    info: EpisodeInfo | None = None
    instances: list[Instance] = field(default_factory=list)
    baseline: dict[str, Snapshot] = field(default_factory=dict)
    routes: dict[str, tuple[str, Any, str]] = field(default_factory=dict)  # exposed name -> (env, client, tool)
    stop: anyio.Event = field(default_factory=anyio.Event)
    closed: anyio.Event = field(default_factory=anyio.Event)
    teardown_error: BaseException | None = None


class LocalFarm:
    """`async with LocalFarm() as farm:` the episode API over in-process (or stdio, docker) instances."""

    def __init__(self, launcher: Launcher | None = None, root: WorkspaceRoot | None = None,
                 tasks_dir: Path | None = None, tool_seconds: float = 120.0):
        self.launcher = launcher or InProcessLauncher()
        self._own_root = root is None
        self.root = root or WorkspaceRoot()
        self.tasks_dir = tasks_dir
        self.tool_seconds = tool_seconds
        self.live: dict[str, _Live] = {}
        self._tasks: dict[str, Task] | None = None
        self._group: anyio.abc.TaskGroup | None = None

    async def __aenter__(self) -> LocalFarm:
        self._group = anyio.create_task_group()
        await self._group.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        for live in list(self.live.values()):
            live.stop.set()
        try:
            await self._group.__aexit__(*exc)
        finally:
            if self._own_root:
                self.root.close()

    def prewarm(self, counts: dict[str, int]) -> None:
        """Fresh workspace copies ready per environment (as many as will run at once)."""
        known = catalog.discover()
        for name, count in counts.items():
            if name in known:
                self.root.prewarm(name, known[name].seed, count)

    def _task(self, task_id: str) -> Task:
        if self._tasks is None:
            self._tasks = {t.id: t for path in task_files(self.tasks_dir or TASKS_DIR) for t in load_tasks(path)}
        if task_id not in self._tasks:
            raise TaskFailure(f"no task {task_id!r} in {self.tasks_dir or TASKS_DIR}")
        return self._tasks[task_id]

    # ------------------------------------------------------------ the API

    async def create(self, task: str | Task) -> EpisodeInfo:
        task = self._task(task) if isinstance(task, str) else task
        try:
            envs = [catalog.get(name) for name in task.envs]
        except KeyError as exc:
            raise TaskFailure(str(exc.args[0] if exc.args else exc)) from None
        live = _Live(task)
        episode_id = uuid.uuid4().hex
        self.live[episode_id] = live
        failed: list[BaseException] = []

        async def hold(*, task_status=anyio.TASK_STATUS_IGNORED) -> None:
            try:
                async with contextlib.AsyncExitStack() as stack:
                    for env in envs:
                        live.instances.append(await stack.enter_async_context(
                            launch(env, self.launcher, self.root, task.initial_for(env.name))))
                    listed = []
                    for instance in live.instances:
                        tools = (await instance.client.list_tools()).tools
                        share_output_validators(instance.client)
                        listed.append((instance.env.name, tools))
                    live.baseline = {i.env.name: Snapshot.of(i.workspace) for i in live.instances}
                    exposed, tools = episode_tools(listed)
                    clients = {i.env.name: i.client for i in live.instances}
                    live.routes = {name: (key.split("/", 1)[0], clients[key.split("/", 1)[0]], key.split("/", 1)[1])
                                   for key, name in exposed.items()}
                    live.info = EpisodeInfo(id=episode_id, task_id=task.id, envs=task.envs, turns=task.turns,
                                            tools=tools, exposed=exposed)
                    task_status.started()
                    await live.stop.wait()
            except anyio.get_cancelled_exc_class():
                raise
            except BaseException as exc:  # noqa: BLE001 - create() raises it typed; teardown errors stay here
                if live.info is None:
                    failed.append(exc)
                    task_status.started()
                else:
                    live.teardown_error = exc
            finally:
                live.closed.set()

        await self._group.start(hold)
        if failed:
            self.live.pop(episode_id, None)
            cause = leaf(failed[0])
            if isinstance(cause, (TaskFailure, SandboxFailure, ServerFailure)):
                raise cause
            raise ServerFailure(f"starting {', '.join(task.envs)} failed: {type(cause).__name__}: {cause}") from cause
        return live.info

    def _live(self, episode_id: str) -> _Live:
        live = self.live.get(episode_id)
        if live is None or live.info is None:
            raise TaskFailure(f"no live episode {episode_id!r}: it was deleted or never created")
        return live

    async def call_tool(self, episode_id: str, name: str, arguments: str | dict[str, Any] | None) -> ToolResult:
        """One tool call. Malformed calls come back as error replies the agent reads, never as crashes;
        a broken or hung server raises ServerFailure, a broken shell sandbox SandboxFailure."""
        live = self._live(episode_id)
        parsed = parse_arguments(name, arguments)
        if isinstance(parsed, ToolResult):
            return parsed
        if name not in live.routes:
            return ToolResult(name=name, is_error=True,
                              text=f"there is no tool named {name!r}; available: {', '.join(sorted(live.routes))}")
        env, client, local = live.routes[name]
        start = time.perf_counter()
        outcome: dict[str, Any] = {}
        answered = anyio.Event()

        async def call() -> None:
            try:
                outcome["result"] = await client.call_tool(local, parsed)
            except Exception as exc:  # noqa: BLE001 - re-raised typed below
                outcome["error"] = exc
            finally:
                answered.set()

        # In its own task: a sync tool runs on a worker thread that no cancel scope can interrupt, so the
        # caller stops waiting instead (the thread finishes in the background, the episode is failed).
        self._group.start_soon(call)
        with anyio.move_on_after(self.tool_seconds):
            await answered.wait()
        if not answered.is_set():
            raise ServerFailure(f"{env} server: {name} did not answer within {self.tool_seconds:g} s (raise "
                                "--tool-timeout if the tool is slow on purpose)")
        if "error" in outcome:  # the transport or the server process broke: not the agent's fault
            exc = outcome["error"]
            raise ServerFailure(f"{env} server: {name} call failed: {type(exc).__name__}: {exc}") from exc
        result = outcome["result"]
        text = reply_text(result)
        if result.is_error and local in SHELL_TOOLS and text.startswith("Error executing tool"):
            # A ToolError reads as its message; this generic text means the shell itself crashed.
            raise SandboxFailure(f"{env} shell: {text} (is bubblewrap installed? --sandbox process is for development)")
        return ToolResult(name=name, text=text, is_error=bool(result.is_error), seconds=time.perf_counter() - start)

    async def grade(self, episode_id: str) -> Grade:
        live = self._live(episode_id)
        final = {i.env.name: Snapshot.of(i.workspace) for i in live.instances}
        return grade(live.task, live.baseline, final)

    async def delete(self, episode_id: str) -> None:
        live = self.live.pop(episode_id, None)
        if live is not None:
            live.stop.set()
            with anyio.move_on_after(5):  # a tool stuck in a worker thread finishes its teardown later
                await live.closed.wait()

