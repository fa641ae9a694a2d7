"""The bwrap sandbox (bubblewrap namespaces): no network, a read-only system, only the workspace writable. The
default where bwrap is installed.

Under bwrap with an envelope, an episode's commands run in one warm sandbox (warm.py: bwrap and a small runner
started on the first command, each command a fresh child in its own leaf), which costs a fork and an exec per
command instead of a new sandbox. Without an envelope every command gets a sandbox of its own (the cold path: its
pid namespace ends what it left); where that cannot be made safe either (no unprivileged uid to run as), the shell
refuses to run commands unless the operator accepts rlimits alone (cgroups.fallback()).

Where the server is root, every bwrap command (warm or cold, with or without an envelope) runs as a host uid of
its episode's own, never as host root: the kernel's per-user budgets (epoll watches, pipe pages, message queues,
RLIMIT_NPROC ...) are then the episode's, not shared with every root process on the host (unprivileged.py).

The app state (`.app/`) is mounted read-only: the environment's CLI verbs reach it through the operation socket
(opsocket.py), so the shell changes app state only through the same checked operations as the MCP tools. The
runtime package itself is mounted read-only at /opt/envcraft_runtime, beside the environment at /opt/env, where the
CLI shim finds it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path

from ..cgroups import CommandCgroup, EpisodeCgroup, fallback, later
from ..container import kill_everything_of, processes_of
from ..failures import ToolFailure
from ..opsocket import SOCKET_ENV
from ..seccomp import filter_file
from ..shell import JOIN_AND_EXEC, RUNTIME_DIR, Shell, ShellResult, launch_env
from ..store import APP_DIR
from ..unprivileged import EpisodeUid, Listed, claim_episode_uid, drop_to, hand_over
from ..unprivileged import available as can_drop_root
from ..warm import WarmSandbox


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


class BwrapShell(Shell):
    """Each command in bubblewrap namespaces: warm (one sandbox per episode) where the episode has a cgroup."""

    name = "bwrap"
    needs_envelope = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._warm: WarmSandbox | None = None
        self._drops_root = can_drop_root()  # a root server: commands run as self._uid
        self._uid: int | None = None  # the unprivileged host uid this episode's commands run as
        self._claim: EpisodeUid | None = None  # held until close(): no other live episode gets that uid
        self._claiming = threading.Lock()  # parallel first commands claim one uid, not one each
        self._listed = Listed()  # what the hand-overs of the workspace to that uid found unchanged
        self._one_at_a_time = threading.Lock()

    def _stop(self) -> None:
        with self._ending:
            warm, self._warm = self._warm, None
        if warm:
            warm.close()

    def _release(self) -> list[str]:
        """Nothing of this episode outlives it as the uid the next claimant gets."""
        if not self._claim:
            return []
        left = []
        kill_everything_of(self._claim.uid)
        deadline = time.monotonic() + 5
        while (still := processes_of(self._claim.uid)) and time.monotonic() < deadline:
            time.sleep(0.01)  # killed, still exiting
        if still:
            left.append(f"uid {self._claim.uid} still runs {still}")
        else:  # a uid some process still runs as is never handed to another episode
            self._claim.release()
        self._claim, self._uid, self._listed = None, None, Listed()
        return left

    def argv(self, command: str, uid: int | None = None) -> tuple[list[str], Path]:
        # bwrap starts in / (its sh wrapper exports PWD, which the sandbox's pid 1 keeps): no host path inside.
        shell = ["/bin/sh", "-c", command]
        if uid is not None:  # the uid enters the workspace itself: it may be 0700, and bwrap's capless root may not
            shell = drop_to(uid, ["env", "-C", "/workspace", *shell])
        return ["bwrap", "--die-with-parent", *self._bwrap_options(uid), "--", *shell], Path("/")

    def _pass_options(self, argv: list[str], fds: list[int]) -> list[str]:
        """Options through a descriptor: /proc/1/cmdline in the sandbox shows no host path."""
        split = argv.index("--")
        fds.append(filter_file())
        fds.append(args_file(["--seccomp", str(fds[0]), *argv[1:split]]))
        return [argv[0], "--args", str(fds[1]), *argv[split + 1:]]

    def _bwrap_options(self, uid: int | None = None) -> list[str]:
        """Namespaces, mounts and environment of the bwrap sandbox (the command comes after them). With `uid`
        (a root server: unprivileged.py) no user namespace, so that uid is a real host uid the kernel's per-user
        budgets and RLIMIT_NPROC bind, and only the capabilities setpriv needs to become it."""
        argv = ["--unshare-all", "--cap-drop", "ALL"] if uid is None else \
            ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try", "--cap-drop", "ALL",
             *[flag for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP") for flag in ("--cap-add", cap)]]
        argv += ["--new-session", "--hostname", "sandbox", "--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev",
                 "--perms", "1777", "--tmpfs", "/dev/shm", "--mqueue", "/dev/mqueue", "--perms", "1777", "--tmpfs", "/tmp",
                 "--dir", "/etc"]
        # Where the sandbox's uid 0 is the host's (a root server without setpriv), the kernel lets it write GLOBAL
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
            for parent in reversed(Path(sys.base_prefix).parents[:-1]):  # traversable by an unprivileged uid (/root is 0700)
                argv += ["--perms", "0755", "--dir", str(parent)]
            argv += ["--ro-bind", sys.base_prefix, sys.base_prefix]
        for folder in package_folders():
            argv += ["--tmpfs", folder]
        # bwrap makes a bind's missing parents 0700: an unprivileged uid could not reach /opt/env nor /run/envcraft.
        argv += ["--perms", "0755", "--dir", "/opt", "--perms", "0755", "--dir", "/run"]
        argv += ["--ro-bind", str(self.env_dir), "/opt/env", "--ro-bind", str(RUNTIME_DIR), "/opt/envcraft_runtime",
                 "--bind", str(self.workspace), "/workspace"]
        ops = self._operation_socket()
        if ops and (self.workspace / APP_DIR).is_dir():
            argv += ["--ro-bind", str(self.workspace / APP_DIR), f"/workspace/{APP_DIR}",
                     "--ro-bind", str(ops.folder), "/run/envcraft"]
        # Only the workspace, /tmp, /dev/shm and /dev/mqueue (POSIX message queues, listed there) stay writable:
        # nothing else can carry from one command to the next.
        argv += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/workspace" if uid is None else "/", "--clearenv"]
        for name, value in self._sandbox_env().items():
            argv += ["--setenv", name, value]
        return argv

    def _sandbox_env(self) -> dict[str, str]:
        python_bin = Path(sys.base_prefix) / "bin"
        env = {"PATH": f"/opt/env/bin:{python_bin}:/usr/local/bin:/usr/bin:/bin", "HOME": "/workspace",
               "ENVCRAFT_WORKSPACE": "/workspace", "LANG": "C.UTF-8"}
        if self._operation_socket():
            env[SOCKET_ENV] = "/run/envcraft/ops.sock"
        return env

    def _run(self, command: str, wall: float, uid: int | None) -> ShellResult:
        envelope = self.envelope()
        if envelope is not None and self.settings.warm_shell:
            return self._run_warm(command, wall, envelope)
        if envelope is None and fallback() == "uid":
            return self._run_as_episode_uid(command, wall)
        return self._run_cold(command, wall, uid, envelope, drop=self._command_uid())

    def _command_uid(self) -> int | None:
        """The host uid this episode's bwrap commands run as, the workspace handed over to it (unprivileged.py);
        None where the server is not root (bwrap then makes a user namespace of the server's own uid)."""
        if not self._drops_root:
            return None
        with self._claiming:
            self._refuse_if_closed()
            if self._uid is None:
                try:
                    self._claim = claim_episode_uid()
                except OSError as exc:
                    raise ToolFailure(f"the sandbox cannot start: no host uid of its own for this episode ({exc}); "
                                      "the operator must fix the host (see `envcraft doctor`)") from None
                self._uid = self._claim.uid
        hand_over(self.workspace, self._uid, self._listed)
        ops = self._operation_socket()
        if ops:
            os.chmod(ops.folder, 0o711)  # the uid may reach the socket, not list the folder
        return self._uid

    def _run_as_episode_uid(self, command: str, wall: float) -> ShellResult:
        """No cgroup: a cold sandbox as this episode's uid, one command at a time; whatever that uid still runs
        anywhere afterwards is killed (nothing else ends a daemon that left the sandbox's pid namespace's reach)."""
        with self._one_at_a_time:
            drop = self._command_uid()
            try:
                return self._run_cold(command, wall, None, None, drop=drop)
            finally:
                if drop is not None:
                    kill_everything_of(drop)

    def _run_warm(self, command: str, wall: float, envelope: EpisodeCgroup) -> ShellResult:
        """In the episode's warm sandbox (warm.py): the same leaf, rlimits and caps as a cold command."""
        self._command_uid()  # what the server wrote since the last command becomes the uid's to write too
        with self._ending:
            self._refuse_if_closed()
            if self._warm is None:
                self._warm = WarmSandbox(self._spawn_sandbox, envelope, self._identity)
            warm = self._warm
        request = {"command": command, "cwd": "/workspace", "env": self._sandbox_env(),
                   "rlimits": [(kind, value) for _, kind, value in self._rlimits(in_cgroup=True)]}
        for attempt in (1, 2, 3):
            running, control = warm.start_command(request)
            try:
                stdout, stderr, truncated, timed_out = self._read_output(running.stdout, running.stderr, wall, running)
                emptied = running.cgroup.kill()  # whatever the command left running ends here, from outside the sandbox
                running.wait(5.0)
                if not emptied:  # the next command starts after the cleanup or in a new sandbox, never half way
                    warm.stop_if(control)
            finally:
                running.cgroup.kill()
                later(running.cgroup.destroy)  # the emptied leaf is removed off the command's path
                running.close()
            if running.started or timed_out:
                break
            if running.refused and "error" in running.refused:
                raise ToolFailure(running.refused["error"])
            # It never ran. Handed to a spare the runner had refused (another command was running, which must go on):
            # the sandbox is fine and the next attempt asks the runner itself. Otherwise it was gone or asked to go.
            if not (running.refused and "busy" in running.refused):
                warm.stop_if(control)
            if attempt == 3:
                raise ToolFailure("the sandbox could not start the command: try again")
        if running.exit is None and not running.gone:  # the runner was stopped (SIGSTOP) or is wedged: never reuse it
            warm.stop_if(control)
        later(warm.prepare)  # the next command's leaf and spare child, off this command's path
        code = 124 if timed_out else 137 if running.exit is None else running.exit  # 137: the runner was killed
        return ShellResult(exit_code=code, stdout=stdout, stderr=stderr, timed_out=timed_out, truncated=truncated)

    def _identity(self) -> tuple:
        """What the warm sandbox bound: a workspace (or app-state) folder replaced since needs a new sandbox."""
        found = []
        for path in (self.workspace, self.workspace / APP_DIR):
            try:
                info = os.stat(path)
                found.append((info.st_dev, info.st_ino))
            except OSError:
                found.append(None)
        return tuple(found)

    def _spawn_sandbox(self, control_fd: int, cgroup: CommandCgroup) -> subprocess.Popen:
        """bwrap + the runner, in the sandbox's own leaf of the envelope; no rlimits (each command takes its own)."""
        python = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
        seccomp_fd = filter_file()
        # --as-pid-1: the runner (not dumpable: no ptrace) is the sandbox's pid 1, not bwrap's reaper, which was: a
        # command ptraced it into exec'ing a program of its own, which outlived the command in the sandbox's own leaf
        # and wrote into the next command's output. A pid 1 also takes no SIGSTOP or SIGKILL from inside.
        # With self._uid (a root server) the runner, and so every command, is that uid: setpriv is pid 1 until it execs.
        args_fd = args_file(["--seccomp", str(seccomp_fd), "--as-pid-1", *self._bwrap_options(self._uid)])
        try:
            runner = [str(python if python.exists() else "python3"), "-I", "-S", "/opt/envcraft_runtime/warm_runner.py",
                      str(control_fd), f"{self.settings.warm_idle_seconds:g}"]
            argv = ["bwrap", "--args", str(args_fd), *(drop_to(self._uid, runner) if self._uid else runner)]
            joins = [str(path / "cgroup.procs") for path in cgroup.paths]
            wrapper = ["/bin/sh", "-c", JOIN_AND_EXEC, "envcraft-contain", *joins, "--", *argv]
            return subprocess.Popen(wrapper, cwd="/", stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, start_new_session=True, env=launch_env(),
                                    pass_fds=[args_fd, seccomp_fd, control_fd])
        finally:
            os.close(args_fd)
            os.close(seccomp_fd)


def args_file(options: list[str]) -> int:
    """A memory file holding bwrap options, NUL-separated, for `bwrap --args FD`."""
    fd = os.memfd_create("envcraft-bwrap-args", os.MFD_CLOEXEC)
    os.write(fd, b"".join(option.encode() + b"\0" for option in options))
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
