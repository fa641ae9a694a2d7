"""Docker sandbox backend: the environment's server runs inside a locked-down container, over stdio.

    launcher = DockerLauncher()          # runtime image built offline from this host (registry/docker_image.py)
    launcher = DockerLauncher(warm=2)    # plus started containers kept ready per environment (docker_pool.py)
    launcher = DockerLauncher(image="envcraft/runtime:py311")   # or one built from registry/Dockerfile

Each instance is one container, created through the Docker API; its stdin/stdout carry the MCP
stream (`docker start --attach --interactive` for a cold start, `docker attach` for a container
the warm pool started ahead of time). Inside it:

- the root filesystem is read-only; writable are /workspace (the episode workspace, bind-mounted
  from the host), a small /tmp tmpfs and the server's own /run/envcraft; the environment's folder
  is /opt/env and the runtime package it imports /opt/envcraft_runtime (on PYTHONPATH), both
  read-only; `.app/` is bind-mounted on its own, so no command can rename it away;
- no network (`--network none`), every capability dropped but CAP_SETUID/CAP_SETGID/CAP_KILL,
  no-new-privileges, memory 512 MB without swap, 128 processes, 1 CPU;
- privileges split at once (envcraft_runtime/container.py): PID 1 becomes `nobody` and reaps
  orphans, the server runs as a uid of its own, and each agent command as another uid that cannot
  write `.app/` (CLI verbs go through the operation socket, as under bwrap) and whose processes,
  daemonized ones too, are all killed when the command returns. No process stays root. Those uids
  are a block no other live container holds (docker_uids.py: without a user namespace the kernel
  counts processes per host uid, so a shared uid would let one container's fork bomb starve
  another's commands). The host hands the workspace to them first (docker_workspace.py).

The container is removed when the block exits, however it exits (normal close, server crash,
cancellation); the container is created before the `docker` client process starts, so its id is
known on every path. Containers carry the labels `envcraft.managed=1` and `envcraft.run=<pid>`
(with the process start time and host name); `reap()` removes those whose run has died, and
the first launch of a process calls it.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import socket
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import docker
import docker.errors
from docker.types import LogConfig
from envcraft.core.state import APP_DIR, InitialState
from envcraft.registry.catalog import Environment
from envcraft.registry.docker_attach import attach, engine_socket
from envcraft.registry.docker_image import MODES, REMOVED_MODES, RuntimeImage, docker_client, ensure_image
from envcraft.registry.docker_pool import WarmPool
from envcraft.registry.docker_uids import create_with_uid_block
from envcraft.registry.docker_workspace import hand_over
from envcraft.registry.instance import Instance
from envcraft.registry.workspaces import WorkspaceRoot, materialize
from envcraft_runtime.container import SERVER_TMP, UID_BLOCK_ENV, UidBlock
from envcraft_runtime.shell import RUNTIME_DIR
from mcp import Client, StdioServerParameters

LABEL_MANAGED = "envcraft.managed"
LABEL_RUN = "envcraft.run"
LABEL_RUN_START = "envcraft.run-start"
LABEL_HOST = "envcraft.host"
LABEL_ENV = "envcraft.env"
LABEL_UIDS = "envcraft.uid-base"  # the first uid of the container's block (docker_uids.py)
# What the `docker` client needs from our environment to reach the same engine.
DOCKER_ENV = ("DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG", "DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH",
              "DOCKER_API_VERSION")

# The container's first process: splits privileges, then runs the server (envcraft_runtime/container.py).
ENTRY = "import sys; from envcraft_runtime.container import main; main(sys.argv[1:])"

_runtimes: dict[str, RuntimeImage] = {}
_runtime_lock = threading.Lock()
_reaped = False


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot, to tell a live run from a reused pid."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def _run_alive(pid: int, started: str | None) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    now = _start_time(pid)
    return started is None or now is None or now == started


def run_labels() -> dict[str, str]:
    pid = os.getpid()
    return {LABEL_MANAGED: "1", LABEL_RUN: str(pid), LABEL_RUN_START: _start_time(pid) or "",
            LABEL_HOST: socket.gethostname()}


def reap(client: Any = None) -> list[str]:
    """Remove the managed containers of this host whose run (registry process) is gone."""
    client = client or docker_client()
    removed = []
    filters = {"label": [f"{LABEL_MANAGED}=1", f"{LABEL_HOST}={socket.gethostname()}"]}
    for container in client.api.containers(all=True, filters=filters):
        labels = container.get("Labels") or {}
        try:
            pid = int(labels.get(LABEL_RUN, ""))
        except ValueError:
            continue
        if not _run_alive(pid, labels.get(LABEL_RUN_START) or None):
            remove_container(client, container["Id"])
            removed.append(container["Id"])
    return removed


def remove_container(client: Any, container_id: str, wait: float = 10.0) -> None:
    """Force-remove a container and wait until the engine no longer lists it."""
    deadline = time.monotonic() + wait
    while True:
        try:
            client.api.remove_container(container_id, force=True)
        except docker.errors.NotFound:
            return
        except docker.errors.APIError as exc:  # e.g. "removal already in progress"
            if time.monotonic() > deadline:
                raise RuntimeError(f"could not remove container {container_id[:12]}: {exc}") from exc
        try:
            client.api.inspect_container(container_id)
        except docker.errors.NotFound:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"container {container_id[:12]} is still there {wait:.0f}s after removal")
        time.sleep(0.05)


def kill_container(client: Any, container_id: str) -> None:
    with contextlib.suppress(docker.errors.APIError):  # includes NotFound and "is not running"
        client.api.kill(container_id)


class DockerLauncher:
    """Each instance's server in its own container, reached over the container's stdio."""

    name = "docker"

    def __init__(self, image: str | None = None, *, mode: str = "embed", python: str = "python3",
                 memory: str = "512m", pids_limit: int = 128, cpus: float = 1.0, tmp_size: str = "64m",
                 docker_cli: str | None = None, warm: int = 0):
        """`image` None builds (or reuses) the offline runtime image in `mode` ('embed': docker_image.py);
        an explicit image (e.g. from registry/Dockerfile) runs `python` from its PATH. `warm` > 0
        keeps that many started containers ready per environment (call close() when done)."""
        if image is None and mode not in MODES:
            raise ValueError(REMOVED_MODES.get(mode, f"image mode {mode!r}: use one of {', '.join(MODES)}"))
        self.image, self.mode, self.python = image, mode, python
        self.memory, self.pids_limit, self.cpus, self.tmp_size = memory, pids_limit, cpus, tmp_size
        self.docker_cli = docker_cli or shutil.which("docker") or "docker"
        self._client: Any = None
        self.pool = WarmPool(self, warm) if warm > 0 else None

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = docker_client()
        return self._client

    def runtime(self) -> RuntimeImage:
        """The image to run, built once per process (blocking: call from a worker thread)."""
        global _reaped
        with _runtime_lock:
            if not _reaped:
                reap(self.client)
                _reaped = True
            if self.image is not None:
                return RuntimeImage(self.image, "external", self.python, "/usr/local/bin")
            if self.mode not in _runtimes:
                _runtimes[self.mode] = ensure_image(self.mode, client=self.client)
            return _runtimes[self.mode]

    def container_spec(self, env: Environment, workspace: Path, runtime: RuntimeImage,
                       uids: UidBlock) -> dict[str, Any]:
        """Keyword arguments of the Docker API's create_container for one instance (but its name,
        which claims the uid block: docker_uids.py)."""
        workspace = Path(workspace).resolve()
        env_folder = env.folder.resolve()
        entrypoint = "/opt/env/" + env.entrypoint.resolve().relative_to(env_folder).as_posix()
        binds = {str(workspace): {"bind": "/workspace", "mode": "rw"},
                 str(env_folder): {"bind": "/opt/env", "mode": "ro"},
                 str(RUNTIME_DIR): {"bind": "/opt/envcraft_runtime", "mode": "ro"}}
        binds[str(workspace / APP_DIR)] = {"bind": f"/workspace/{APP_DIR}", "mode": "rw"}  # its own mount point
        host_config = self.client.api.create_host_config(
            binds=binds,
            network_mode="none",
            read_only=True,
            tmpfs={"/tmp": f"rw,nosuid,nodev,size={self.tmp_size},mode=1777",
                   SERVER_TMP: f"rw,nosuid,nodev,size=1m,mode=0711,uid={uids.server},gid={uids.server}"},
            mem_limit=self.memory,
            memswap_limit=self.memory,
            pids_limit=self.pids_limit,
            nano_cpus=int(self.cpus * 1e9),
            cap_drop=["ALL"],
            cap_add=["SETUID", "SETGID", "KILL"],  # for container.py's split only: no process keeps root
            security_opt=["no-new-privileges"],
            init=False,  # container.py's PID 1 reaps orphans, as `nobody`
            log_config=LogConfig(type="none"),  # the MCP stream is not worth keeping twice on disk
        )
        return dict(
            image=runtime.tag,
            command=[runtime.python, "-c", ENTRY, entrypoint, "--workspace", "/workspace"],
            hostname="sandbox",
            user="0:0",  # for the first milliseconds only: container.py drops to its uids at once
            working_dir="/workspace",
            stdin_open=True,  # with detach=False: StdinOnce, so the server sees EOF when we detach
            detach=False,
            environment={"HOME": "/tmp", "LANG": "C.UTF-8", "PATH": runtime.path, "PYTHONPATH": "/opt",
                         "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1", UID_BLOCK_ENV: str(uids.base)},
            labels={**run_labels(), LABEL_ENV: env.name, LABEL_UIDS: str(uids.base)},
            host_config=host_config,
        )

    def create(self, env: Environment, workspace: Path) -> tuple[str, UidBlock]:
        """A container for this workspace (not started) under a uid block of its own, to which the
        workspace is handed before it starts."""
        runtime = self.runtime()
        container_id, uids = create_with_uid_block(
            self.client, lambda block: self.container_spec(env, workspace, runtime, block))
        try:
            hand_over(workspace, uids)
        except BaseException:
            remove_container(self.client, container_id)
            raise
        return container_id, uids

    def parameters(self, container_id: str, *, started: bool = False) -> StdioServerParameters:
        keep = {k: os.environ[k] for k in DOCKER_ENV if k in os.environ}
        args = (["attach", "--sig-proxy=false", container_id] if started
                else ["start", "--attach", "--interactive", container_id])
        return StdioServerParameters(command=self.docker_cli, args=args, env=keep)

    @asynccontextmanager
    async def connect(self, env: Environment, workspace: Path) -> AsyncIterator[Client]:
        async with self._cold(env, workspace) as (client, _uids):
            yield client

    @asynccontextmanager
    async def _cold(self, env: Environment, workspace: Path) -> AsyncIterator[tuple[Client, UidBlock]]:
        # Not abandoned on cancellation: the id is always known, so attached() can remove it.
        container_id, uids = await anyio.to_thread.run_sync(self.create, env, workspace)
        async with self.attached(container_id) as client:
            yield client, uids

    @asynccontextmanager
    async def attached(self, container_id: str, *, started: bool = False) -> AsyncIterator[Client]:
        """The MCP client of a container; the container is removed when the block exits."""
        engine = engine_socket() if started else None
        server = attach(container_id, engine) if engine else self.parameters(container_id, started=started)
        try:
            async with Client(server, raise_exceptions=False) as client:
                try:
                    yield client
                except BaseException:
                    # Error or cancellation: the server may be mid-command and slow to see stdin
                    # close; kill it now instead of waiting out the stdio client's grace periods.
                    with anyio.CancelScope(shield=True):
                        await anyio.to_thread.run_sync(kill_container, self.client, container_id)
                    raise
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(remove_container, self.client, container_id)

    @asynccontextmanager
    async def acquire(self, env: Environment, root: WorkspaceRoot,
                      initial: InitialState | None = None) -> AsyncIterator[Instance]:
        """An instance for launch(): a warm container when one is ready, else a cold start."""
        warm = self.pool.take(env, root) if self.pool else None
        if warm is None:
            workspace = await anyio.to_thread.run_sync(root.checkout, env.name, env.seed, initial)
        else:
            workspace = warm.workspace
        try:
            if warm is None:
                async with self._cold(env, workspace) as (client, uids):
                    if self.pool:
                        self.pool.fill(env, root)
                    yield Instance(env, workspace, client, initial, after_reset=functools.partial(hand_over, uids=uids))
            else:
                if initial is not None and (initial.files or initial.rows or initial.updates):
                    await anyio.to_thread.run_sync(_patch, env, workspace, initial, warm.uids)
                async with self.attached(warm.container_id, started=True) as client:
                    self.pool.fill_later(env, root)  # top up in the background, once this one is served
                    yield Instance(env, workspace, client, initial,
                                   after_reset=functools.partial(hand_over, uids=warm.uids))
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(root.checkin, env.seed, workspace)

    def remove(self, container_id: str) -> None:
        remove_container(self.client, container_id)

    def close(self) -> None:
        """Remove the warm containers (a run killed before this leaves them to reap())."""
        if self.pool:
            self.pool.close()


def _patch(env: Environment, workspace: Path, initial: InitialState, uids: UidBlock) -> None:
    materialize(env.seed, workspace, initial)
    hand_over(workspace, uids)
