"""The run loop: failures become rollouts, a killed run resumes exactly, nothing is left behind."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from envcraft.harness.agents.policies import GoldReplayAgent, NoOpAgent
from envcraft.harness.episode import Episode
from envcraft.core.rollout import Rollout
from envcraft.harness.runner import RolloutLog, run_tasks
from envcraft.registry.launch import InProcessLauncher, StdioLauncher
from tests.helpers import children_of, mail_task

pytestmark = pytest.mark.anyio


class KillServerAgent:
    """Calls one tool, then kills its stdio server process, then calls another: an infrastructure failure."""

    name, model = "killer", None

    async def run(self, episode: Episode) -> str:
        episode.user(episode.turns[0])
        await episode.act([("c0", "list_dir", {})])
        servers = [pid for pid in children_of(os.getpid())
                   if b"servers/office/server.py" in Path(f"/proc/{pid}/cmdline").read_bytes()]
        assert len(servers) == 1, servers
        os.kill(servers[0], signal.SIGKILL)
        await episode.act([("c1", "list_dir", {})])
        return "unreachable"


async def test_killed_server_is_an_infra_failure_and_the_run_goes_on(tmp_path):
    log = RolloutLog(tmp_path / "rollouts.jsonl")
    tasks = [mail_task(1)]
    [killed] = await run_tasks(tasks, KillServerAgent(), StdioLauncher(), log, run_id="r", concurrency=1)
    assert killed.failure is not None and killed.failure.boundary == "server"
    assert killed.reward == 0.0 and killed.stop_reason == "error:server"
    [after] = await run_tasks(tasks, GoldReplayAgent({t.id: t.gold for t in tasks}), StdioLauncher(), log, run_id="r")
    assert after.reward == 1.0 and after.failure is None
    assert children_of(os.getpid()) == []
    assert not [p for p in Path("/tmp/envcraft").glob(f"run-{os.getpid()}-*") if "-ops-" not in p.name]


async def test_gold_scores_one_noop_scores_zero_concurrently(tmp_path):
    tasks = [mail_task(i) for i in range(8)]
    log = RolloutLog(tmp_path / "rollouts.jsonl")
    gold = await run_tasks(tasks, GoldReplayAgent({t.id: t.gold for t in tasks}), InProcessLauncher(), log,
                           run_id="r", concurrency=4)
    noop = await run_tasks(tasks, NoOpAgent(), InProcessLauncher(), log, run_id="r", concurrency=4)
    assert [r.reward for r in gold] == [1.0] * 8 and [r.reward for r in noop] == [0.0] * 8
    first = gold[0]
    assert first.messages[0] == {"role": "user", "content": tasks[0].turns[0]}
    assert first.messages[1]["tool_calls"][0]["function"]["name"] == "contacts_search"
    assert first.messages[2]["role"] == "tool" and first.tools and first.timings.tool_calls == 3
    assert not [p for p in Path("/tmp/envcraft").glob(f"run-{os.getpid()}-*") if "-ops-" not in p.name]


async def test_killed_run_resumes_without_losing_or_duplicating(tmp_path):
    tasks = [mail_task(i) for i in range(6)]
    path = tmp_path / "rollouts.jsonl"
    agent = GoldReplayAgent({t.id: t.gold for t in tasks})
    await run_tasks(tasks[:3], agent, InProcessLauncher(), RolloutLog(path), run_id="r")
    with open(path, "a") as handle:  # what a SIGKILL mid-write leaves behind
        handle.write('{"format": "envcraft.rollout/1", "run_id": "r", "task_')
    resumed = RolloutLog(path)
    assert len(resumed.done) == 3
    done = await run_tasks(tasks, agent, InProcessLauncher(), resumed, run_id="r")
    lines = [Rollout.model_validate_json(line) for line in path.read_text().splitlines()]
    assert sorted(r.task_id for r in lines) == sorted(t.id for t in tasks)
    assert len(done) == 6 and all(r.reward == 1.0 for r in done)


async def test_unknown_environment_is_a_task_failure(tmp_path):
    task = mail_task(0).model_copy(update={"envs": ["no-such-env"]})
    [rollout] = await run_tasks([task], NoOpAgent(), InProcessLauncher(), RolloutLog(tmp_path / "r.jsonl"), run_id="r")
    assert rollout.failure.boundary == "task" and "no-such-env" in rollout.failure.message
