"""The contained shell of a claw workspace: agent commands run bounded, in a sandbox of their own.

Backends: `bwrap` (bubblewrap namespaces: no network, read-only system, only the workspace
writable; default where installed), `container` (inside the Docker backend's container: each
command under a uid of its own that cannot write `.app/`, and all its processes killed when it
returns; container.py) and `process` (plain subprocesses with rlimits: development only, NOT
isolating). Every command runs in its episode's cgroup envelope where the host allows it
(cgroups.py: memory, pids and CPU for the episode as a whole, and a leaf of its own) and under
rlimits (CPU, memory, files, file size). A bwrap shell on a host that gives no cgroup refuses to
run commands (root is exempt from RLIMIT_NPROC, so rlimits alone would not stop a fork bomb)
unless the operator accepts that with ENVCRAFT_CONTAINMENT=rlimits.

Under bwrap the app state (`.app/`) is mounted read-only: the environment's CLI verbs reach it
through the operation socket (opsocket.py), so the shell changes app state only through the same
checked operations as the MCP tools. The runtime package itself is mounted read-only at
/opt/envcraft_runtime, beside the environment at /opt/env, where the CLI shim finds it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

from .cgroups import CommandCgroup, EpisodeCgroup, containment
from .container import COMMAND_USERS, become_command_user
from .failures import ToolFailure
from .limits import Limits
from .opsocket import SOCKET_ENV, Handler, OperationSocket
from .store import APP_DIR

PRLIMIT = shutil.which("prlimit")  # util-linux; without it commands are bounded from a preexec hook (slower)
# Arguments: cgroup.procs files to join, "--", then the command line to exec.
JOIN_AND_EXEC = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'
MAX_COMMAND_CHARS = 100_000  # one argv string may hold at most 128 KiB on Linux
RUNTIME_DIR = Path(__file__).resolve().parent  # this package, mounted read-only into the sandbox


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



def sandbox_backend() -> str:
    """`bwrap` (isolating, default where installed), `container` (set by container.py inside the
    Docker backend) or `process` (development only: NOT isolating)."""
    chosen = os.environ.get("ENVCRAFT_SANDBOX", "auto")
    if chosen == "auto":
        return "bwrap" if shutil.which("bwrap") and sys.platform == "linux" else "process"
    if chosen not in ("bwrap", "container", "process"):
        raise ValueError(f"ENVCRAFT_SANDBOX={chosen!r}: use 'bwrap', 'process' or 'auto'")
    return chosen



def package_folders() -> list[str]:
    """Third-party package folders of the interpreter the sandbox sees (its stdlib stays): a wheel installed
    there (`pip install envcraft` into a system or pyenv Python, a Docker image's /usr/local) holds the task
    store with every task's checks and gold answers, so these are covered by an empty tmpfs in the sandbox.
    The CLI needs only the standard library and this runtime (mounted on its own)."""
    base = {"base": sys.base_prefix, "platbase": sys.base_prefix, "installed_base": sys.base_prefix,
            "installed_platbase": sys.base_prefix}
    paths = sysconfig.get_paths(vars=base)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    found = [paths["purelib"], paths["platlib"], "/usr/lib/python3/dist-packages", f"/usr/lib/{version}/dist-packages",
             f"/usr/local/lib/{version}/dist-packages", f"/usr/local/lib/{version}/site-packages"]
    return [folder for folder in dict.fromkeys(found) if os.path.isdir(folder)]


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
        self._envelope: EpisodeCgroup | None = None

    def _operation_socket(self) -> OperationSocket | None:
        if self.operations is not None and self._socket is None:
            self._socket = OperationSocket(self.operations)
        return self._socket

    def close(self) -> None:
        if self._socket:
            self._socket.close()
            self._socket = None
        if self._envelope:
            self._envelope.close()
            self._envelope = None

    def envelope(self) -> EpisodeCgroup | None:
        """This episode's cgroup, made on its first command; None where the host gives none."""
        if self._envelope is None and containment().kind != "none":
            try:
                self._envelope = EpisodeCgroup(self.limits)
            except OSError as exc:
                if self.backend == "bwrap" and os.environ.get("ENVCRAFT_CONTAINMENT") != "rlimits":
                    raise ToolFailure(f"the sandbox cannot start: no cgroup for this episode ({exc}); "
                                      "the operator must fix the host (see `envcraft doctor`)") from None
        if self._envelope is None and self.backend == "bwrap" and os.environ.get("ENVCRAFT_CONTAINMENT") != "rlimits":
            raise ToolFailure("the sandbox cannot start: this host gives no per-episode cgroup "
                              f"({containment().detail}); the operator must fix the host (see `envcraft doctor`)")
        return self._envelope

    def argv(self, command: str) -> tuple[list[str], Path]:
        """The command line that runs `command`, and the directory to start it in."""
        python_bin = Path(sys.base_prefix) / "bin"
        if self.backend == "process":
            path = f"{self.env_dir / 'bin'}:{python_bin}:/usr/local/bin:/usr/bin:/bin"
            return ["/usr/bin/env", "-i", f"PATH={path}", f"HOME={self.workspace}", f"ENVCRAFT_WORKSPACE={self.workspace}",
                    "LANG=C.UTF-8", "/bin/sh", "-c", command], self.workspace
        if self.backend == "container":  # the Docker backend: .app/ is the server uid's, the CLI asks the socket
            ops = self._operation_socket()
            path = f"{self.env_dir / 'bin'}:{python_bin}:/usr/local/bin:/usr/bin:/bin"
            socket = [f"{SOCKET_ENV}={ops.path}"] if ops else []
            if ops:
                os.chmod(ops.folder, 0o711)  # other uids may reach the socket, not list the folder
            return ["/usr/bin/env", "-i", f"PATH={path}", f"HOME={self.workspace}", f"ENVCRAFT_WORKSPACE={self.workspace}",
                    *socket, "TMPDIR=/tmp", "LANG=C.UTF-8", "/bin/sh", "-c", command], self.workspace
        argv = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
                "--hostname", "sandbox", "--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev",
                "--tmpfs", "/tmp", "--dir", "/etc"]
        # The sandbox's uid 0 is the host's uid 0 (mapped 0 -> 0), and the kernel lets that uid write GLOBAL
        # settings under /proc/sys (kernel.core_pattern = '|script' runs as host root on the next crash): cover
        # them read-only, as container runtimes do.
        for kernel in ("/proc/sys", "/proc/sysrq-trigger"):
            if Path(kernel).exists():
                argv += ["--ro-bind", kernel, kernel]
        for link in ("bin", "lib", "lib64", "sbin"):
            if Path("/usr", link).exists():
                argv += ["--symlink", f"usr/{link}", f"/{link}"]
        for shared in ("/etc/alternatives", "/etc/ld.so.cache"):
            if Path(shared).exists():
                argv += ["--ro-bind", shared, shared]
        if not str(sys.base_prefix).startswith("/usr"):
            argv += ["--ro-bind", sys.base_prefix, sys.base_prefix]
        for folder in package_folders():
            argv += ["--tmpfs", folder]
        argv += ["--ro-bind", str(self.env_dir), "/opt/env", "--ro-bind", str(RUNTIME_DIR), "/opt/envcraft_runtime",
                 "--bind", str(self.workspace), "/workspace"]
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
        if len(command) > MAX_COMMAND_CHARS:
            raise ToolFailure(f"the command is {len(command)} characters; the limit is {MAX_COMMAND_CHARS}: "
                              "write a script with write_file and run that")
        wall = min(timeout or self.limits.wall_seconds, self.limits.wall_seconds)
        with COMMAND_USERS.lease() if self.backend == "container" else contextlib.nullcontext() as uid:
            return self._run(command, wall, uid)

    def _run(self, command: str, wall: float, uid: int | None) -> ShellResult:
        argv, cwd = self.argv(command)
        envelope = self.envelope()
        cgroup = envelope.command() if envelope else None
        try:
            if uid is None and PRLIMIT:
                proc = self._spawn_fast(argv, cwd, cgroup)
            else:
                proc = self._spawn_with_preexec(argv, cwd, cgroup, uid)
            return self._collect(proc, wall)
        finally:
            if cgroup:
                cgroup.destroy()

    def _rlimits(self, cgroup: CommandCgroup | None) -> list[tuple[str, int, int]]:
        """(prlimit option, resource, value): the per-process bounds of every command."""
        limits = self.limits
        chosen = [("cpu", resource.RLIMIT_CPU, limits.cpu_seconds), ("as", resource.RLIMIT_AS, limits.memory_mb * 2**20),
                  ("nofile", resource.RLIMIT_NOFILE, limits.open_files),
                  ("fsize", resource.RLIMIT_FSIZE, limits.file_mb * 2**20), ("core", resource.RLIMIT_CORE, 0)]
        if not cgroup:  # binds only non-root users; with a cgroup, pids.max does the job for everyone
            chosen.append(("nproc", resource.RLIMIT_NPROC, limits.processes))
        return chosen

    def _spawn_fast(self, argv: list[str], cwd: Path, cgroup: CommandCgroup | None) -> subprocess.Popen:
        """No Python between fork and exec, so the server (hundreds of MB) is vforked, not copied: a small
        sh joins the command's cgroup leaf, then prlimit sets the rlimits and execs the sandbox."""
        joins = [str(path / "cgroup.procs") for path in (cgroup.paths if cgroup else [])]
        bounds = [f"--{name}={value}" for name, _, value in self._rlimits(cgroup)]
        wrapper = ["/bin/sh", "-c", JOIN_AND_EXEC, "envcraft-contain", *joins, "--", PRLIMIT, *bounds, "--", *argv]
        return subprocess.Popen(wrapper, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)

    def _spawn_with_preexec(self, argv: list[str], cwd: Path, cgroup: CommandCgroup | None,
                            uid: int | None) -> subprocess.Popen:
        bounds = self._rlimits(cgroup)

        def contain() -> None:
            if cgroup:
                cgroup.enter()
            os.setsid()
            for _, kind, value in bounds:
                resource.setrlimit(kind, (value, value))
            if uid is not None:
                become_command_user(uid)

        return subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, preexec_fn=contain)

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


