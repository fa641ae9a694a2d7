"""The contained shell of a claw workspace: agent commands run bounded, in a sandbox of their own.

This module holds what every sandbox shares: the episode's cgroup envelope (cgroups.py: memory, pids and CPU for
the episode as a whole, and a leaf per command) where the host allows it, rlimits on every command (CPU,
memory, files, file size), output read up to its limit, and the end of an episode. Where commands run is a
sandbox of its own, one module each under sandboxes/ (bwrap, container, process), chosen by name from
sandboxes.SANDBOXES; each is a subclass of Shell that says how a command is started (`argv`) and, where it
differs, how it is run (`_run`) and what the end of an episode releases.
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
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from .cgroups import CommandCgroup, EpisodeCgroup, containment, fallback
from .container import become_command_user
from .failures import ToolFailure
from .limits import Limits
from .opsocket import Handler, OperationSocket
from .settings import RuntimeSettings
from .settings import current as current_settings
from .warm import Running

PRLIMIT = shutil.which("prlimit")  # util-linux; without it commands are bounded from a preexec hook (slower)
# Arguments: cgroup.procs files to join, "--", then the command line to exec.
JOIN_AND_EXEC = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'
MAX_COMMAND_CHARS = 100_000  # one argv string may hold at most 128 KiB on Linux
RUNTIME_DIR = Path(__file__).resolve().parent  # this package, mounted read-only into the sandbox


def launch_env() -> dict[str, str]:
    """The environment a command's launcher (bwrap, or the command itself) runs with. bwrap's pid 1 in the sandbox
    keeps it, readable from inside (/proc/1/environ), so the server's own (API keys, host paths) never gets there;
    a run's marker may."""
    keep = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    return keep | current_settings().marker_environ()  # how tests find a run's processes; no secret


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



class EpisodeNotEnded(RuntimeError):
    """A process of an ended episode is still there after the kill: its workspace must not be handed on."""


def sandbox_backend() -> str:
    """`bwrap` (isolating, default where installed), `container` (set by container.py inside the
    Docker backend) or `process` (development only: NOT isolating), from the runtime's settings."""
    return current_settings().backend()


