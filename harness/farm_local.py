"""The episode API in process: the registry launches each environment, grading reads the workspaces."""

from __future__ import annotations

import contextlib
import uuid
from pathlib import Path
from typing import Any

import anyio.to_thread
from envcraft.benchmarks.registry import find_task
from envcraft.core.bounded_grade import GradeLimits, GraderFailure, bounded_grade, close_idle
from envcraft.core.grading import Grade, Snapshot
from envcraft.core.tasks import TASKS_DIR, Task, task_index
from envcraft.harness.errors import ServerFailure, TaskFailure
from envcraft.harness.farm_base import FarmBase, Opened
from envcraft.harness.farm_benchmarks import begin_bench_turn, benchmark_of, grade_bench, is_bench, open_bench
from envcraft.registry import catalog
from envcraft.registry.launch import InProcessLauncher, Launcher, launch
from envcraft.registry.workspaces import WorkspaceRoot


async def _snapshot(workspace: Path) -> Snapshot:
    """Snapshot.of in a worker thread (the baseline: the seed's tree, before the agent acts)."""
    return await anyio.to_thread.run_sync(Snapshot.of, workspace)


class LocalFarm(FarmBase):
    """`async with LocalFarm() as farm:` the episode API over in-process (or stdio, docker) instances."""

    def __init__(self, launcher: Launcher | None = None, root: WorkspaceRoot | None = None,
                 tasks_dir: Path | None = None, tool_seconds: float = 120.0, grade_limits: GradeLimits = GradeLimits()):
        super().__init__(tool_seconds)
        self.grade_limits = grade_limits  # each grade's time and memory (core/bounded_grade.py)
        self.launcher = launcher or InProcessLauncher()
        self._own_root = root is None
        self.root = root or WorkspaceRoot()
        self.tasks_dir = tasks_dir
        self._tasks: dict[str, Task] | None = None

    async def __aexit__(self, *exc: Any) -> None:
        try:
            await super().__aexit__(*exc)
        finally:
            close_idle()  # the grading processes this farm's grades left idle (core/bounded_grade.py)
            if self._own_root:
                self.root.close()

    def prewarm(self, counts: dict[str, int]) -> None:
        """Fresh workspace copies ready per environment (as many as will run at once)."""
        known = catalog.discover()
        for name, count in counts.items():
            if name in known:
                self.root.prewarm(name, known[name].seed, count)

    def _task(self, task_id: str) -> Task:
        if self._tasks is None:
            self._tasks = task_index(self.tasks_dir or TASKS_DIR)
        if task_id not in self._tasks and (found := find_task(task_id)) is not None:
            return found
        if task_id not in self._tasks:
            raise TaskFailure(f"no task {task_id!r} in {self.tasks_dir or TASKS_DIR}")
        return self._tasks[task_id]

    async def _open(self, stack: contextlib.AsyncExitStack, task: str | Task) -> Opened:
        task = self._task(task) if isinstance(task, str) else task
        if (bench := benchmark_of(task)) is not None:
            return await open_bench(stack, bench, task)
        try:
            envs = [catalog.get(name) for name in task.envs]
        except KeyError as exc:
            raise TaskFailure(str(exc.args[0] if exc.args else exc)) from None
        instances = [await stack.enter_async_context(launch(env, self.launcher, self.root, task.initial_for(env.name)))
                     for env in envs]
        baseline = {i.env.name: await _snapshot(i.workspace) for i in instances}
        return Opened(id=uuid.uuid4().hex, task_id=task.id, turns=task.turns,
                      clients={i.env.name: i.client for i in instances}, state=(task, instances, baseline))

    def _server_decides(self, opened: Opened) -> bool:
        return is_bench(opened)

    async def _begin_turn(self, opened: Opened, index: int) -> bool:
        return await begin_bench_turn(opened, index)

    async def _grade(self, opened: Opened) -> Grade:
        if is_bench(opened):
            return await grade_bench(opened)
        task, instances, baseline = opened.state
        try:
            return await bounded_grade(task, baseline, {i.env.name: i.workspace for i in instances}, self.grade_limits,
                                       diff=True)
        except GraderFailure as exc:  # the grader's own failure: the infrastructure's, retried by a resumed run
            raise ServerFailure(str(exc)) from exc
