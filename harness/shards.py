"""Episodes sharded over farm workers, rollouts streamed into one log: `run --workers N` and `run --ray`.

A worker (a local process here, a Ray actor in ray_runner) runs one batch of (task, attempt) episodes at
a time with its own in-process farm and pools, and hands the rollouts back as JSON. The driver alone
appends them to the run's rollouts.jsonl as each batch lands (one writer: nothing twice, a killed run
resumes from what the log holds), and hands out small batches so a busy worker takes fewer.

`run --workers N` starts N spawned processes on this machine (one per core gets past one interpreter's
CPU bound); "auto" is one per core. The default is 1: the run stays in one process, as before.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing
import os
import queue
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import anyio
from envcraft.core.rollout import Rollout
from envcraft.core.tasks import Task
from envcraft.harness.runner import RolloutLog, run_pairs

Pair = tuple[Task, int]


def parse_workers(value: str) -> int:
    """`--workers`: a count, or "auto" for one per core."""
    if value == "auto":
        return os.cpu_count() or 1
    count = int(value)
    if count < 1:
        raise ValueError(f"--workers must be at least 1 or 'auto', not {value!r}")
    return count


def todo(settings: Any, agent_name: str, tasks: list[Task], log: RolloutLog) -> list[Pair]:
    """The (task, attempt) episodes the log does not hold yet (or holds as a retryable infra failure)."""
    return [(task, attempt) for task in tasks for attempt in range(settings.attempts)
            if log.pending((task.id, agent_name, attempt), settings.retries)]


def batches(pairs: list[Pair], size: int) -> list[list[Pair]]:
    return [pairs[i:i + size] for i in range(0, len(pairs), max(size, 1))]


def recorded(settings: Any, agent_name: str, tasks: list[Task], log: RolloutLog) -> list[Rollout]:
    """This agent's rollouts, old and new, in task order."""
    wanted = [(task.id, agent_name, attempt) for task in tasks for attempt in range(settings.attempts)]
    return [log.done[key] for key in wanted if key in log.done]


def land(lines: Iterable[str], log: RolloutLog, on_done: Callable[[Rollout], None] | None) -> None:
    """A worker's batch into the one log, as it arrives."""
    for line in lines:
        rollout = Rollout.model_validate_json(line)
        log.append(rollout)
        if on_done:
            on_done(rollout)


async def run_batch(settings: Any, agent_name: str, make_agent: Callable[..., Any], tasks_json: list[str],
                    attempts: list[int], run_id: str, node: str,
                    stream: Callable[[str], None] | None = None) -> list[str]:
    """The rollouts of exactly these (task, attempt) episodes, as JSON, each naming the worker's `node`;
    `stream` gets each one as it finishes (and then none are returned)."""
    from envcraft.registry.launch import make_launcher

    tasks = [Task.model_validate_json(t) for t in tasks_json]
    agent = make_agent(agent_name, settings, tasks)
    launcher = make_launcher(settings.launcher, settings.farm())
    done: list[str] = []
    send = stream or done.append

    def finished(rollout: Rollout) -> None:
        send(rollout.model_copy(update={"node": node}).model_dump_json())

    with tempfile.TemporaryDirectory() as scratch:  # the driver's log is the record; this is a buffer
        await run_pairs(list(zip(tasks, attempts)), agent, launcher, RolloutLog(Path(scratch) / "b.jsonl"),
                        run_id=run_id, limits=settings.limits, concurrency=settings.concurrency, on_done=finished)
    return done


_stream: Any = None  # this worker's queue to the driver


def _start_worker(settings: Any, ready: Any, stream: Any) -> None:
    """A worker process's start: its farm's settings come with each batch (run_batch passes them to the
    launcher), not through the environment."""
    global _stream
    _stream = stream
    import envcraft.harness.agents.policies  # noqa: F401 - with the farm (runner): the slow part of a start
    from envcraft.registry.gc_tuning import collect_less

    collect_less(settings.host)
    # No worker takes a batch before every one has started: else the first up, while the others still
    # import, takes the queue's head, and a short run never reaches the other cores.
    with contextlib.suppress(threading.BrokenBarrierError):
        ready.wait(timeout=120)


def _work(settings: Any, agent_name: str, make_agent: Callable[..., Any], tasks_json: list[str],
          attempts: list[int], run_id: str) -> list[str]:
    node = f"local:{os.getpid()}"  # which worker process served it
    return anyio.run(run_batch, settings, agent_name, make_agent, tasks_json, attempts, run_id, node, _stream.put)


def run_on_processes(settings: Any, agent_name: str, tasks: list[Task], log: RolloutLog, *, run_id: str,
                     make_agent: Callable[..., Any], workers: int,
                     on_done: Callable[[Rollout], None] | None = None, batch: int | None = None) -> list[Rollout]:
    """`settings` is the run's RunSettings; each worker builds its agent with make_agent(name, settings, tasks)."""
    pairs = todo(settings, agent_name, tasks, log)
    # Two large batches per worker: each builds one farm and drains its concurrency at its end (many small
    # ones cost a third of the speed-up), while rollouts stream back one by one as they finish.
    size = batch or max(settings.concurrency, -(-len(pairs) // (workers * 2)), 1)
    chunks = batches(pairs, size)
    workers = max(min(workers, len(chunks)), 1)  # the pool starts a process per waiting batch, at most `workers`
    # Spawned, not forked: the driver already runs threads (the progress bar), which a fork would not carry.
    context = multiprocessing.get_context("spawn")
    stream = context.Queue()
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker,
                                                initargs=(settings, context.Barrier(workers), stream)) as pool:
        futures = [pool.submit(_work, settings, agent_name, make_agent, [t.model_dump_json() for t, _ in chunk],
                               [a for _, a in chunk], run_id) for chunk in chunks]
        try:
            landed, settled = 0, None
            while landed < len(pairs):
                try:
                    line = stream.get(timeout=0.2)
                except queue.Empty:
                    if all(future.done() for future in futures):
                        for future in futures:
                            future.result()  # a worker's crash ends the run here, with what landed kept
                        settled = settled or time.monotonic()  # the rest is still in the queue's pipe
                        if time.monotonic() - settled > 30:
                            raise RuntimeError(f"{len(pairs) - landed} rollout(s) never came back") from None
                    continue
                land([line], log, on_done)
                landed += 1
        except BaseException:
            for future in futures:
                future.cancel()
            raise
    return recorded(settings, agent_name, tasks, log)
