"""How an environment instance is launched: one protocol, one class per way, chosen by name from LAUNCHERS.

A launcher acquires an instance: a workspace and an MCP client connected to the environment's server acting on it.
The in-process and stdio launchers check a workspace out of the pool and connect a server to it (`connect`); the
docker launcher's warm containers come with their workspaces. Reset and grading never go through a launcher:
they act on the workspace from outside, where the agent cannot reach.
"""

from __future__ import annotations

import contextvars
import importlib
import os
import sys
import types
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, Protocol

import anyio
import anyio.to_thread
from envcraft.core.state import InitialState
from envcraft.registry.catalog import Environment
from envcraft.registry.instance import Instance
from envcraft.registry.settings import Settings
from envcraft.registry.workspaces import WorkspaceRoot
from envcraft_runtime import WORKSPACE
from envcraft_runtime.settings import configure as configure_runtime
from mcp import Client, StdioServerParameters


class Launcher(Protocol):
    name: str

    def acquire(self, env: Environment, root: WorkspaceRoot,
                initial: InitialState | None) -> AbstractAsyncContextManager[Instance]:
        """A fresh instance of `env` started from `initial`; when the block exits, however it exits, its server
        connection is closed and its workspace given back (rebuilt from the seed for the pool, or removed)."""
        ...


class PooledLauncher:
    """A launcher whose instance is a pooled workspace with a server connected to it: subclasses say how the
    server is connected (`connect`)."""

    name: str

    def connect(self, env: Environment, workspace: Path) -> AbstractAsyncContextManager[Client]:
        raise NotImplementedError

    @asynccontextmanager
    async def acquire(self, env: Environment, root: WorkspaceRoot,
                      initial: InitialState | None = None) -> AsyncIterator[Instance]:
        workspace = root.checkout(env.name, env.seed, initial)
        try:
            async with self.connect(env, workspace) as client:
                yield Instance(env, workspace, client, initial)
        finally:
            # Off the event loop (an agent can leave 100,000 files to remove), and finished even when cancelled.
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(root.checkin, env.seed, workspace)


def package_name(env: Environment) -> str:
    return f"envcraft_env_{env.name}"


def forget_server_module(env: Environment) -> None:
    """Drop the imported modules of `env`'s package, so the next load imports its folder afresh."""
    package = package_name(env)
    for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[name]


def load_server_module(env: Environment) -> types.ModuleType:
    """Import servers/<env>/server.py as a package module, so its relative imports work."""
    package = package_name(env)
    if package in sys.modules and list(sys.modules[package].__path__) != [str(env.folder)]:
        forget_server_module(env)  # another build of the same environment (a staging or test folder): not this one
    if package not in sys.modules:
        module = types.ModuleType(package)
        module.__path__ = [str(env.folder)]
        sys.modules[package] = module
    return importlib.import_module(f"{package}.server")


class InProcessLauncher(PooledLauncher):
    """Servers run in this process, over the SDK's in-memory transport: fastest.

    Building a server (registering its tools) costs tens of milliseconds, so each environment's
    server is built once and shared by all its episodes: a connection names its episode's
    workspace through the runtime's `envcraft_runtime.WORKSPACE` context variable, which every task
    serving that connection inherits. A tool reached without one refuses to act.

    Given settings, the servers of this process take their runtime part (sandbox, warm shell, ...): passed in,
    never through the environment. Without, they keep what the process has (its environment, or what an
    earlier launcher passed in).
    """

    name = "inprocess"

    def __init__(self, settings: Settings | None = None) -> None:
        if settings is not None:
            configure_runtime(settings.runtime)
        self._servers: dict[str, object] = {}
        self._listings: dict[str, Any] = {}  # env -> the tools/list answer of its shared server

    def server(self, env: Environment) -> object:
        if env.name not in self._servers:
            self._servers[env.name] = load_server_module(env).build_server()
        return self._servers[env.name]

    @staticmethod
    def workspace_variable(env: Environment) -> contextvars.ContextVar:
        return WORKSPACE

    @asynccontextmanager
    async def connect(self, env: Environment, workspace: Path) -> AsyncIterator[Client]:
        async with Client(self.server(env), raise_exceptions=False) as client:
            yield BoundClient(client, self.workspace_variable(env), workspace, self._listings, env.name)


