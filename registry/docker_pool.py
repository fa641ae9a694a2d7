"""Warm Docker containers: started ahead of time, each with its own workspace and its server
already imported and waiting on stdin, so acquiring one costs an attach and the MCP handshake
(tens of milliseconds) instead of a container start plus an interpreter start (over a second).

A container is ready once its server process has renamed itself (envcraft_runtime.container's
READY_NAME, seen in /proc from the host): until then it is not handed out. The pool refills on a
background thread shortly after every take (REFILL_DELAY: starting a container and importing its
server costs over a second of CPU, and begun at once it slowed the very acquire it refills for from
~50 ms to 104-177 ms on two cores); each container serves one episode and is removed after it,
so nothing an episode did reaches the next. A run killed without close() leaves its warm
containers to the next run's reap() (they carry the run's labels).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from envcraft.registry.catalog import Environment
from envcraft.registry.workspaces import WorkspaceRoot, settle
from envcraft_runtime.container import READY_NAME, UidBlock

READY_SECONDS = 120.0
REFILL_DELAY = 1.0  # seconds after a take: the episode's attach, handshake and first calls are done by then


@dataclass
class Warm:
    container_id: str
    workspace: Path
    uids: UidBlock


def server_ready(client: Any, container_id: str) -> bool:
    """Is the container's server past its imports? Its PID 1's child carries READY_NAME."""
    state = client.api.inspect_container(container_id)["State"]
    if not state.get("Running"):
        raise RuntimeError(f"warm container {container_id[:12]} stopped while starting (exit {state.get('ExitCode')})")
    pid = state.get("Pid")
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        return any(Path(f"/proc/{child}/comm").read_text().strip().encode() == READY_NAME for child in children)
    except OSError:  # an engine on another host: its /proc is not ours to read
        return state.get("Running", False)


class WarmPool:
    def __init__(self, launcher: Any, size: int):
        self.launcher, self.size = launcher, size
        self._ready: dict[tuple[str, int], list[Warm]] = {}
        self._filling: set[tuple[str, int]] = set()
        self._roots: dict[tuple[str, int], WorkspaceRoot] = {}
        self._changed = threading.Condition()
        self._closed = False
        self._threads: list[threading.Thread] = []
        self.errors: list[str] = []

    @staticmethod
    def _key(env: Environment, root: WorkspaceRoot) -> tuple[str, int]:
        return env.name, id(root)

    def take(self, env: Environment, root: WorkspaceRoot) -> Warm | None:
        with self._changed:
            ready = self._ready.get(self._key(env, root))
            return ready.pop(0) if ready else None

    def ready(self, env: Environment, root: WorkspaceRoot) -> int:
        with self._changed:
            return len(self._ready.get(self._key(env, root), []))

    def wait_ready(self, env: Environment, root: WorkspaceRoot, count: int | None = None,
                   timeout: float = READY_SECONDS) -> bool:
        """Start filling if needed and block until `count` (default: size) containers are ready."""
        self.fill(env, root)
        wanted = self.size if count is None else count
        with self._changed:
            return self._changed.wait_for(lambda: len(self._ready.get(self._key(env, root), [])) >= wanted
                                          or bool(self.errors), timeout)

    def fill_later(self, env: Environment, root: WorkspaceRoot, delay: float = REFILL_DELAY) -> None:
        """fill(), once the episode just handed out has been served its first answers."""
        timer = threading.Timer(delay, self.fill, (env, root))
        timer.daemon = True
        timer.start()

    def fill(self, env: Environment, root: WorkspaceRoot) -> None:
        """Top the environment's warm set up to `size`, on a background thread."""
        key = self._key(env, root)
        with self._changed:
            if self._closed or key in self._filling:
                return
            self._filling.add(key)
            self._roots[key] = root
        thread = threading.Thread(target=self._fill, args=(env, root, key), name=f"envcraft-warm-{env.name}",
                                  daemon=True)
        self._threads.append(thread)
        thread.start()

    def _fill(self, env: Environment, root: WorkspaceRoot, key: tuple[str, int]) -> None:
        try:
            while True:
                with self._changed:
                    if self._closed or len(self._ready.get(key, [])) >= self.size:
                        return
                warm = self._start(env, root)
                with self._changed:
                    if self._closed:
                        self._discard(warm, root)
                        return
                    self._ready.setdefault(key, []).append(warm)
                    self._changed.notify_all()
        except Exception as exc:  # noqa: BLE001 - acquire falls back to a cold start; the error is kept
            with self._changed:
                self.errors.append(f"{env.name}: {type(exc).__name__}: {exc}")
                self._changed.notify_all()
        finally:
            with self._changed:
                self._filling.discard(key)

    def _start(self, env: Environment, root: WorkspaceRoot) -> Warm:
        workspace = root.checkout(env.name, env.seed)
        container_id = None
        try:
            container_id, uids = self.launcher.create(env, workspace)  # handed over to the container's uids
            settle(workspace)  # a pure seed copy: a later reset compares against it as handed over
            self.launcher.client.api.start(container_id)
            deadline = time.monotonic() + READY_SECONDS
            while not server_ready(self.launcher.client, container_id):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the {env.name} server in {container_id[:12]} was not ready "
                                       f"after {READY_SECONDS:.0f}s")
                time.sleep(0.02)
            return Warm(container_id, workspace, uids)
        except BaseException:
            if container_id:
                self.launcher.remove(container_id)
            self._discard(None, root, workspace)
            raise

    def _discard(self, warm: Warm | None, root: WorkspaceRoot, workspace: Path | None = None) -> None:
        if warm is not None:
            self.launcher.remove(warm.container_id)
            workspace = warm.workspace
        if workspace is not None:
            root.discard(workspace)

    def close(self) -> None:
        """Remove every warm container, waiting for those being started."""
        with self._changed:
            self._closed = True
        for thread in self._threads:
            thread.join(timeout=READY_SECONDS)
        with self._changed:
            leftovers = [(warm, self._roots[key]) for key, warms in self._ready.items() for warm in warms]
            self._ready.clear()
        for warm, root in leftovers:
            try:
                self._discard(warm, root)
            except Exception as exc:  # noqa: BLE001 - the next run's reap() removes what is left
                self.errors.append(f"close: {exc}")
