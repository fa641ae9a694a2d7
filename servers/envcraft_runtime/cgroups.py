"""The resource envelope of an episode: one cgroup per episode (memory, pids, CPU) nested under the
server's own cgroup, and one leaf per shell command inside it.

    <server's cgroup>/envcraft-<server pid>/ep-<id>/cmd-<id>

Limits set on the episode's group bind all its commands together (eight parallel commands share
one memory cap), the command's leaf has its own caps and is how the command's leftovers are
killed when it returns. Nested under the server's own cgroup, so whatever an operator sets on
the server (a systemd slice, a container) bounds every episode too.

Both cgroup versions: v2 (one hierarchy; controllers handed down through cgroup.subtree_control;
the no-internal-processes rule means the server moves itself into a leaf when its own cgroup
must delegate) and v1 (one hierarchy per controller; memory.use_hierarchy). `Host.detect()` tells
which is real: a v2 mount with no controllers beside v1 hierarchies (as on this kind of host) is
not a v2 host.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import os
import queue
import shutil
import signal
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from . import settings
from .limits import Limits

V2_CONTROLLERS = ("memory", "pids", "cpu")
V1_CONTROLLERS = ("memory", "pids", "cpu")


@dataclasses.dataclass(frozen=True)
class Hierarchy:
    version: int  # 1 or 2
    controllers: tuple[str, ...]  # what limits can be set here
    base: Path  # the server's own cgroup in this hierarchy


@dataclasses.dataclass(frozen=True)
class Containment:
    kind: str  # "cgroup2", "cgroup1" or "none"
    detail: str
    hierarchies: tuple[Hierarchy, ...] = ()

    def banner(self) -> str:
        if self.kind == "none":
            return f"containment: NO per-episode cgroup ({self.detail}); {FALLBACKS[fallback()]}"
        return f"containment: {self.kind} per-episode envelope (memory, pids, cpu) under {self.detail}"


FALLBACKS = {
    "uid": "bwrap commands run as an unprivileged uid per episode, so RLIMIT_NPROC binds (no memory or CPU cap "
           "for the episode as a whole)",
    "rlimits": "bwrap commands run under rlimits only, as the server's uid (ENVCRAFT_CONTAINMENT=rlimits; root is "
               "exempt from RLIMIT_NPROC: a fork bomb is not bounded)",
    "refuse": "the bwrap shell refuses to run commands (not root, or no setpriv: no unprivileged uid to run them as; "
              "ENVCRAFT_CONTAINMENT=rlimits accepts rlimits only)",
}


def fallback() -> str:
    """What a bwrap shell does where no cgroup can be made: 'uid' (the default where this process is root and has
    setpriv), 'rlimits' (ENVCRAFT_CONTAINMENT=rlimits) or 'refuse' (otherwise, or ENVCRAFT_CONTAINMENT=refuse)."""
    chosen = settings.current().containment
    if chosen in ("rlimits", "refuse"):
        return chosen
    return "uid" if os.geteuid() == 0 and shutil.which("setpriv") else "refuse"


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


def _read(path: Path) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


class Host:
    """Where this process's cgroups live; `root` and `proc` are parameters so a fake tree can stand in."""

    def __init__(self, root: Path | str = "/sys/fs/cgroup", proc: Path | str = "/proc/self/cgroup"):
        self.root, self.proc = Path(root), Path(proc)

    def _memberships(self) -> dict[str, str]:
        """controller (or '' for v2) -> this process's cgroup path."""
        found = {}
        for line in _read(self.proc).splitlines():
            parts = line.split(":", 2)
            if len(parts) != 3:
                continue
            _, controllers, path = parts
            for name in controllers.split(",") if controllers else [""]:
                found[name] = path
        return found

    def detect(self) -> Containment:
        member = self._memberships()
        if "" in member:
            for mount in (self.root, self.root / "unified"):
                if (mount / "cgroup.controllers").exists():
                    base = mount / member[""].lstrip("/")
                    have = _read(base / "cgroup.controllers").split()
                    if {"memory", "pids"} <= set(have) and os.access(base, os.W_OK):
                        chosen = tuple(c for c in V2_CONTROLLERS if c in have)
                        return Containment("cgroup2", str(base), (Hierarchy(2, chosen, base),))
        hierarchies = []
        for controller in V1_CONTROLLERS:
            mounts = [self.root / controller] + sorted(self.root.glob(f"*{controller}*,*")) + sorted(self.root.glob(f"*,*{controller}*"))
            mount = next((m for m in mounts if (m / "cgroup.procs").exists()), None)
            if mount is None or controller not in member:
                continue
            base = mount / member[controller].lstrip("/")
            if os.access(base, os.W_OK):
                hierarchies.append(Hierarchy(1, (controller,), base))
        if {"memory", "pids"} <= {h.controllers[0] for h in hierarchies}:
            return Containment("cgroup1", ", ".join(str(h.base) for h in hierarchies), tuple(hierarchies))
        reason = "no writable cgroup v2 with memory+pids, nor v1 memory and pids hierarchies"
        return Containment("none", reason)


