"""The episode API in process: the registry launches each environment, grading reads the workspaces."""

from __future__ import annotations

import contextlib
import uuid
from pathlib import Path
from typing import Any

import anyio.to_thread
from envcraft.core.bounded_grade import GradeLimits, GraderFailure, close_idle
from envcraft.core.grading import Grade
from envcraft.core.tasks import Task
from envcraft.harness.errors import ServerFailure, TaskFailure
from envcraft.harness.farm_base import FarmBase, Opened
from envcraft.harness.farm_benchmarks import begin_bench_turn, benchmark_of, grade_bench, is_bench, open_bench
from envcraft.registry import catalog
from envcraft.registry.launch import InProcessLauncher, Launcher, launch
from envcraft.registry.lifecycle import Lifecycle, Member, UnknownTask
from envcraft.registry.workspaces import WorkspaceRoot


class LocalFarm(FarmBase):
    """`async with LocalFarm() as farm:` the episode API over in-process (or stdio, docker) instances. Tasks,
    initial states, baselines and grades come from the lifecycle the gateway uses too (registry/lifecycle.py)."""

    def __init__(self, launcher: Launcher | None = None, root: WorkspaceRoot | None = None,
                 tasks_dir: Path | None = None, tool_seconds: float = 120.0, grade_limits: GradeLimits = GradeLimits(),
                 lifecycle: Lifecycle | None = None):
        super().__init__(tool_seconds)
        self.life = lifecycle or Lifecycle(tasks_dir, grade_limits)
        self.launcher = launcher or InProcessLauncher()
        self._own_root = root is None
        self.root = root or WorkspaceRoot()

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
        try:
            return self.life.task(task_id)
        except UnknownTask as exc:
            raise TaskFailure(str(exc)) from None

    async def _open(self, stack: contextlib.AsyncExitStack, task: str | Task) -> Opened:
        task = self._task(task) if isinstance(task, str) else task
        if (bench := benchmark_of(task)) is not None:
            return await open_bench(stack, bench, task)
        try:
            envs = [catalog.get(name) for name in task.envs]
        except KeyError as exc:
            raise TaskFailure(str(exc.args[0] if exc.args else exc)) from None
        # The launcher checks the workspace out (a Docker container comes with its own) and connects its server.
        instances = [await stack.enter_async_context(launch(env, self.launcher, self.root,
                                                            self.life.initial(task, env.name))) for env in envs]
        members = {i.env.name: Member(i.workspace, await anyio.to_thread.run_sync(self.life.baseline, i.workspace))
                   for i in instances}
        return Opened(id=uuid.uuid4().hex, task_id=task.id, turns=task.turns,
                      clients={i.env.name: i.client for i in instances}, state=(task, members))

    def _server_decides(self, opened: Opened) -> bool:
        return is_bench(opened)

    async def _begin_turn(self, opened: Opened, index: int) -> bool:
        return await begin_bench_turn(opened, index)

    async def _grade(self, opened: Opened) -> Grade:
        if is_bench(opened):
            return await grade_bench(opened)
        task, members = opened.state
        try:
            return await self.life.grade(task, members)
        except GraderFailure as exc:  # the grader's own failure: the infrastructure's, retried by a resumed run
            raise ServerFailure(str(exc)) from exc
