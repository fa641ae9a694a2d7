"""The in-process farm keeps its event loop free: the baseline snapshot is read in a worker thread, the final one
in the bounded grading process (core/bounded_grade.py), never in this one."""

from __future__ import annotations

import threading

import pytest
from envcraft.core.grading import Snapshot
from envcraft.core.tasks import write_tasks
from envcraft.harness.farm_local import LocalFarm

from tests.helpers import mail_task

pytestmark = pytest.mark.anyio


async def test_snapshots_are_read_off_the_event_loop_and_still_grade(tmp_path, monkeypatch):
    task = mail_task(0)
    write_tasks(tmp_path / "office.jsonl", [task])
    readers: list[int] = []
    real = Snapshot.of.__func__

    def watched(cls: type[Snapshot], workspace) -> Snapshot:  # the real read, noting which thread did it
        readers.append(threading.get_ident())
        return real(cls, workspace)

    monkeypatch.setattr(Snapshot, "of", classmethod(watched))
    async with LocalFarm(tasks_dir=tmp_path) as farm:
        info = await farm.create(task.id)
        for step in task.gold:
            assert not (await farm.call_tool(info.id, step.tool, step.arguments)).is_error
        graded = await farm.grade(info.id)
        await farm.delete(info.id)
    assert graded.reward == 1.0  # the baseline and final snapshots are the ones grading compares
    assert len(readers) == 1 and threading.get_ident() not in readers  # baseline at create; final in the grader's
