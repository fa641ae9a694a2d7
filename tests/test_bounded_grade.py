"""A grade runs under its memory limit too (core/bounded_grade.py): past it, the verdict is 0 with the reason,
never a crash of the caller, and the next grade still runs. Real grading process, real workspace (a copy of the
office seed)."""

from __future__ import annotations

import shutil

import pytest
from envcraft.core.bounded_grade import GradeLimits, bounded_grade
from envcraft.core.grading import Snapshot
from envcraft.registry.catalog import get

from tests.helpers import mail_task

pytestmark = pytest.mark.anyio


async def test_a_grade_past_its_memory_limit_is_a_verdict_of_zero(tmp_path):
    workspace = tmp_path / "office"
    shutil.copytree(get("office").seed, workspace)
    baseline = {"office": Snapshot.of(workspace)}
    roomy = await bounded_grade(mail_task(0), baseline, {"office": workspace})
    assert roomy.unfinished == "" and len(roomy.checks) == 2  # graded: nothing was sent, so reward 0 on its merits
    for n in range(8):  # 32 MB of text the grade must read, past a 16 MB limit
        (workspace / f"notes-{n}.txt").write_text("x" * 4 * 2**20)
    tight = await bounded_grade(mail_task(0), baseline, {"office": workspace}, GradeLimits(memory_bytes=16 * 2**20))
    assert (tight.reward, tight.checks) == (0.0, []) and "16 MB" in tight.unfinished, tight
    again = await bounded_grade(mail_task(0), baseline, {"office": workspace})
    assert again.unfinished == "" and len(again.checks) == 2
