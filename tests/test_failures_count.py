"""Failures never excuse (issue 23): a grade that cannot finish is the episode's failure, and `envcraft report`
counts it in success and reward, as every summary does (core/outcomes.py).

One solved episode and one whose agent wrote a 2 MB report at the checked path, graded by the in-process farm
with a 3 s grade limit: the second grade times out, the rollout records a `task` failure with reward 0, and the
report says success 0.5 (it used to leave the failure out and say 1.0). The agent is the gold-replay policy
(deterministic, no model), given a write_file call as the second task's "gold".
"""

from __future__ import annotations

import json
import subprocess
import sys

import anyio
import pytest
from envcraft.core.bounded_grade import GradeLimits
from envcraft.core.tasks import ToolCall
from envcraft.harness.agents.policies import GoldReplayAgent
from envcraft.harness.farm_local import LocalFarm
from envcraft.harness.runner import RolloutLog, run_tasks

from tests.helpers import REPO, mail_task
from tests.test_grade_bounds import REPORT, REPORT_PATH, REPORT_TASK

pytestmark = pytest.mark.anyio
GRADE_SECONDS = 3.0


@pytest.mark.slow
async def test_a_timed_out_grade_counts_as_a_failed_episode_in_the_report(tmp_path):
    solved = mail_task(0)
    agent = GoldReplayAgent({solved.id: solved.gold,
                             REPORT_TASK.id: [ToolCall(tool="write_file", arguments={"path": REPORT_PATH, "content": REPORT}),
                                              ToolCall(tool="finish", arguments={"answer": "done"})]})
    log = RolloutLog(tmp_path / "rollouts.jsonl")
    with anyio.fail_after(120):
        async with LocalFarm(grade_limits=GradeLimits(seconds=GRADE_SECONDS)) as farm:
            rollouts = await run_tasks([solved, REPORT_TASK], agent, None, log, run_id="r", farm=farm)
    by_task = {r.task_id: r for r in rollouts}
    assert by_task[solved.id].passed and by_task[solved.id].failure is None
    timed_out = by_task[REPORT_TASK.id]
    assert timed_out.failure.boundary == "task", timed_out.failure
    assert f"did not finish within {GRADE_SECONDS:g} s" in timed_out.failure.message
    assert timed_out.reward == 0.0 and timed_out.timings.grade_seconds < GRADE_SECONDS + 5

    shown = subprocess.run([sys.executable, "-m", "envcraft.cli", "report", str(tmp_path), "--json", "-"], cwd=REPO,
                           capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr[-2000:]
    data = json.loads(shown.stdout)
    [row] = data["runs"][0]["by_agent_and_split"]
    assert (row["success"], row["mean_reward"], row["infra_failures"]) == (0.5, 0.5, 0), row
    [summary] = data["runs"][0]["summary"]
    assert (summary["success_rate"], summary["mean_reward"], summary["infra_failures"]) == (0.5, 0.5, 0), summary
    [series] = data["series"]
    assert (series["success"], series["reward"], series["infra_failures"]) == (0.5, 0.5, 0), series
    [failures] = data["failures"]
    assert failures["episode_failures"] == 1 and failures["server"] == 0, failures
