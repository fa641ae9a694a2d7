"""What both farms share: each episode's connections held in a task of their own, tool routing by the
exposed name, a per-call timeout, and typed failures.

A subclass says how an episode's environments are opened (`_open`), graded and released.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

import anyio
from envcraft.core.grading import Grade
from envcraft.harness.client import EpisodeInfo, ToolResult, episode_tools, parse_arguments, reply_text
from envcraft.harness.errors import InfraFailure, SandboxFailure, ServerFailure, TaskFailure, leaf
from envcraft.harness.schema_cache import share_output_validators

SHELL_TOOLS = {"run_shell"}  # an unexpected error in these is the sandbox's, not the agent's


@dataclass
class Opened:
    """An episode's environments, connected: what `_open` returns."""

    id: str
    task_id: str
    turns: list[str]
    clients: dict[str, Any]  # env -> MCP client, in the task's environment order
    urls: dict[str, str] = field(default_factory=dict)
    state: Any = None  # the subclass's own (instances, baselines, ...)


@dataclass
class Live:
    info: EpisodeInfo | None = None
    opened: Opened | None = None
    routes: dict[str, tuple[str, Any, str]] = field(default_factory=dict)  # exposed name -> (env, client, tool)
    stop: anyio.Event = field(default_factory=anyio.Event)
    closed: anyio.Event = field(default_factory=anyio.Event)
    teardown_error: BaseException | None = None


class FarmBase:
    def __init__(self, tool_seconds: float = 120.0):
        self.tool_seconds = tool_seconds
        self.live: dict[str, Live] = {}
        self._group: anyio.abc.TaskGroup | None = None

    async def __aenter__(self):
        self._group = anyio.create_task_group()
        await self._group.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        for live in list(self.live.values()):
            live.stop.set()
        await self._group.__aexit__(*exc)

    # ------------------------------------------------------------ subclass hooks

    async def _open(self, stack: contextlib.AsyncExitStack, task: Any) -> Opened:
        raise NotImplementedError

    async def _grade(self, opened: Opened) -> Grade:
        raise NotImplementedError

    # ------------------------------------------------------------ the API

    async def create(self, task: Any) -> EpisodeInfo:
        if self._group is None:
            raise RuntimeError("use the farm as `async with farm:` before creating episodes")
        live = Live()
        failed: list[BaseException] = []

        async def hold(*, task_status=anyio.TASK_STATUS_IGNORED) -> None:
            try:
                async with contextlib.AsyncExitStack() as stack:
                    opened = await self._open(stack, task)
                    await self._list(live, opened)
                    self.live[opened.id] = live
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
            cause = leaf(failed[0])
            if isinstance(cause, InfraFailure):
                raise cause
            raise ServerFailure(f"starting the episode failed: {type(cause).__name__}: {cause}") from cause
        return live.info

    async def _list(self, live: Live, opened: Opened) -> None:
        """Ask each environment for its tools; route the exposed names (at creation, and after a turn that
        changed a benchmark episode's tools)."""
        listed = []
        for env, client in opened.clients.items():
            listed.append((env, (await client.list_tools()).tools))
            share_output_validators(client)
        exposed, tools = episode_tools(listed)
        live.routes = {name: (key.split("/", 1)[0], opened.clients[key.split("/", 1)[0]],
                              key.split("/", 1)[1]) for key, name in exposed.items()}
        live.opened = opened
        live.info = EpisodeInfo(id=opened.id, task_id=opened.task_id, envs=list(opened.clients),
                                turns=opened.turns, tools=tools, exposed=exposed, urls=opened.urls,
                                instructions={env: client.instructions or "" for env, client in opened.clients.items()})

    def _server_decides(self, opened: Opened) -> bool:
        """Whether a call to a name the episode does not list goes to its one server anyway: a benchmark whose
        own executor runs such calls (BFCL runs a function a later turn first offers), not ours."""
        return False

    async def _begin_turn(self, opened: Opened, index: int) -> bool:
        """Tell the episode's servers that user turn `index` opens; True if its tools changed. Our own
        environments do not care; a benchmark's episode may (BFCL's missing-function turns)."""
        return False

    async def begin_turn(self, episode_id: str, index: int) -> list[dict[str, Any]]:
        """Control plane: user turn `index` opens. Returns the episode's tools for that turn (OpenAI format)."""
        live = self._live(episode_id)
        if await self._begin_turn(live.opened, index):
            await self._list(live, live.opened)
        return live.info.tools

    def _live(self, episode_id: str) -> Live:
        live = self.live.get(episode_id)
        if live is None:
            raise TaskFailure(f"no live episode {episode_id!r}: it was deleted or never created")
        return live

    async def call_tool(self, episode_id: str, name: str, arguments: str | dict[str, Any] | None) -> ToolResult:
        """One tool call. Malformed calls come back as error replies the agent reads, never as crashes;
        a broken or hung server raises ServerFailure, a broken shell sandbox SandboxFailure."""
        live = self._live(episode_id)
        parsed = parse_arguments(name, arguments)
        if isinstance(parsed, ToolResult):
            return parsed
        if name not in live.routes and self._server_decides(live.opened):
            env, client = next(iter(live.opened.clients.items()))
            live.routes[name] = (env, client, name)  # the server answers for a name it does not list
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
        # caller stops waiting instead (the thread finishes in the background; the episode is failed).
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
        if result.is_error and local in SHELL_TOOLS and text.strip() == f"Error executing tool {local}":
            # The SDK's bare text for a crash: the shell itself broke. A ToolError (an empty command, say) reads
            # "Error executing tool run_shell: <what to do>" and is the agent's to read, not a failed sandbox.
            raise SandboxFailure(f"{env} shell: {text} (is bubblewrap installed? --sandbox process is for development)")
        return ToolResult(name=name, text=text, is_error=bool(result.is_error), seconds=time.perf_counter() - start)

    async def grade(self, episode_id: str) -> Grade:
        return await self._grade(self._live(episode_id).opened)

    async def delete(self, episode_id: str) -> None:
        live = self.live.pop(episode_id, None)
        if live is not None:
            live.stop.set()
            with anyio.move_on_after(5):  # a tool stuck in a worker thread finishes its teardown later
                await live.closed.wait()
