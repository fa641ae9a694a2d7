"""A warm sandbox per episode: one long-lived bubblewrap and a tiny command runner inside it.

Starting bubblewrap costs tens of milliseconds (namespaces, mounts, a new network stack); a
command in an already-running sandbox costs a fork and an exec. So the first command of an
episode starts the sandbox with warm_runner.py inside, and every command then is a fresh child
of that runner, with the same bounds as a cold command:

- its own cgroup leaf in the episode's envelope (the server makes it and hands the runner only
  write descriptors for its cgroup.procs files; the child joins before it execs), so its memory
  and pids caps hold, and whatever it leaves behind (a daemon, a double fork, a background job
  holding the output pipe) is killed when its shell exits, by the server, from outside the
  sandbox. Joining a cgroup costs milliseconds, so the next command's leaf is made, and a spare
  child placed in it, right after a command ends, on a housekeeping thread (cgroups.later, which
  also removes the emptied leaves): no command waits for either (warm_runner.py);
- the same rlimits, output cap and time limit, the same namespaces, mounts and environment;
- nothing carries over between commands: the sandbox's root, /etc and /dev are read-only, and the
  runner empties /tmp, /dev/shm and /dev/mqueue (and requires System V IPC objects to be gone)
  before a command starts while no other one runs, or the sandbox is replaced. So nothing carries
  from one episode to the next either, though a pool that reuses a workspace folder reuses its
  sandbox too (until it has been idle ENVCRAFT_WARM_IDLE seconds).

Where the warm path would give less than the cold one it is not used (sandboxes/bwrap.py): without a
cgroup envelope a command's leftovers could only be ended by its pid namespace dying, which the
cold path gives and a shared sandbox cannot. Commands running at the same time in one episode
share the sandbox's /tmp and see each other's processes (the same agent's, never another
episode's).

The runner holds no privilege the commands lack (same uid, no capability) and is the sandbox's pid 1
(bwrap --as-pid-1): not dumpable, so no command can ptrace it, and as init it takes no SIGKILL or
SIGSTOP from inside. Nothing else of the sandbox's own leaf is visible in it: bwrap's reaper was,
and a command ptraced it into a process that outlived the command (tests/test_containment.py). A
runner found stopped or silent all the same is replaced before the next command. It
ends when the server closes the control socket or dies, after ENVCRAFT_WARM_IDLE seconds (60)
without a command, and when the workspace folder it binds was replaced.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from .cgroups import CommandCgroup, EpisodeCgroup
from .failures import ToolFailure


class Running:
    """One command in the warm sandbox: its leaf, its output pipes and the socket its status comes on.

    Status lines: {"started": true} from the child just before exec, then {"exit": code} from the
    runner; or {"restart": why} / {"error": why} / {"busy": true} (no zygote was made: start it again) instead of
    both; end of stream if the runner died."""

    def __init__(self, cgroup: CommandCgroup, stdout: int, stderr: int, status: socket.socket):
        self.cgroup, self.stdout, self.stderr, self.status = cgroup, stdout, stderr, status
        self.started = self.gone = False
        self.exit: int | None = None
        self.refused: dict | None = None
        self._buffer = b""

    def read_status(self, seconds: float | None = 0) -> None:
        """Take in what the status socket holds (waiting up to `seconds` for something)."""
        self.status.settimeout(seconds)
        try:
            data = self.status.recv(4096)
        except (TimeoutError, BlockingIOError):
            return
        except OSError:
            data = b""
        if not data:
            self.gone = True
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            answer = json.loads(line)
            self.started |= bool(answer.get("started"))
            if "exit" in answer:
                code = answer["exit"]
                self.exit = 128 - code if code < 0 else code  # killed by signal N: 128 + N, as a shell reports it
            if "restart" in answer or "error" in answer or "busy" in answer:
                self.refused = answer

    @property
    def ended(self) -> bool:
        return self.gone or self.exit is not None or self.refused is not None

    def wait(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not self.ended and time.monotonic() < deadline:
            self.read_status(max(deadline - time.monotonic(), 0.001))

    def close(self) -> None:
        for fd in (self.stdout, self.stderr):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.status.close()


class _Spare:
    """The next command's leaf with a zygote in it: the link to hand it the command, the status socket."""

    def __init__(self, cgroup: CommandCgroup, link: socket.socket, status: socket.socket):
        self.cgroup, self.link, self.status = cgroup, link, status

    def drop(self) -> None:
        self.link.close()
        self.status.close()
        self.cgroup.destroy()


