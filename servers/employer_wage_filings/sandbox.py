"""The contained shell of a claw workspace: agent commands run bounded, in a sandbox of their own.

Standard library only. Backends: `bwrap` (bubblewrap namespaces: no network, read-only system,
only the workspace writable; default where installed) and `process` (plain subprocesses with
rlimits: development only, NOT isolating). Every command also runs in its own cgroup (pids and
memory) where the host allows it, and under rlimits (CPU, memory, files, file size).

Under bwrap the app state (`.app/`) is mounted read-only: the environment's CLI verbs reach it
through `OperationSocket`, a Unix socket served by the trusted server, so the shell can change
app state only through the same checked operations as the MCP tools.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import resource
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

APP_DIR = ".app"
SOCKET_ENV = "ENVCRAFT_OPS_SOCKET"


class ToolFailure(Exception):
    """A failure the agent can act on; the message says what to do next."""


@dataclasses.dataclass(frozen=True)
class Limits:
    wall_seconds: float = 20.0
    cpu_seconds: int = 10
    memory_mb: int = 512
    processes: int = 64
    open_files: int = 256
    file_mb: int = 64
    output_bytes: int = 64_000


@dataclasses.dataclass
class ShellResult:
    exit_code: int
    stdout: str
    stderr: str
    timed_out: bool = False
    truncated: bool = False

    def render(self) -> str:
        parts = [f"exit code: {self.exit_code}"]
        if self.timed_out:
            parts.append("the command hit its time limit and was killed")
        if self.truncated:
            parts.append("output was cut at the size limit")
        if self.stdout:
            parts.append("stdout:\n" + self.stdout)
        if self.stderr:
            parts.append("stderr:\n" + self.stderr)
        return "\n".join(parts)


class _Cgroup:
    """Per-command cgroup (v1 pids + memory) so a fork or memory bomb hits a wall, not the host."""

    ROOT = Path("/sys/fs/cgroup")

    def __init__(self, limits: Limits):
        self.paths: list[Path] = []
        name = f"envcraft/{uuid.uuid4().hex[:12]}"
        for controller, setting, value in (
            ("pids", "pids.max", str(limits.processes)),
            ("memory", "memory.limit_in_bytes", str(limits.memory_mb * 2**20)),
        ):
            path = self.ROOT / controller / name
            try:
                path.mkdir(parents=True)
                (path / setting).write_text(value)
                self.paths.append(path)
            except OSError:
                continue

    def enter(self) -> None:
        """Called in the child between fork and exec."""
        for path in self.paths:
            (path / "cgroup.procs").write_text("0")

    def destroy(self) -> None:
        for path in self.paths:
            for _ in range(50):
                pids = (path / "cgroup.procs").read_text().split() if path.exists() else []
                for pid in pids:
                    with contextlib.suppress(ProcessLookupError, ValueError):
                        os.kill(int(pid), signal.SIGKILL)
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)


def sandbox_backend() -> str:
    """`bwrap` (isolating, default where installed) or `process` (development only: NOT isolating)."""
    chosen = os.environ.get("ENVCRAFT_SANDBOX", "auto")
    if chosen == "auto":
        return "bwrap" if shutil.which("bwrap") and sys.platform == "linux" else "process"
    if chosen not in ("bwrap", "process"):
        raise ValueError(f"ENVCRAFT_SANDBOX={chosen!r}: use 'bwrap', 'process' or 'auto'")
    return chosen


Handler = Callable[[str, dict[str, Any]], Any]  # (operation name, arguments) -> JSON-able result


class OperationSocket:
    """The server end of the CLI verbs inside the sandbox: one JSON request and reply per connection.

    The socket lives in a folder named after this process under <tmp>/envcraft (`run-<pid>-ops-*`),
    so a registry start reaps it if this process dies without cleaning up.
    """

    def __init__(self, handler: Handler):
        self.handler = handler
        base = Path(tempfile.gettempdir()) / "envcraft"
        base.mkdir(parents=True, exist_ok=True)
        self.folder = Path(tempfile.mkdtemp(prefix=f"run-{os.getpid()}-ops-", dir=base))
        self.path = self.folder / "ops.sock"
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(str(self.path))
        os.chmod(self.path, 0o666)
        self._listener.listen(16)
        self._cleanup = weakref.finalize(self, shutil.rmtree, self.folder, True)  # also at interpreter exit
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection: socket.socket) -> None:
        with connection, connection.makefile("rwb") as stream:
            try:
                request = json.loads(stream.readline(1_000_000) or b"{}")
                reply = {"ok": self.handler(str(request.get("verb")), dict(request.get("args") or {}))}
            except ToolFailure as exc:
                reply = {"error": str(exc)}
            except Exception as exc:  # a bad request must not take the server down
                reply = {"error": f"{type(exc).__name__}: {exc}"}
            stream.write(json.dumps(reply).encode() + b"\n")

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._listener.close()
        self._cleanup()


def request_operation(path: str, verb: str, args: dict[str, Any]) -> Any:
    """The CLI end: ask the server to run one operation; a refusal comes back as ToolFailure."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(path)
        with client.makefile("rwb") as stream:
            stream.write(json.dumps({"verb": verb, "args": args}).encode() + b"\n")
            stream.flush()
            reply = json.loads(stream.readline() or b"{}")
    if "error" in reply:
        raise ToolFailure(reply["error"])
    return reply.get("ok")


