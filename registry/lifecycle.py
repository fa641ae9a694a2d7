"""One episode lifecycle for every farm: the in-process farm (harness/farm_local.py) and the gateway
(registry/gateway.py, episode_groups.py) both start, grade and end their episodes here, single- and
multi-environment, so the two cannot drift (they did: the gateway once graded without the state diff).

    task id     -> Task             one task index, read once; a foreign benchmark's task by its id otherwise
    environment -> initial state    each environment of a task from its own S0 (`Task.initial_for`)
    checkout    -> baseline         the workspace as the seed and S0 make it, snapshotted before the agent acts
    grade                           every check against the environment it names, with each one's state diff,
                                    in a bounded grading process (core/bounded_grade.py)
    checkin                         the workspace back to the pool (rebuilt from the seed) or removed

What stays with each farm is how the work is scheduled: the gateway runs checkout and checkin on its own
workspace threads under its time limits; the in-process farm's launchers connect a server (in process, over
stdio, or in a Docker container) to the workspace checked out here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from envcraft.benchmarks.registry import find_task
from envcraft.core.bounded_grade import GradeLimits, bounded_grade
from envcraft.core.grading import Grade, Snapshot
from envcraft.core.state import InitialState
from envcraft.core.tasks import TASKS_DIR, Task, task_index
from envcraft.registry.catalog import Environment
from envcraft.registry.workspaces import WorkspaceRoot


class UnknownTask(LookupError):
    """No task by that id: each farm answers it in its own terms (a TaskFailure, a 404)."""


@dataclass
class Member:
    """One environment of a live episode, as grading needs it."""

    workspace: Path
    baseline: Snapshot  # taken after checkout, before the agent acts


class Lifecycle:
    def __init__(self, tasks_dir: Path | None = None, grade_limits: GradeLimits | None = None):
        self.tasks_dir = Path(tasks_dir or TASKS_DIR)
        self.grade_limits = grade_limits or GradeLimits()  # each grade's time and memory
        self._index: dict[str, Task] | None = None

    def _tasks(self) -> dict[str, Task]:
        if self._index is None:  # read once: an unknown id must not rescan every task file
            self._index = task_index(self.tasks_dir)
        return self._index

    def task(self, task_id: str) -> Task:
        found = self._tasks().get(task_id) or find_task(task_id)  # a foreign benchmark's (envcraft.benchmarks)
        if found is None:
            raise UnknownTask(f"no task {task_id!r} in {self.tasks_dir}")
        return found

    def tasks_of(self, env: str, split: str = "all") -> list[Task]:
        """The tasks of environment `env`'s task file (those it leads), in file order; split "all" or one."""
        return [t for t in self._tasks().values() if t.envs[0] == env and split in ("all", t.split)]

    def initial(self, task: Task | None, env: str) -> InitialState | None:
        """Where `env` starts for `task`: its own S0 (None without a task: the seed as it is)."""
        return task.initial_for(env) if task is not None else None

    def baseline(self, workspace: Path) -> Snapshot:
        """The state the grade compares against (blocking: call it off the event loop)."""
        return Snapshot.of(workspace)

    def check_out(self, root: WorkspaceRoot, env: Environment, task: Task | None) -> Member:
        """A fresh workspace for `env` in `task`'s initial state, with its baseline (blocking)."""
        workspace = root.checkout(env.name, env.seed, self.initial(task, env.name))
        try:
            return Member(workspace, self.baseline(workspace))
        except BaseException:
            root.checkin(env.seed, workspace)
            raise

    def check_in(self, root: WorkspaceRoot, env: Environment, workspace: Path) -> bool:
        """The workspace back to the pool, or removed; ends what still runs in it first (blocking)."""
        return root.checkin(env.seed, workspace)

    async def grade(self, task: Task, members: Mapping[str, Member]) -> Grade:
        """One grade of an episode's environments (name -> member), with each one's state diff. Raises
        GraderFailure when the grader itself broke (the infrastructure's failure, worth a retry)."""
        return await bounded_grade(task, {env: m.baseline for env, m in members.items()},
                                   {env: m.workspace for env, m in members.items()}, self.grade_limits, diff=True)


__all__ = ["Lifecycle", "Member", "UnknownTask"]