_DETECTED: Containment | None = None


def containment() -> Containment:
    """What this host gives (detected once per process)."""
    global _DETECTED
    if _DETECTED is None:
        off = not settings.current().cgroups  # as on a host that gives none (tests, or by choice)
        _DETECTED = Containment("none", "turned off by ENVCRAFT_CGROUPS=off") if off else Host().detect()
    return _DETECTED


def _settings(version: int, controller: str, memory_mb: int, processes: int, cpus: float | None) -> list[tuple[str, str]]:
    if controller == "memory":
        size = str(memory_mb * 2**20)
        return [("memory.max", size), ("memory.swap.max", "0")] if version == 2 else \
            [("memory.limit_in_bytes", size), ("memory.memsw.limit_in_bytes", size)]
    if controller == "pids":
        return [("pids.max", str(processes))]
    if controller == "cpu" and cpus:
        quota = str(int(cpus * 100_000))
        return [("cpu.max", f"{quota} 100000")] if version == 2 else [("cpu.cfs_period_us", "100000"), ("cpu.cfs_quota_us", quota)]
    return []


def _apply(group: Path, version: int, controllers: tuple[str, ...], memory_mb: int, processes: int,
           cpus: float | None) -> None:
    for controller in controllers:
        for name, value in _settings(version, controller, memory_mb, processes, cpus):
            if name.endswith(("swap.max", "memsw.limit_in_bytes")) and not (group / name).exists():
                continue  # no swap accounting on this host: nothing to cap
            _write(group / name, value)


def _delegate(group: Path, controllers: tuple[str, ...]) -> None:
    """v2: hand the controllers down to group's children."""
    if controllers:
        _write(group / "cgroup.subtree_control", " ".join(f"+{c}" for c in controllers))


def _server_group(h: Hierarchy) -> Path:
    """<base>/envcraft-<pid>, made once; on v2 the base must delegate, so the server leaves it if it must."""
    group = h.base / f"envcraft-{os.getpid()}"
    if group.is_dir():
        return group
    if h.version == 2:
        missing = set(h.controllers) - set(_read(h.base / "cgroup.subtree_control").split())
        if missing:
            try:
                _delegate(h.base, h.controllers)
            except OSError:  # EBUSY: processes in base (no internal processes): move ours into a leaf first
                leaf = h.base / "envcraft-server"
                leaf.mkdir(exist_ok=True)
                _write(leaf / "cgroup.procs", str(os.getpid()))
                _delegate(h.base, h.controllers)
    else:
        with contextlib.suppress(OSError):
            _write(h.base / "memory.use_hierarchy", "1")
    group.mkdir(exist_ok=True)
    atexit.register(_kill_and_remove, group, 0.0)  # this server's envelopes go with it (the reaper takes a killed one's)
    if h.version == 2:
        _delegate(group, h.controllers)
    elif "memory" in h.controllers:
        with contextlib.suppress(OSError):
            _write(group / "memory.use_hierarchy", "1")
    return group


def _kill_and_remove(group: Path, deadline: float) -> None:
    """Kill every process in group and below, then remove the groups bottom-up (iteratively)."""
    order, todo = [], [group]
    while todo:
        current = todo.pop()
        order.append(current)
        with contextlib.suppress(OSError), os.scandir(current) as entries:  # d_type: no stat per control file
            todo += [Path(e.path) for e in entries if e.is_dir(follow_symlinks=False)]
    for current in reversed(order):
        while True:
            if (current / "cgroup.kill").exists():
                with contextlib.suppress(OSError):
                    _write(current / "cgroup.kill", "1")
            pids = _read(current / "cgroup.procs").split()
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, ValueError, PermissionError):
                    os.kill(int(pid), signal.SIGKILL)
            try:
                current.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.001)  # the killed processes are still exiting