class BoundClient:
    """An in-memory client whose every request runs with its episode's workspace bound.

    Over the in-memory transport a tool runs in the context of the task that calls it, so the
    binding is made per request: two episodes driven from one task still act on their own
    workspaces.
    """

    def __init__(self, client: Client, variable: contextvars.ContextVar, workspace: Path,
                 listings: dict[str, Any] | None = None, key: str = ""):
        self._client, self._variable, self.workspace = client, variable, workspace
        self._listings, self._key = listings if listings is not None else {}, key

    async def _bound(self, method: str, *args: Any, **kwargs: Any) -> Any:
        token = self._variable.set(self.workspace)
        try:
            return await getattr(self._client, method)(*args, **kwargs)
        finally:
            self._variable.reset(token)

    async def call_tool(self, *args: Any, **kwargs: Any) -> Any:
        return await self._bound("call_tool", *args, **kwargs)

    async def list_tools(self, *args: Any, **kwargs: Any) -> Any:
        """The shared server's listing is the same for every connection: after the first, each new session is
        handed that answer (as the SDK's response cache would serve it, minus its deep copy and serialization
        round trip, ~10 ms for a catalog server) and absorbs it as if it had asked."""
        listing = self._listings.get(self._key)
        absorb = getattr(self._client.session, "_absorb_tool_listing", None)  # mcp 2.3's; absent: ask every time
        if args or kwargs or listing is None or absorb is None:
            result = await self._bound("list_tools", *args, **kwargs)
            if not (args or kwargs) and result.next_cursor is None:
                self._listings[self._key] = result.model_copy()
            return result
        return absorb(listing.model_copy(), complete=True)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


class StdioLauncher(PooledLauncher):
    """`python server.py --workspace W` as a child process over stdio: the standalone path."""

    name = "stdio"

    def __init__(self, settings: Settings | None = None, python: str = sys.executable):
        self.settings = settings or Settings.from_env()
        self.python = python

    def parameters(self, env: Environment, workspace: Path) -> StdioServerParameters:
        # The child gets the runtime settings and a run's marker (how tests find a run's processes) in its own
        # environment, which is how a process of its own learns them; no secrets pass.
        keep = {k: os.environ[k] for k in ("PATH", "HOME", "LANG") if k in os.environ}
        keep |= self.settings.runtime.to_environ()
        return StdioServerParameters(command=self.python, args=[str(env.entrypoint), "--workspace", str(workspace)],
                                     env=keep, cwd=str(env.folder))

    @asynccontextmanager
    async def connect(self, env: Environment, workspace: Path) -> AsyncIterator[Client]:
        async with Client(self.parameters(env, workspace)) as client:
            yield client


def _docker_launcher(settings: Settings | None = None) -> Launcher:
    """Imported on use, so `import registry.launch` does not import the Docker SDK. Its containers' shells run
    in the container itself (the runtime's sandbox is `container` there), so only the other settings apply."""
    from envcraft.registry.docker_launcher import DockerLauncher

    return DockerLauncher()


LAUNCHERS: dict[str, Callable[[Settings | None], Launcher]] = {
    "inprocess": InProcessLauncher, "stdio": StdioLauncher, "docker": _docker_launcher}


def make_launcher(name: str, settings: Settings | None = None) -> Launcher:
    if name not in LAUNCHERS:
        hint = " (bwrap and process are sandboxes: pass them as --sandbox)" if name in ("bwrap", "process") else ""
        raise ValueError(f"unknown launcher {name!r}: choose one of {', '.join(LAUNCHERS)}{hint}")
    return LAUNCHERS[name](settings)


@asynccontextmanager
async def launch(env: Environment, launcher: Launcher, root: WorkspaceRoot,
                 initial: InitialState | None = None) -> AsyncIterator[Instance]:
    """A fresh instance from `launcher`; when the block exits, however it exits, its server connection is closed
    and its workspace is rebuilt from the seed for the pool (or removed)."""
    async with launcher.acquire(env, root, initial) as instance:
        yield instance