class Shell:
    """Runs one agent command at a time in the workspace, contained and bounded."""

    def __init__(self, workspace: Path, env_dir: Path, cli_name: str | None, limits: Limits = Limits(),
                 backend: str | None = None, operations: Handler | None = None):
        self.workspace = Path(workspace).resolve()
        self.env_dir = Path(env_dir).resolve()
        self.cli_name = cli_name
        self.limits = limits
        self.backend = backend or sandbox_backend()
        self.operations = operations
        self._socket: OperationSocket | None = None

    def _operation_socket(self) -> OperationSocket | None:
        if self.operations is not None and self._socket is None:
            self._socket = OperationSocket(self.operations)
        return self._socket

    def close(self) -> None:
        if self._socket:
            self._socket.close()
            self._socket = None

    def argv(self, command: str) -> tuple[list[str], Path]:
        """The command line that runs `command`, and the directory to start it in."""
        python_bin = Path(sys.base_prefix) / "bin"
        if self.backend == "process":
            path = f"{self.env_dir / 'bin'}:{python_bin}:/usr/local/bin:/usr/bin:/bin"
            return ["/usr/bin/env", "-i", f"PATH={path}", f"HOME={self.workspace}", f"ENVCRAFT_WORKSPACE={self.workspace}",
                    "LANG=C.UTF-8", "/bin/sh", "-c", command], self.workspace
        argv = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
                "--hostname", "sandbox", "--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev",
                "--tmpfs", "/tmp", "--dir", "/etc"]
        for link in ("bin", "lib", "lib64", "sbin"):
            if Path("/usr", link).exists():
                argv += ["--symlink", f"usr/{link}", f"/{link}"]
        for shared in ("/etc/alternatives", "/etc/ld.so.cache"):
            if Path(shared).exists():
                argv += ["--ro-bind", shared, shared]
        if not str(sys.base_prefix).startswith("/usr"):
            argv += ["--ro-bind", sys.base_prefix, sys.base_prefix]
        argv += ["--ro-bind", str(self.env_dir), "/opt/env", "--bind", str(self.workspace), "/workspace"]
        ops = self._operation_socket()
        if ops and (self.workspace / APP_DIR).is_dir():
            argv += ["--ro-bind", str(self.workspace / APP_DIR), f"/workspace/{APP_DIR}",
                     "--ro-bind", str(ops.folder), "/run/envcraft"]
        argv += ["--chdir", "/workspace", "--clearenv"]
        if ops:
            argv += ["--setenv", SOCKET_ENV, "/run/envcraft/ops.sock"]
        argv += [
                 "--setenv", "PATH", f"/opt/env/bin:{python_bin}:/usr/local/bin:/usr/bin:/bin",
                 "--setenv", "HOME", "/workspace", "--setenv", "ENVCRAFT_WORKSPACE", "/workspace",
                 "--setenv", "LANG", "C.UTF-8", "/bin/sh", "-c", command]
        return argv, self.workspace

    def run(self, command: str, timeout: float | None = None) -> ShellResult:
        if not command.strip():
            raise ToolFailure("the command is empty: pass a shell command such as 'ls -la'")
        wall = min(timeout or self.limits.wall_seconds, self.limits.wall_seconds)
        argv, cwd = self.argv(command)
        cgroup = _Cgroup(self.limits)
        limits = self.limits

        def contain() -> None:
            cgroup.enter()
            os.setsid()
            for kind, value in (
                (resource.RLIMIT_CPU, limits.cpu_seconds),
                (resource.RLIMIT_AS, limits.memory_mb * 2**20),
                (resource.RLIMIT_NOFILE, limits.open_files),
                (resource.RLIMIT_FSIZE, limits.file_mb * 2**20),
                (resource.RLIMIT_CORE, 0),
            ):
                resource.setrlimit(kind, (value, value))
            if not cgroup.paths:
                resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))

        try:
            proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, preexec_fn=contain)
            return self._collect(proc, wall)
        finally:
            cgroup.destroy()

    def _collect(self, proc: subprocess.Popen, wall: float) -> ShellResult:
        """Read both pipes up to the output limit, draining the rest, until exit or the deadline."""
        cap = self.limits.output_bytes
        chunks = {"stdout": bytearray(), "stderr": bytearray()}
        truncated = timed_out = False
        deadline = time.monotonic() + wall
        selector = selectors.DefaultSelector()
        selector.register(proc.stdout, selectors.EVENT_READ, "stdout")
        selector.register(proc.stderr, selectors.EVENT_READ, "stderr")
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            for key, _ in selector.select(timeout=remaining):
                data = os.read(key.fileobj.fileno(), 65536)
                if not data:
                    selector.unregister(key.fileobj)
                    continue
                buffer = chunks[key.data]
                room = cap - len(chunks["stdout"]) - len(chunks["stderr"])
                if len(data) > room:
                    truncated = True
                buffer.extend(data[: max(room, 0)])
        selector.close()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        try:
            code = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        proc.stdout.close()
        proc.stderr.close()
        return ShellResult(exit_code=124 if timed_out else code, stdout=chunks["stdout"].decode("utf-8", "replace"),
                           stderr=chunks["stderr"].decode("utf-8", "replace"), timed_out=timed_out, truncated=truncated)


