"""How an environment instance is launched: one protocol, one class per way.

A launcher turns (environment, workspace) into a connected MCP client. Reset and grading never
go through it: they act on the workspace from outside, where the agent cannot reach.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from mcp import Client, StdioServerParameters

from registry.catalog import Environment
from registry.workspaces import InitialState, WorkspaceRoot, materialize


class Launcher(Protocol):
    name: str

    def connect(self, env: Environment, workspace: Path) -> AbstractAsyncContextManager[Client]: ...


def load_server_module(env: Environment) -> types.ModuleType:
    """Import servers/<env>/server.py as a package module, so its relative imports work."""
    package = f"envcraft_env_{env.name}"
    if package not in sys.modules:
        module = types.ModuleType(package)
        module.__path__ = [str(env.folder)]
        sys.modules[package] = module
    return importlib.import_module(f"{package}.server")


class InProcessLauncher:
    """The server object runs in this process, over the SDK's in-memory transport: fastest.

    Building a server (registering its tools) costs ~25 ms, so servers are kept per workspace
    path: a pooled workspace that comes back for a new episode finds its server ready. A server
    holds no episode state of its own; all of it is in the workspace, which is rebuilt between
    episodes.
    """

    name = "inprocess"

    def __init__(self, max_servers: int = 1024):
        self.max_servers = max_servers
        self._servers: dict[Path, object] = {}

    def server(self, env: Environment, workspace: Path) -> object:
        server = self._servers.get(workspace)
        if server is None:
            if len(self._servers) >= self.max_servers:  # drop servers of removed workspaces first
                gone = [path for path in self._servers if not path.exists()] or [next(iter(self._servers))]
                for path in gone:
                    self._servers.pop(path)
            server = self._servers[workspace] = load_server_module(env).build_server(workspace)
        return server

    def forget(self, workspace: Path) -> None:
        self._servers.pop(workspace, None)

    @asynccontextmanager
    async def connect(self, env: Environment, workspace: Path) -> AsyncIterator[Client]:
        async with Client(self.server(env, workspace), raise_exceptions=False) as client:
            yield client


class StdioLauncher:
    """`python server.py --workspace W` as a child process over stdio: the standalone path."""

    name = "stdio"

    def __init__(self, python: str = sys.executable):
        self.python = python

    def parameters(self, env: Environment, workspace: Path) -> StdioServerParameters:
        keep = {k: os.environ[k] for k in ("PATH", "HOME", "LANG", "ENVCRAFT_SANDBOX") if k in os.environ}
        return StdioServerParameters(command=self.python, args=[str(env.entrypoint), "--workspace", str(workspace)],
                                     env=keep, cwd=str(env.folder))

    @asynccontextmanager
    async def connect(self, env: Environment, workspace: Path) -> AsyncIterator[Client]:
        async with Client(self.parameters(env, workspace)) as client:
            yield client


def _docker_launcher() -> Launcher:
    """Imported on use, so `import registry.launch` does not import the Docker SDK."""
    from registry.docker_launcher import DockerLauncher

    return DockerLauncher()


LAUNCHERS: dict[str, Callable[[], Launcher]] = {"inprocess": InProcessLauncher, "stdio": StdioLauncher,
                                                "docker": _docker_launcher}


def make_launcher(name: str) -> Launcher:
    if name not in LAUNCHERS:
        raise ValueError(f"unknown launcher {name!r}: choose one of {', '.join(LAUNCHERS)}")
    return LAUNCHERS[name]()


@dataclass
class Instance:
    """A live environment instance for one episode: the agent plane (client) and the workspace."""

    env: Environment
    workspace: Path
    client: Client
    initial: InitialState | None

    def reset(self) -> None:
        """Control plane: put the workspace back to the episode's initial state."""
        materialize(self.env.seed, self.workspace, self.initial)


@asynccontextmanager
async def launch(env: Environment, launcher: Launcher, root: WorkspaceRoot,
                 initial: InitialState | None = None) -> AsyncIterator[Instance]:
    """A fresh instance; when the block exits, however it exits, its server connection is closed and
    its workspace is rebuilt from the seed for the pool (or removed)."""
    workspace = root.checkout(env.name, env.seed, initial)
    try:
        async with launcher.connect(env, workspace) as client:
            yield Instance(env, workspace, client, initial)
    finally:
        if not root.checkin(env.seed, workspace) and hasattr(launcher, "forget"):
            launcher.forget(workspace)
