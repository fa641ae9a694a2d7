"""The command runner inside a warm sandbox (warm.py): one per episode, started inside bubblewrap.

Run as `python3 -I -S warm_runner.py CONTROL_FD IDLE_SECONDS`. Each message on the control socket
(a SOCK_SEQPACKET whose other end the server holds) is a small JSON object with descriptors the
server opened attached:

- {"op": "prepare"} + [zygote link, status socket, cgroup.procs of a new leaf ...]: fork a spare
  child (a "zygote") that joins that leaf now and waits on the link. Joining a cgroup costs
  milliseconds (the kernel waits for an RCU grace period), so it is done between commands; the
  server then hands the next command's descriptors [request memfd, stdout, stderr] straight to the
  zygote, which needs no other process to wake up before it execs. A zygote is only made while
  no command runs and the scratch space is clean; otherwise the status socket gets {"busy": true}
  and the link is closed (a command the server already handed to that link never started, and
  is sent again), and the server falls back to:
- {"op": "run"} + [request memfd, stdout, stderr, status socket, cgroup.procs of the command's
  leaf ...]: a new child joins the leaf, then execs.
Either way the child starts its own session, takes the command's rlimits and execs
`/bin/sh -c COMMAND`; the status socket gets {"started": true} from the child just before it
execs (or {"restart": why} / {"error": why} from the runner), then {"exit": code} from the runner.

Nothing carries from one command to the next: before a command starts while no other one runs,
no other process may be left in the sandbox, the writable places outside the workspace (/tmp, /dev/shm, /dev/mqueue) are emptied, System V IPC objects
must be gone and the runner's own nice value, CPU affinity, scheduling policy, rlimits and I/O priority (which a command
may change from outside, and the next would inherit) must be as they were; if not, the runner says so and
exits (the server starts a fresh sandbox).
It exits too when the server closes the control socket (or dies), or after IDLE_SECONDS idle.
It is the sandbox's pid 1 (bwrap --as-pid-1), so it also reaps what a command orphans.
Standard library only; it imports nothing of the runtime, so it starts fast.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import selectors
import signal
import socket
import sys
import time

SCRATCH = ("/tmp", "/dev/shm", "/dev/mqueue")  # unlinking a file in /dev/mqueue removes that message queue
MAX_FDS = 16
MAX_CLEANED = 200_000  # scratch entries the runner removes before a command; past it the sandbox is replaced
_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE = 1, 4
_LIBC = ctypes.CDLL(None)


def alone() -> bool:
    """No process but this runner is left in the sandbox (zombies aside, which run nothing): a command's leftover
    the server's kill has not reached yet could otherwise write into the scratch space after it was emptied."""
    for name in os.listdir("/proc"):
        if name.isdigit() and name != "1":
            try:
                with open(f"/proc/{name}/stat") as f:
                    if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                        return False
            except (OSError, IndexError):
                continue  # gone meanwhile
    return True


def clean() -> bool:
    """Empty the scratch folders; False when something would carry over to the next command (the runner then
    exits and the server replaces the sandbox, whose scratch folders are fresh tmpfs mounts)."""
    if not alone():
        return False
    try:
        budget = MAX_CLEANED
        for top in filter(os.path.isdir, SCRATCH):
            budget = empty(top, budget)
        for kind in ("shm", "msg", "sem"):
            with open(f"/proc/sysvipc/{kind}") as f:
                if len(f.read().splitlines()) > 1:
                    return False
    except Exception:  # noqa: BLE001 - whatever stopped it, the scratch space is not known empty
        return False
    return inherited() == INHERITED_AT_START