class WarmSandbox:
    """One episode's sandbox and runner; `start_command` is safe to call from many threads."""

    def __init__(self, spawn: Callable[[int, CommandCgroup], subprocess.Popen], envelope: EpisodeCgroup,
                 identity: Callable[[], tuple]):
        self._spawn, self._envelope, self._identity = spawn, envelope, identity
        self._lock = threading.Lock()
        self._control: socket.socket | None = None
        self._process: subprocess.Popen | None = None
        self._leaf: CommandCgroup | None = None  # the sandbox's own processes
        self._spare: _Spare | None = None
        self._made_for: tuple = ()
        self._closed = False

    def _start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._leaf = self._envelope.command()
        try:
            self._process = self._spawn(theirs.fileno(), self._leaf)
            # Reaped as soon as it exits (the runner leaves after ENVCRAFT_WARM_IDLE idle seconds), not when the next
            # command happens to look: an episode that goes idle would otherwise leave a zombie bwrap behind.
            threading.Thread(target=self._process.wait, name="envcraft-warm-reaper", daemon=True).start()
        except BaseException:
            self._leaf.destroy()
            self._leaf = None
            ours.close()
            raise
        finally:
            theirs.close()
        ours.settimeout(5)  # a stopped runner stops reading: a full socket must not hold a tool call forever
        self._control = ours
        self._made_for = self._identity()

    def _stop(self) -> None:
        """End the sandbox and wait until it is gone: the runner (its pid namespace, and so every command with it)
        first, so that bwrap, its parent, reaps it, then bwrap and whatever else is left in the sandbox's leaf.
        Killed the other way round, the runner would be orphaned to the host's init and linger until it reaps."""
        if self._control:
            self._control.close()
            self._control = None
        if self._spare:
            self._spare.drop()
            self._spare = None
        if self._leaf and self._process:
            for path in self._leaf.paths[:1]:
                for pid in (path / "cgroup.procs").read_text().split() if (path / "cgroup.procs").exists() else ():
                    if int(pid) != self._process.pid:
                        with contextlib.suppress(ProcessLookupError, PermissionError):
                            os.kill(int(pid), signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=5)  # bwrap exits once it has reaped the runner
        if self._leaf:
            self._leaf.destroy()  # kills the sandbox's processes, whatever they do
            self._leaf = None
        if self._process:
            self._process.kill()
            self._process.wait()  # SIGKILLed by the leaf's destruction or just now: it is reaped, never a zombie
            self._process = None

    def close(self) -> None:
        """Stop the sandbox for good: a command sent later is refused."""
        with self._lock:
            self._closed = True
            self._stop()

    def stop_if(self, control: socket.socket | None) -> None:
        """Replace the sandbox (on the next command) if it is still the one that failed."""
        with self._lock:
            if control is None or self._control is control:
                self._stop()

    def _stopped(self) -> bool:
        """A process of the sandbox itself (the runner) is stopped or traced: a command sent it SIGSTOP, and it
        would never start nor reap the next one. (A command's leftovers are killed before the next one starts.)"""
        for path in self._leaf.paths[:1]:
            with contextlib.suppress(OSError):
                for pid in (path / "cgroup.procs").read_text().split():
                    with contextlib.suppress(OSError, IndexError):
                        if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("T", "t"):
                            return True
        return False

    def prepare(self) -> None:
        """Make the next command's leaf and have the runner place a zygote in it (off the command's path)."""
        with self._lock:
            if self._closed or self._control is None or self._spare is not None:
                return
            leaf = self._envelope.command()
            link, link_theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            status, status_theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            spare = _Spare(leaf, link, status)
            joins = _open_joins(leaf)
            try:
                socket.send_fds(self._control, [b'{"op": "prepare"}'], [link_theirs.fileno(), status_theirs.fileno(), *joins])
            except OSError:
                spare.drop()
                return
            finally:
                for fd in joins:
                    os.close(fd)
                link_theirs.close()
                status_theirs.close()
            self._spare = spare

    def start_command(self, request: dict) -> tuple[Running, socket.socket | None]:
        """Hand one command to the zygote, or to the runner (starting the sandbox first if need be).
        Returns the command and the control socket it went through (to replace that sandbox if it never started)."""
        with self._lock:
            if self._closed:
                raise ToolFailure("this episode has ended: no more commands run in it")
            if self._control is not None and (self._process.poll() is not None or self._identity() != self._made_for
                                              or self._stopped()):
                self._stop()  # the runner ended or was stopped, or the workspace folder it binds was replaced
            if self._control is None:
                self._start()
            control, spare, self._spare = self._control, self._spare, None
        memfd = os.memfd_create("envcraft-request", os.MFD_CLOEXEC)
        out_r, out_w = os.pipe2(os.O_CLOEXEC)
        err_r, err_w = os.pipe2(os.O_CLOEXEC)
        try:
            os.write(memfd, json.dumps(request).encode())
            if spare is not None:
                try:
                    socket.send_fds(spare.link, [b"go"], [memfd, out_w, err_w])
                    spare.link.close()
                    return Running(spare.cgroup, out_r, err_r, spare.status), control
                except OSError:
                    spare.drop()  # the runner made no zygote (another command ran), or it was killed
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            cgroup = self._envelope.command()
            joins = _open_joins(cgroup)
            try:
                socket.send_fds(control, [b'{"op": "run"}'], [memfd, out_w, err_w, theirs.fileno(), *joins])
            except OSError:
                pass  # the runner is gone: the command reads as never started, and is retried
            finally:
                for fd in joins:
                    os.close(fd)
                theirs.close()
            return Running(cgroup, out_r, err_r, ours), control
        finally:
            for fd in (memfd, out_w, err_w):
                os.close(fd)


def _open_joins(cgroup: CommandCgroup) -> list[int]:
    return [os.open(path / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC) for path in cgroup.paths]
