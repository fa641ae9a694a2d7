"""One grade under a time and a memory limit, in a process of its own: what every farm calls to grade.

The agent shaped the workspace being read (20,000 sibling folders, a 2 MB report at a checked path, ...), so
reading and grading it runs in a child interpreter (`python -m envcraft.core.bounded_grade`, about 0.15 s to
start) that limits its own memory, is killed at its time limit, and spends its own descriptors; the caller's
event loop only awaits a worker thread that waits for the child. A grade that cannot finish (time, memory, or
an error reading what the agent left) is a definite verdict: reward 0, and `Grade.unfinished` says why; the
runner records it as the episode's own failure (boundary `task`), which every report counts
(core/outcomes.py). Only a grader that could not start (no process, no pipe) or broke on its own (an
exception of ours, not a limit) raises GraderFailure: that is the infrastructure's failure.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import threading
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
    memory_bytes: int = 2 * 2**30  # the child's address space (RLIMIT_AS); its file reads stop at 128 MB


class GraderFailure(RuntimeError):
    """The grading process could not start or broke on its own, not at a limit: the infrastructure's failure."""


class _Job(BaseModel):
    """What the parent sends the child on its stdin."""

    task: Task
    baseline: dict[str, Snapshot]
    workspaces: dict[str, Path]
    limits: GradeLimits
    diff: bool


def _verdict(why: str) -> Grade:
    return Grade(reward=0.0, passed=False, checks=[], unfinished=why)


def _child() -> None:
    """In the grading process: read the job, limit itself, read every workspace, grade, print the Grade."""
    job = _Job.model_validate_json(sys.stdin.buffer.read())
    limit = job.limits.memory_bytes
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    cpu = int(job.limits.seconds) + 2  # a backstop: the parent kills it at `seconds` of wall clock
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    try:
        final = {name: Snapshot.of(path) for name, path in job.workspaces.items()}
        result = grade(job.task, job.baseline, final)
        if job.diff:
            result = result.model_copy(update={"state_diff": {name: state_diff(job.baseline[name], state)
                                                              for name, state in final.items()}})
    except MemoryError:
        result = _verdict(f"grading needed more than {limit // 2**20} MB of memory")
    except Exception as exc:  # noqa: BLE001 - what the agent left could not be read: a verdict, not a crash
        result = _verdict(f"the workspace could not be graded ({type(exc).__name__}: {str(exc)[:300]})")
    sys.stdout.buffer.write(result.model_dump_json().encode())


_running = threading.BoundedSemaphore(4)  # grades at once in this process; more wait their turn


def _run(job: _Job) -> Grade:
    """On a worker thread: run the child, wait for its answer at most `seconds` (then it is killed)."""
    limits = job.limits
    with _running:
        try:
            done = subprocess.run([sys.executable, "-P", "-m", "envcraft.core.bounded_grade"], capture_output=True,
                                  input=job.model_dump_json().encode(), timeout=limits.seconds, check=False)
        except subprocess.TimeoutExpired:
            return _verdict(f"grading did not finish within {limits.seconds:g} s")
        except OSError as exc:
            raise GraderFailure(f"no grading process could be started ({type(exc).__name__}: {exc})") from exc
    if done.returncode == 0 and done.stdout:
        return Grade.model_validate_json(done.stdout)
    said = done.stderr.decode("utf-8", "replace")
    if done.returncode < 0 or "MemoryError" in said:  # killed at its CPU limit, by the OOM killer, or out of memory
        return _verdict(f"grading ended at its limits (exit code {done.returncode}; "
                        f"{limits.memory_bytes // 2**20} MB, {limits.seconds:g} s)")
    raise GraderFailure(f"the grading process failed (exit code {done.returncode}): {said[-500:]}")


async def bounded_grade(task: Task, baseline: dict[str, Snapshot], workspaces: dict[str, Path],
                        limits: GradeLimits = GradeLimits(), *, diff: bool = False) -> Grade:
    """Grade the final state of `workspaces` (environment -> folder) against `baseline` (environment ->
    initial Snapshot) within `limits`; with `diff`, the Grade carries each environment's state diff."""
    job = _Job(task=task, baseline=baseline, workspaces=workspaces, limits=limits, diff=diff)
    return await anyio.to_thread.run_sync(_run, job)


__all__ = ["GradeLimits", "GraderFailure", "bounded_grade"]

if __name__ == "__main__":
    _child()