class Shell:
    """Runs one agent command at a time in the workspace, contained and bounded. A sandbox (sandboxes/) is a
    subclass that says how a command starts (`argv`); open one with sandboxes.open_shell."""

    name: str  # the sandbox's name in sandboxes.SANDBOXES
    # Whether a command may run where the host gives no cgroup for the episode (cgroups.fallback() decides for
    # a sandbox that says no). The container's own uids and process sandbox run under rlimits alone there.
    needs_envelope = False

    def __init__(self, workspace: Path, env_dir: Path, cli_name: str | None, limits: Limits = Limits(),
                 operations: Handler | None = None, settings: RuntimeSettings | None = None):
        self.workspace = Path(workspace).resolve()
        self.env_dir = Path(env_dir).resolve()
        self.cli_name = cli_name
        self.limits = limits
        self.settings = settings or current_settings()
        self.operations = operations
        self._socket: OperationSocket | None = None
        self._envelope: EpisodeCgroup | None = None
        self._ending = threading.Lock()  # close() and the start of a sandbox's long-lived parts never interleave
        self._closed = False
        self._cold: set[subprocess.Popen] = set()  # cold commands running now

    def _operation_socket(self) -> OperationSocket | None:
        if self.operations is not None and self._socket is None:
            self._socket = OperationSocket(self.operations)
        return self._socket

    def _refuse_if_closed(self) -> None:
        if self._closed:
            raise ToolFailure("this episode has ended: no more commands run in it")

    def close(self) -> None:
        """End the episode's shell for good: every process it started is killed (the sandbox's own long-lived
        parts, its cgroup envelope, whatever its uid still runs) and found gone before what the sandbox holds is
        released; later commands are refused. Raises EpisodeNotEnded if something outlived the kill (then the
        workspace must not be handed on)."""
        with self._ending:
            self._closed = True
        self._stop()
        if self._socket:
            self._socket.close()
            self._socket = None
        left = []
        for proc in list(self._cold):  # a cold sandbox without an envelope: its session, bwrap's pid namespace with it
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        if self._envelope:
            left += [f"cgroup {group} still holds processes" for group in self._envelope.close()]
            self._envelope = None
        left += self._release()
        if left:
            raise EpisodeNotEnded("; ".join(left))

    def _stop(self) -> None:
        """Stop what the sandbox keeps running between commands (the episode has ended)."""

    def _release(self) -> list[str]:
        """Release what the sandbox holds for the episode once its processes are gone: what is still there."""
        return []

    def envelope(self) -> EpisodeCgroup | None:
        """This episode's cgroup, made on its first command; None where the host gives none (then a sandbox that
        needs one runs commands as an unprivileged uid, or refuses: cgroups.fallback())."""
        self._refuse_if_closed()
        if self._envelope is None and containment().kind != "none":
            try:
                self._envelope = EpisodeCgroup(self.limits)
            except OSError as exc:
                if self.needs_envelope and fallback() == "refuse":
                    raise ToolFailure(f"the sandbox cannot start: no cgroup for this episode ({exc}); "
                                      "the operator must fix the host (see `envcraft doctor`)") from None
        if self._envelope is None and self.needs_envelope and fallback() == "refuse":
            raise ToolFailure("the sandbox cannot start: this host gives no per-episode cgroup "
                              f"({containment().detail}); the operator must fix the host (see `envcraft doctor`)")
        return self._envelope

    def argv(self, command: str, uid: int | None = None) -> tuple[list[str], Path]:
        """The command line that runs `command` in this sandbox (as `uid`, where the sandbox drops to one), and the
        directory to start it in."""
        raise NotImplementedError(f"{type(self).__name__} is no sandbox: open a shell with sandboxes.open_shell")

    def host_argv(self, command: str, extra_env: dict[str, str] | None = None) -> tuple[list[str], Path]:
        """`command` under sh on the host, in the workspace, with a clean environment (the environment's CLI on
        PATH): the sandboxes that are plain processes of the host."""
        path = f"{self.env_dir / 'bin'}:{Path(sys.base_prefix) / 'bin'}:/usr/local/bin:/usr/bin:/bin"
        env = {"PATH": path, "HOME": str(self.workspace), "ENVCRAFT_WORKSPACE": str(self.workspace),
               **(extra_env or {}), "LANG": "C.UTF-8"}
        return ["/usr/bin/env", "-i", *[f"{name}={value}" for name, value in env.items()], "/bin/sh", "-c", command], \
            self.workspace

    def run(self, command: str, timeout: float | None = None) -> ShellResult:
        if not command.strip():
            raise ToolFailure("the command is empty: pass a shell command such as 'ls -la'")
        if len(command) > MAX_COMMAND_CHARS:
            raise ToolFailure(f"the command is {len(command)} characters; the limit is {MAX_COMMAND_CHARS}: "
                              "write a script with write_file and run that")
        self._refuse_if_closed()
        wall = min(timeout or self.limits.wall_seconds, self.limits.wall_seconds)
        with self._command_user() as uid:
            return self._run(command, wall, uid)

    @contextlib.contextmanager
    def _command_user(self) -> Iterator[int | None]:
        """The uid a command becomes between fork and exec (None: the server's own), held while it runs."""
        yield None

    def _run(self, command: str, wall: float, uid: int | None) -> ShellResult:
        return self._run_cold(command, wall, uid, self.envelope())

    def _run_cold(self, command: str, wall: float, uid: int | None, envelope: EpisodeCgroup | None,
                  drop: int | None = None) -> ShellResult:
        """A process of its own for the command: `uid` is become between fork and exec; `drop` is the sandbox's
        own (argv() drops to it)."""
        argv, cwd = self.argv(command, drop)
        cgroup = envelope.command() if envelope else None
        fds: list[int] = []
        try:
            argv = self._pass_options(argv, fds)
            if uid is None and PRLIMIT:
                proc = self._spawn_fast(argv, cwd, cgroup, pass_fds=fds)
            else:
                proc = self._spawn_with_preexec(argv, cwd, cgroup, uid, pass_fds=fds)
            self._cold.add(proc)
            try:
                return self._collect(proc, wall)
            finally:
                self._cold.discard(proc)
        finally:
            for fd in fds:
                os.close(fd)
            if cgroup:
                cgroup.destroy()

    def _pass_options(self, argv: list[str], fds: list[int]) -> list[str]:
        """The command line as started, where some of it travels through descriptors (appended to `fds`, which
        the child inherits and the caller closes)."""
        return argv

    def _rlimits(self, in_cgroup: bool) -> list[tuple[str, int, int]]:
        """(prlimit option, resource, value): the per-process bounds of every command."""
        limits = self.limits
        chosen = [("cpu", resource.RLIMIT_CPU, limits.cpu_seconds), ("as", resource.RLIMIT_AS, limits.memory_mb * 2**20),
                  ("nofile", resource.RLIMIT_NOFILE, limits.open_files),
                  ("fsize", resource.RLIMIT_FSIZE, limits.file_mb * 2**20), ("core", resource.RLIMIT_CORE, 0)]
        if not in_cgroup:  # binds only non-root users; with a cgroup, pids.max does the job for everyone
            chosen.append(("nproc", resource.RLIMIT_NPROC, limits.processes))
        return chosen

    def _spawn_fast(self, argv: list[str], cwd: Path, cgroup: CommandCgroup | None,
                    pass_fds: list[int] | tuple = ()) -> subprocess.Popen:
        """No Python between fork and exec, so the server (hundreds of MB) is vforked, not copied: a small
        sh joins the command's cgroup leaf, then prlimit sets the rlimits and execs the sandbox."""
        joins = [str(path / "cgroup.procs") for path in (cgroup.paths if cgroup else [])]
        bounds = [f"--{name}={value}" for name, _, value in self._rlimits(cgroup is not None)]
        wrapper = ["/bin/sh", "-c", JOIN_AND_EXEC, "envcraft-contain", *joins, "--", PRLIMIT, *bounds, "--", *argv]
        return subprocess.Popen(wrapper, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True, env=launch_env(), pass_fds=pass_fds)

    def _spawn_with_preexec(self, argv: list[str], cwd: Path, cgroup: CommandCgroup | None,
                            uid: int | None, pass_fds: list[int] | tuple = ()) -> subprocess.Popen:
        bounds = self._rlimits(cgroup is not None)

        def contain() -> None:
            if cgroup:
                cgroup.enter()
            os.setsid()
            for _, kind, value in bounds:
                resource.setrlimit(kind, (value, value))
            if uid is not None:
                become_command_user(uid)

        return subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, preexec_fn=contain, env=launch_env(), pass_fds=pass_fds)

    def _collect(self, proc: subprocess.Popen, wall: float) -> ShellResult:
        stdout, stderr, truncated, timed_out = self._read_output(proc.stdout.fileno(), proc.stderr.fileno(), wall)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        try:
            code = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        proc.stdout.close()
        proc.stderr.close()
        return ShellResult(exit_code=124 if timed_out else code, stdout=stdout, stderr=stderr, timed_out=timed_out,
                           truncated=truncated)

    def _read_output(self, stdout: int, stderr: int, wall: float, running: Running | None = None) -> tuple[str, str, bool, bool]:
        """Read both pipes up to the output limit, draining the rest, until both close or the deadline:
        (stdout, stderr, truncated, timed_out). A warm command's leaf is killed as soon as its shell exits,
        so what it left in the background ends then (and lets go of the pipes), as a cold sandbox's would."""
        cap = self.limits.output_bytes
        chunks = {stdout: bytearray(), stderr: bytearray()}
        truncated = timed_out = False
        deadline = time.monotonic() + wall
        selector = selectors.DefaultSelector()
        for fd in chunks:
            selector.register(fd, selectors.EVENT_READ)
        if running is not None:
            selector.register(running.status, selectors.EVENT_READ)
        pipes = 2
        while pipes:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            for key, _ in selector.select(timeout=remaining):
                if key.fd not in chunks:  # news from the runner; once the shell exited, end what it left behind
                    running.read_status()
                    if running.ended:
                        selector.unregister(key.fileobj)
                        running.cgroup.kill()
                    continue
                data = os.read(key.fd, 65536)
                if not data:
                    selector.unregister(key.fd)
                    pipes -= 1
                    continue
                room = cap - len(chunks[stdout]) - len(chunks[stderr])
                if len(data) > room:
                    truncated = True
                chunks[key.fd].extend(data[: max(room, 0)])
        selector.close()
        return (chunks[stdout].decode("utf-8", "replace"), chunks[stderr].decode("utf-8", "replace"), truncated,
                timed_out)

