"""Docker sandbox backend: the environment's server runs inside a locked-down container, over stdio.

    launcher = DockerLauncher()          # runtime image built offline from this host (registry/docker_image.py)
    launcher = DockerLauncher(image="envcraft/runtime:py311")   # or one built from registry/Dockerfile

Each instance is one container, created through the Docker API and then attached with
`docker start --attach --interactive`, whose stdin/stdout carry the MCP stream. Inside it:

- the root filesystem is read-only; writable are /workspace (the episode workspace, bind-mounted
  from the host) and a small /tmp tmpfs; the environment's folder is /opt/env and the runtime
  package it imports /opt/envcraft_runtime (on PYTHONPATH), both read-only;
- no network (`--network none`), all capabilities dropped, no-new-privileges, memory 512 MB
  without swap, 128 processes, 1 CPU, docker-init as PID 1 so orphans are reaped;
- the server runs as the host user's uid:gid, so the files it writes stay the host's to read,
  reset and delete;
- the container is the sandbox, so the server's shell uses the `process` backend
  (ENVCRAFT_SANDBOX=process) and still applies its own per-command rlimits and timeouts.

The container is removed when the block exits, however it exits (normal close, server crash,
cancellation); the container is created before the `docker` client process starts, so its id is
known on every path. Containers carry the labels `envcraft.managed=1` and `envcraft.run=<pid>`
(with the process start time and host name); `reap()` removes those whose run has died, and
the first launch of a process calls it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import threading
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import docker
import docker.errors
from docker.types import LogConfig
from envcraft_runtime.shell import RUNTIME_DIR
from mcp import Client, StdioServerParameters

from envcraft.registry.catalog import Environment
from envcraft.registry.docker_image import RuntimeImage, docker_client, ensure_image

LABEL_MANAGED = "envcraft.managed"
LABEL_RUN = "envcraft.run"
LABEL_RUN_START = "envcraft.run-start"
LABEL_HOST = "envcraft.host"
LABEL_ENV = "envcraft.env"
# What the `docker` client needs from our environment to reach the same engine.
DOCKER_ENV = ("DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG", "DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH",
              "DOCKER_API_VERSION")

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
                 docker_cli: str | None = None):
        """`image` None builds (or reuses) the offline runtime image in `mode` ('embed' or 'bind');
        an explicit image (e.g. from registry/Dockerfile) runs `python` from its PATH."""
        self.image, self.mode, self.python = image, mode, python
        self.memory, self.pids_limit, self.cpus, self.tmp_size = memory, pids_limit, cpus, tmp_size
        self.docker_cli = docker_cli or shutil.which("docker") or "docker"
        self._client: Any = None

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

    def container_spec(self, env: Environment, workspace: Path, runtime: RuntimeImage) -> dict[str, Any]:
        """Keyword arguments of the Docker API's create_container for one instance."""
        workspace = Path(workspace).resolve()
        env_folder = env.folder.resolve()
        entrypoint = "/opt/env/" + env.entrypoint.resolve().relative_to(env_folder).as_posix()
        binds = {str(workspace): {"bind": "/workspace", "mode": "rw"},
                 str(env_folder): {"bind": "/opt/env", "mode": "ro"},
                 str(RUNTIME_DIR): {"bind": "/opt/envcraft_runtime", "mode": "ro"}}
        for mount in runtime.mounts:
            binds[mount] = {"bind": mount, "mode": "ro"}
        host_config = self.client.api.create_host_config(
            binds=binds,
            network_mode="none",
            read_only=True,
            tmpfs={"/tmp": f"rw,nosuid,nodev,size={self.tmp_size},mode=1777"},
            mem_limit=self.memory,
            memswap_limit=self.memory,
            pids_limit=self.pids_limit,
            nano_cpus=int(self.cpus * 1e9),
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            init=True,
            log_config=LogConfig(type="none"),  # the MCP stream is not worth keeping twice on disk
        )
        return dict(
            image=runtime.tag,
            command=[runtime.python, entrypoint, "--workspace", "/workspace"],
            name=f"envcraft-{env.name}-{os.getpid()}-{uuid.uuid4().hex[:8]}",
            hostname="sandbox",
            user=f"{os.getuid()}:{os.getgid()}",
            working_dir="/workspace",
            stdin_open=True,  # with detach=False: StdinOnce, so the server sees EOF when we detach
            detach=False,
            environment={"ENVCRAFT_SANDBOX": "process", "HOME": "/tmp", "LANG": "C.UTF-8",
                         "PATH": runtime.path, "PYTHONPATH": "/opt", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"},
            labels={**run_labels(), LABEL_ENV: env.name},
            host_config=host_config,
        )

    def create(self, env: Environment, workspace: Path) -> str:
        runtime = self.runtime()
        return self.client.api.create_container(**self.container_spec(env, workspace, runtime))["Id"]

    def parameters(self, container_id: str) -> StdioServerParameters:
        keep = {k: os.environ[k] for k in DOCKER_ENV if k in os.environ}
        return StdioServerParameters(command=self.docker_cli,
                                     args=["start", "--attach", "--interactive", container_id], env=keep)

    @asynccontextmanager
    async def connect(self, env: Environment, workspace: Path) -> AsyncIterator[Client]:
        # Not abandoned on cancellation: the id is always known, so the finally below can remove it.
        container_id = await anyio.to_thread.run_sync(self.create, env, workspace)
        try:
            async with Client(self.parameters(container_id), raise_exceptions=False) as client:
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
