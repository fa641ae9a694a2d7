"""One grade under a time and a memory limit, in a process of its own: what every farm calls to grade.

The agent shaped the workspace being read (20,000 sibling folders, a 2 MB report at a checked path, ...), so
reading and grading it runs in a grading process (`python -m envcraft.core.bounded_grade`) that limits its own
memory and CPU for each job, is killed at the job's time limit, and spends its own descriptors; the caller's
event loop only awaits a worker thread that waits for it. The processes are pooled (started once, about 0.5 s
of imports, then a grade costs milliseconds, as in process) and replaced after a kill, a memory error or
500 jobs. A grade that cannot finish (time, memory, or
an error reading what the agent left) is a definite verdict: reward 0, and `Grade.unfinished` says why; the
runner records it as the episode's own failure (boundary `task`), which every report counts
(core/outcomes.py). Only a grader that could not start (no process, no pipe) or broke on its own (an
exception of ours, not a limit) raises GraderFailure: that is the infrastructure's failure.
"""

from __future__ import annotations

import os
import resource
import selectors
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import anyio.to_thread
from envcraft.core.diff import state_diff
from envcraft.core.grading import Grade, Snapshot, grade
from envcraft.core.tasks import Task
from pydantic import BaseModel, ConfigDict


class GradeLimits(BaseModel):
    """How much one grade may take. The time is under the control client's 60 s, so the verdict arrives."""

    model_config = ConfigDict(frozen=True)
    seconds: float = 30.0  # wall clock, from the child's start to its answer
    memory_bytes: int = 2 * 2**30  # address space the grade may add to its idle process (RLIMIT_AS above it);
    # the workspace read stops at 128 MB


class GraderFailure(RuntimeError):
    """The grading process could not start or broke on its own, not at a limit: the infrastructure's failure."""


class _Job(BaseModel):
    """What the parent sends a grading process: one JSON line on its stdin."""

    task: Task
    baseline: dict[str, Snapshot]
    workspaces: dict[str, Path]
    limits: GradeLimits
    diff: bool


def _verdict(why: str) -> Grade:
    return Grade(reward=0.0, passed=False, checks=[], unfinished=why)


def _address_space() -> int:
    """This process's mapped address space now (VmSize), what RLIMIT_AS counts."""
    with open("/proc/self/status", "rb") as status:
        for line in status:
            if line.startswith(b"VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _graded(job: _Job) -> Grade:
    """In the grading process, under the job's own limits: read every workspace, grade."""
    limit = _address_space() + job.limits.memory_bytes
    spent = resource.getrusage(resource.RUSAGE_SELF)
    cpu = int(spent.ru_utime + spent.ru_stime + job.limits.seconds) + 2  # a backstop: the parent kills at wall clock
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, resource.RLIM_INFINITY))
    try:
        final = {name: Snapshot.of(path) for name, path in job.workspaces.items()}
        result = grade(job.task, job.baseline, final)
        if job.diff:
            result = result.model_copy(update={"state_diff": {name: state_diff(job.baseline[name], state)
                                                              for name, state in final.items()}})
        return result
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


def _child() -> None:
    """The grading process: one job per line on stdin, one Grade per line on stdout, until stdin closes. A job
    that ran out of memory answers its verdict and then ends the process (what is left of it is not trusted)."""
    while line := sys.stdin.buffer.readline():
        job = _Job.model_validate_json(line)
        spent = False
        try:
            result = _graded(job)
        except MemoryError:
            result, spent = _verdict(f"grading needed more than {job.limits.memory_bytes // 2**20} MB of memory"), True
        except Exception as exc:  # noqa: BLE001 - what the agent left could not be read: a verdict, not a crash
            result = _verdict(f"the workspace could not be graded ({type(exc).__name__}: {str(exc)[:300]})")
        sys.stdout.buffer.write(result.model_dump_json().encode() + b"\n")
        sys.stdout.buffer.flush()
        if spent:
            return


class _Late(Exception):
    """A grading process missed its job's deadline and was killed."""


