"""BFCL v4 multi-turn as a farm benchmark: four environments (one per category), 800 tasks, BFCL's checker."""

from __future__ import annotations

import functools
import importlib.util

from envcraft.benchmarks.bfcl import data
from envcraft.benchmarks.seam import BenchEnvironment
from envcraft.core.tasks import Task

INSTALL = ("BFCL is not installed: `pip install --no-deps bfcl-eval==2026.3.23` and `pip install mpmath==1.3.0` "
           "(bash .ci/setup does both; its declared dependencies are heavy and the multi-turn path needs none of them)")


class BfclMultiTurn:
    name = "bfcl-multi-turn"
    kind = "bfcl"
    env_names = tuple(data.ENV_PREFIX + c for c in data.CATEGORIES)

    def installed(self) -> str | None:
        missing = [m for m in ("bfcl_eval", "mpmath") if importlib.util.find_spec(m) is None]
        return INSTALL if missing else None

    def _need(self) -> None:
        if problem := self.installed():
            raise ModuleNotFoundError(problem)

    def environments(self) -> list[BenchEnvironment]:
        self._need()
        return [BenchEnvironment(name=data.ENV_PREFIX + category, kind=self.kind, tasks=len(data.entries(category)),
                                 tools=len({d["name"] for e in data.entries(category) for c in e.involved_classes
                                            for d in data.func_docs()[c]}),
                                 description=f"BFCL {data.VERSION} {category}")
                for category in data.CATEGORIES]

    def category(self, env_or_category: str) -> str:
        category = env_or_category.removeprefix(data.ENV_PREFIX)
        if category not in data.CATEGORIES:
            short = [c.removeprefix("multi_turn_") for c in data.CATEGORIES]
            category = "multi_turn_" + category if category in short else category
        if category not in data.CATEGORIES:
            raise KeyError(f"no BFCL multi-turn category {env_or_category!r}: choose from {', '.join(data.CATEGORIES)}")
        return category

    def tasks(self, category: str | None = None) -> list[Task]:
        self._need()
        chosen = [self.category(category)] if category else list(data.CATEGORIES)
        return [self._task(item.id) for c in chosen for item in data.entries(c)]

    @functools.cache  # noqa: B019 - one benchmark object per process; tasks are frozen
    def _task(self, bfcl_id: str) -> Task:
        return data.to_task(data.entry(bfcl_id))

    def task(self, task_id: str) -> Task | None:
        if not task_id.startswith(data.TASK_PREFIX) or self.installed():
            return None
        try:
            return self._task(task_id.removeprefix(data.TASK_PREFIX))
        except KeyError:
            return None

    def open(self, task: Task):
        from envcraft.benchmarks.bfcl.episode import BfclEpisode

        self._need()
        return BfclEpisode(data.entry(task.id.removeprefix(data.TASK_PREFIX)), task.envs[0])


BENCHMARK = BfclMultiTurn()
