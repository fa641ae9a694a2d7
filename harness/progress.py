"""What a person watching a run sees while it runs: one progress bar per agent on stderr, with the live
success rate, mean reward and an ETA (a line every 10% instead when stderr is not a terminal)."""

from __future__ import annotations

from collections.abc import Iterable

from envcraft.core.outcomes import infrastructure_failure
from envcraft.core.rollout import Rollout
from envcraft.harness.terminal import console as make_console
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn


class RunProgress:
    def __init__(self, total: int, label: str, console: Console | None = None, kept: Iterable[Rollout] = ()):
        """`kept`: rollouts a resumed run already holds; the count goes on from them."""
        self.total, self.label = max(total, 1), label
        self.console = console or make_console(stderr=True)
        self.done = self.passed = self.failed = 0
        self.reward = 0.0
        for rollout in kept:
            self._count(rollout)
        self._bar = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("success {task.fields[success]}  reward {task.fields[reward]}  infra {task.fields[infra]}"),
            TextColumn("elapsed"), TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
            console=self.console, disable=not self.console.is_terminal)
        self._task = self._bar.add_task(label, total=self.total, completed=self.done, **self._fields())
        self._decile = self.done * 10 // self.total if self.done else -1

    def _fields(self) -> dict[str, str]:
        scored = self.done - self.failed  # as in every report (core/outcomes.py): infrastructure failures aside
        rate = f"{self.passed / scored:.1%}" if scored else "-"
        reward = f"{self.reward / scored:.3f}" if scored else "-"
        return {"success": rate, "reward": reward, "infra": str(self.failed)}

    def __enter__(self) -> RunProgress:
        self._bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._bar.stop()

    def _count(self, rollout: Rollout) -> None:
        self.done += 1
        self.passed += rollout.passed
        self.failed += infrastructure_failure(rollout)
        self.reward += rollout.reward

    def update(self, rollout: Rollout) -> None:
        self._count(rollout)
        self._bar.update(self._task, advance=1, **self._fields())
        decile = self.done * 10 // self.total
        if not self.console.is_terminal and (decile != self._decile or self.done == self.total):
            self._decile = decile
            fields = self._fields()
            self.console.print(f"{self.label}: {self.done}/{self.total} success {fields['success']} "
                               f"reward {fields['reward']} infra {fields['infra']}")
