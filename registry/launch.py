"""How an environment instance is launched: one protocol, one class per way.

A launcher turns (environment, workspace) into a connected MCP client. Reset and grading never
go through it: they act on the workspace from outside, where the agent cannot reach.
"""

from __future__ import annotations

import importlib
import os
import shutil
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
    """The server object runs in this process, over the SDK's in-memory transport: fastest."""

    name = "inprocess"

    @asynccontextmanager
    async def connect(self, env: Environment, workspace: Path) -> AsyncIterator[Client]:
        server = load_server_module(env).build_server(workspace)
        async with Client(server, raise_exceptions=False) as client:
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
    """A fresh instance; its server and workspace are gone when the block exits, however it exits."""
    workspace = root.create(env.name)
    try:
        materialize(env.seed, workspace, initial)
        async with launcher.connect(env, workspace) as client:
            yield Instance(env, workspace, client, initial)
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