class EpisodeCgroup:
    """One episode's envelope; `command()` makes the leaf a command runs in."""

    def __init__(self, limits: Limits, found: Containment | None = None):
        self.limits = limits
        self.containment = found or containment()
        self.groups: list[tuple[Hierarchy, Path]] = []
        name = f"ep-{uuid.uuid4().hex[:12]}"
        for h in self.containment.hierarchies:
            group = _server_group(h) / name
            group.mkdir()
            self.groups.append((h, group))
            _apply(group, h.version, h.controllers, limits.episode_memory_mb, limits.episode_processes, limits.episode_cpus)
            if h.version == 2:
                _delegate(group, h.controllers)

    def command(self) -> CommandCgroup:
        return CommandCgroup(self)

    def close(self) -> list[Path]:
        """Kill everything in the envelope and remove it; the groups still there after 5 s (processes that would
        not die), which is never expected."""
        deadline = time.monotonic() + 5
        for _, group in self.groups:
            _kill_and_remove(group, deadline)
        left = [group for _, group in self.groups if group.exists()]
        self.groups = []
        return left


class CommandCgroup:
    """A command's leaf in its episode's group: its own caps, and everything it left killed on destroy()."""

    def __init__(self, episode: EpisodeCgroup):
        self.paths: list[Path] = []
        name = f"cmd-{uuid.uuid4().hex[:12]}"
        limits = episode.limits
        for h, group in episode.groups:
            leaf = group / name
            leaf.mkdir()
            self.paths.append(leaf)
            _apply(leaf, h.version, h.controllers, limits.memory_mb, limits.processes, None)

    def enter(self) -> None:
        """Called in the child between fork and exec."""
        for path in self.paths:
            _write(path / "cgroup.procs", "0")

    def kill(self) -> bool:
        """Kill what runs in the leaf, until nothing does (or 2 s pass); the leaf stays, for destroy().
        False if something was still there at the deadline."""
        deadline = time.monotonic() + 2
        for path in self.paths:
            while True:
                if (path / "cgroup.kill").exists():
                    with contextlib.suppress(OSError):
                        _write(path / "cgroup.kill", "1")
                pids = _read(path / "cgroup.procs").split()
                if not pids:
                    break
                if time.monotonic() > deadline:
                    return False
                for pid in pids:
                    with contextlib.suppress(ProcessLookupError, ValueError, PermissionError):
                        os.kill(int(pid), signal.SIGKILL)
                time.sleep(0.001)
        return True

    def destroy(self) -> None:
        """Kill what runs in the leaf and remove it (once; later calls do nothing)."""
        deadline = time.monotonic() + 2
        paths, self.paths = self.paths, []
        for path in paths:
            _kill_and_remove(path, deadline)


def later(job: Callable[[], object]) -> None:
    """Run `job` on this process's housekeeping thread (started on first use): removing a memory cgroup or
    making the next command's leaf costs milliseconds that no command needs to wait for."""
    with _HOUSEKEEPING_LOCK:
        global _HOUSEKEEPER
        if _HOUSEKEEPER is None or not _HOUSEKEEPER.is_alive():
            _HOUSEKEEPER = threading.Thread(target=_housekeeping, name="envcraft-housekeeping", daemon=True)
            _HOUSEKEEPER.start()
    _JOBS.put(job)


def _housekeeping() -> None:
    while True:
        job = _JOBS.get()
        with contextlib.suppress(Exception):  # a failed cleanup is the reaper's (registry) to finish
            job()


_JOBS: queue.SimpleQueue = queue.SimpleQueue()
_HOUSEKEEPING_LOCK = threading.Lock()
_HOUSEKEEPER: threading.Thread | None = None


def reap(found: Containment | None = None) -> int:
    """Remove the envelopes of servers that died without cleaning up (envcraft-<pid> whose pid is gone)."""
    removed = 0
    for h in (found or containment()).hierarchies:
        with contextlib.suppress(OSError):
            for group in h.base.glob("envcraft-[0-9]*"):
                pid = int(group.name.split("-")[1])
                try:
                    os.kill(pid, 0)
                    continue
                except ProcessLookupError:
                    pass
                except PermissionError:
                    continue
                _kill_and_remove(group, time.monotonic() + 5)
                removed += not group.exists()
    return removed