class _Worker:
    """One long-lived grading process (started once, about 0.5 s of imports, then milliseconds a grade)."""

    JOBS = 500  # then it is replaced, so nothing one grade left behind in its memory outlives many others

    def __init__(self) -> None:
        self.errors = tempfile.TemporaryFile()  # noqa: SIM115 - its stderr, read when it dies; closed by stop()
        try:
            self.process = subprocess.Popen([sys.executable, "-P", "-m", "envcraft.core.bounded_grade"],
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors)
        except OSError as exc:
            self.errors.close()
            raise GraderFailure(f"no grading process could be started ({type(exc).__name__}: {exc})") from exc
        self.jobs = 0

    def ask(self, job: _Job) -> bytes | None:
        """The answer line, or None when the process ended without one. Raises _Late past the job's deadline
        (the process is killed), BrokenPipeError if it was gone before it took the job."""
        self.jobs += 1
        deadline = time.monotonic() + job.limits.seconds
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(job.model_dump_json().encode() + b"\n")
        self.process.stdin.flush()
        out, answer = self.process.stdout.fileno(), bytearray()
        with selectors.DefaultSelector() as wait:
            wait.register(out, selectors.EVENT_READ)
            while not answer.endswith(b"\n"):
                left = deadline - time.monotonic()
                if left <= 0 or not wait.select(left):
                    self.stop()
                    raise _Late
                chunk = os.read(out, 1 << 20)
                if not chunk and not answer and self.jobs > 1:
                    raise BrokenPipeError("it ended while idle")  # after an earlier job: that job's business
                if not chunk:
                    return None
                answer += chunk
        return bytes(answer)

    def said(self) -> str:
        """The end of what an ended process wrote on stderr."""
        self.process.wait()
        self.errors.seek(0)
        return self.errors.read().decode("utf-8", "replace")[-500:]

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe:
                pipe.close()
        self.errors.close()


class _Pool:
    """Idle grading processes of this process (a forked child starts its own), at most `size` grades at once."""

    def __init__(self, size: int = 4) -> None:
        self.owner = os.getpid()
        self.lock = threading.Lock()
        self.idle: list[_Worker] = []
        self.running = threading.BoundedSemaphore(size)

    def take(self) -> _Worker:
        with self.lock:
            if self.idle:
                return self.idle.pop()
        return _Worker()

    def give(self, worker: _Worker) -> None:
        if worker.jobs >= worker.JOBS or worker.process.poll() is not None:
            worker.stop()
            return
        with self.lock:
            self.idle.append(worker)


_pool = _Pool()


def _pool_here() -> _Pool:
    global _pool
    if _pool.owner != os.getpid():  # forked: the parent's processes are the parent's to use
        _pool = _Pool()
    return _pool


def close_idle() -> None:
    """End this process's idle grading processes: a farm calls it when it closes, so a finished run leaves no
    process behind (a later grade starts a new one)."""
    pool = _pool_here()
    with pool.lock:
        idle, pool.idle = pool.idle, []
    for worker in idle:
        worker.stop()


def _run(job: _Job) -> Grade:
    """On a worker thread: one grade in a pooled grading process, at most `seconds` (then the process is killed)."""
    limits, pool = job.limits, _pool_here()
    with pool.running:
        worker = pool.take()
        try:
            try:
                answer = worker.ask(job)
            except BrokenPipeError:  # it ended while idle: a fresh one takes the job
                worker.stop()
                worker = _Worker()
                answer = worker.ask(job)
        except BrokenPipeError:
            worker.stop()
            raise GraderFailure("the grading process ended before it took the job") from None
        except _Late:
            return _verdict(f"grading did not finish within {limits.seconds:g} s")
    if answer is not None:
        result = Grade.model_validate_json(answer)
        if result.unfinished:  # a process that hit a limit is not trusted with the next grade
            worker.stop()
        else:
            pool.give(worker)
        return result
    said, code = worker.said(), worker.process.returncode
    worker.stop()
    if code < 0 or "MemoryError" in said:  # killed at its CPU limit, by the OOM killer, or out of memory
        return _verdict(f"grading ended at its limits (exit code {code}; "
                        f"{limits.memory_bytes // 2**20} MB, {limits.seconds:g} s)")
    raise GraderFailure(f"the grading process failed (exit code {code}): {said}")


async def bounded_grade(task: Task, baseline: dict[str, Snapshot], workspaces: dict[str, Path],
                        limits: GradeLimits = GradeLimits(), *, diff: bool = False) -> Grade:
    """Grade the final state of `workspaces` (environment -> folder) against `baseline` (environment ->
    initial Snapshot) within `limits`; with `diff`, the Grade carries each environment's state diff."""
    job = _Job(task=task, baseline=baseline, workspaces=workspaces, limits=limits, diff=diff)
    return await anyio.to_thread.run_sync(_run, job)


__all__ = ["GradeLimits", "GraderFailure", "bounded_grade", "close_idle"]

if __name__ == "__main__":
    _child()