def empty(top: str, budget: int) -> int:
    """Remove everything inside `top`, however deep or wide, holding at most two descriptors and no recursion: it
    walks down by name relative to the folder it holds and back up through "..", which is safe only because no
    other process is left to move folders meanwhile (alone()). Returns what is left of `budget` (entries it may
    still remove); raises OSError on anything it cannot remove and RuntimeError past the budget, where a fresh
    sandbox costs less than unlinking on."""
    here = os.open(top, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    below: list[str] = []  # the names walked down from `top` to `here`
    try:
        while budget >= 0:
            child, removed = None, 0
            with os.scandir(here) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        child = entry.name
                        break
                    os.unlink(entry.name, dir_fd=here)
                    removed += 1
            budget -= removed
            if child is None and removed:
                continue  # read again: a listing that was unlinked from as it went may have skipped an entry
            if child is not None:
                step = os.open(child, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=here)
                below.append(child)
            elif below:
                step = os.open("..", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=here)
            else:
                return budget
            os.close(here)
            here = step
            if child is None:
                os.rmdir(below.pop(), dir_fd=here)
                budget -= 1
        raise RuntimeError(f"more than {MAX_CLEANED} entries to remove")
    finally:
        os.close(here)


def inherited() -> tuple:
    """What a command inherits from the runner and may change in it from outside (same uid: renice, taskset,
    chrt, prlimit, ionice on pid 1) but could not always undo in itself (a nice value cannot be lowered again,
    nor an idle I/O class left)."""
    limits = tuple(resource.getrlimit(getattr(resource, name)) for name in dir(resource) if name.startswith("RLIMIT_"))
    return (os.getpriority(os.PRIO_PROCESS, 0), os.sched_getaffinity(0), os.sched_getscheduler(0), limits,
            io_priority())


_IOPRIO_GET = {"x86_64": 252, "aarch64": 31, "i686": 290, "armv7l": 315}.get(os.uname().machine)
_IOPRIO_WHO_PROCESS = 1


def io_priority() -> int | None:
    """This process's I/O scheduling class and level (ioprio_get(2); the standard library has no call for it)."""
    if _IOPRIO_GET is None:
        return None
    return _LIBC.syscall(_IOPRIO_GET, _IOPRIO_WHO_PROCESS, 0)


INHERITED_AT_START = inherited()


def _close_all_but(keep: set[int]) -> None:
    for name in os.listdir("/proc/self/fd"):
        if int(name) not in keep:
            with contextlib.suppress(OSError):
                os.close(int(name))


def _exec(memfd: int, stdout: int, stderr: int, status: int) -> None:
    """The command's child, already in its leaf: session, signals, rlimits, descriptors, exec. Never returns."""
    try:
        request = json.loads(os.pread(memfd, os.fstat(memfd).st_size, 0))
        os.setsid()
        for name in ("SIGPIPE", "SIGXFSZ", "SIGCHLD", "SIGINT"):  # as a shell started by a plain exec would have them
            signal.signal(getattr(signal, name), signal.SIG_DFL)
        for kind, value in request["rlimits"]:
            resource.setrlimit(kind, (value, value))
        null = os.open("/dev/null", os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(stdout, 1)
        os.dup2(stderr, 2)
        os.chdir(request["cwd"])
        _LIBC.prctl(_PR_SET_PDEATHSIG, 0, 0, 0, 0)  # a zygote's tie to the runner: the command outlives it like any
        os.write(status, b'{"started": true}\n')
        os.closerange(3, 1 << 16)
        os.execve("/bin/sh", ["/bin/sh", "-c", request["command"]], request["env"])
    except BaseException as exc:  # noqa: BLE001 - report and leave, whatever happened
        os.write(2, f"envcraft: the command could not start: {exc}\n".encode())
    finally:
        os._exit(126)


def _join(cgroups: list[int]) -> None:
    for fd in cgroups:  # first, so everything after is charged to (and killed with) the command's leaf
        os.write(fd, b"0")


def _zygote(runner: int, link: int, status: int, cgroups: list[int]) -> None:
    """A spare child: join the prepared leaf now, then wait for the command's descriptors. Never returns."""
    try:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # an idle spare ends with the runner
        if os.getppid() != runner:
            os._exit(0)
        _close_all_but({link, status, *cgroups})
        _join(cgroups)
        for fd in cgroups:
            os.close(fd)
        _, fds, _, _ = socket.recv_fds(socket.socket(fileno=link), 16, 4)
        if len(fds) == 3:
            _exec(*fds, status)
    except BaseException:  # noqa: BLE001
        pass
    os._exit(0)


def _reply(status: socket.socket, answer: dict, last: bool = True) -> None:
    with contextlib.suppress(OSError):  # else the server stopped waiting (time limit): nothing to tell
        status.sendall(json.dumps(answer).encode() + b"\n")
    if last:
        status.close()


class Runner:
    def __init__(self, control: socket.socket):
        self.control = control
        self.running: dict[int, socket.socket] = {}  # pid (a command, or a zygote that may run one) -> status socket
        self.zygotes: set[int] = set()
        with open("/proc/self/comm") as f:
            self.comm = f.read()

    def prepare(self, fds: list[int]) -> bool:
        """Fork a zygote, if nothing runs and the scratch space is clean; False when the sandbox must be replaced."""
        link, status, *cgroups = fds
        self.reap()
        if self.running:  # not now: the link closes, and the server starts its next command the slow way
            _reply(socket.socket(fileno=os.dup(status)), {"busy": True})
            return True
        if not clean():
            return False
        runner = os.getpid()
        try:
            pid = os.fork()
        except OSError:
            return True
        if pid == 0:
            _zygote(runner, link, status, cgroups)
        self.running[pid] = socket.socket(fileno=os.dup(status))
        self.zygotes.add(pid)
        return True

    def run(self, fds: list[int]) -> bool:
        """Start one command the slow way (no zygote); False when the sandbox must be replaced."""
        memfd, stdout, stderr, status, *cgroups = fds
        self.reap()
        if not self.running and not clean():
            _reply(socket.socket(fileno=os.dup(status)), {"restart": "the sandbox's scratch space could not be emptied"})
            return False
        try:
            pid = os.fork()
        except OSError as exc:
            _reply(socket.socket(fileno=os.dup(status)), {"error": f"could not start the command: {exc}"})
            return True
        if pid == 0:
            try:
                _join(cgroups)
            except BaseException:  # noqa: BLE001 - never go on as a second runner outside the command's leaf
                os._exit(125)
            _exec(memfd, stdout, stderr, status)
        self.running[pid] = socket.socket(fileno=os.dup(status))
        return True

    def busy(self) -> bool:
        """A command runs: a child that is no zygote, or a zygote that has exec'd its command."""
        for pid in self.running:
            if pid not in self.zygotes:
                return True
            try:
                with open(f"/proc/{pid}/comm") as f:
                    if f.read() != self.comm:
                        return True
            except OSError:
                continue
        return False

    def reap(self) -> None:
        while True:
            try:
                pid, code = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            self.zygotes.discard(pid)
            if pid in self.running:
                _reply(self.running.pop(pid), {"exit": os.waitstatus_to_exitcode(code)})

    def serve(self, idle: float) -> int:
        try:
            return self._serve(idle)
        finally:  # a spare waiting for a command would keep the sandbox's pid namespace alive
            for pid in self.zygotes:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)

    def _serve(self, idle: float) -> int:
        wake_read, wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        signal.set_wakeup_fd(wake_write)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        selector = selectors.DefaultSelector()
        selector.register(self.control, selectors.EVENT_READ, "control")
        selector.register(wake_read, selectors.EVENT_READ, "child")
        last = time.monotonic()
        while True:
            wait = None if self.busy() else max(0.0, last + idle - time.monotonic())
            events = selector.select(wait)
            if not events and not self.busy() and time.monotonic() >= last + idle:
                return 0
            for key, _ in events:
                if key.data == "child":
                    while len(os.read(wake_read, 4096)) == 4096:
                        pass
                    continue
                message, fds, _, _ = socket.recv_fds(self.control, 4096, MAX_FDS)
                if not message and not fds:
                    return 0  # the server closed its end, or died
                order = json.loads(message)
                try:
                    if order.get("op") == "prepare" and len(fds) >= 2 and not self.prepare(fds):
                        return 0
                    if order.get("op") == "run" and len(fds) >= 4 and not self.run(fds):
                        return 0
                finally:  # the children have their own copies
                    for fd in fds:
                        os.close(fd)
            self.reap()
            last = time.monotonic()


def main(argv: list[str]) -> int:
    _LIBC.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)  # commands (same uid) cannot ptrace or read our memory
    # As the sandbox's pid 1 the runner receives, from inside, only the signals it handles: Python handles SIGINT
    # (KeyboardInterrupt), and `kill -INT 1` ended the runner and every command with it. SIGCHLD is the one it uses.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return Runner(socket.socket(fileno=int(argv[0]))).serve(float(argv[1]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
