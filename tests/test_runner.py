"""The run loop: failures become rollouts, a killed run resumes exactly, nothing is left behind."""

from __future__ import annotations

import os
import signal
import uuid
from pathlib import Path

import anyio
import pytest
from envcraft.core.rollout import Rollout
from envcraft.harness.agents.policies import GoldReplayAgent, NoOpAgent
from envcraft.harness.episode import Episode, EpisodeBudget
from envcraft.harness.runner import RolloutLog, run_tasks
from envcraft.registry.launch import InProcessLauncher, StdioLauncher

from tests.helpers import mail_task, marked

pytestmark = pytest.mark.anyio


class KillServerAgent:
    """Calls one tool, kills its stdio server (found by the run's marker), then calls another."""

    name, model = "killer", None

    def __init__(self, marker: str):
        self.marker, self.killed = marker, []

    async def run(self, episode: Episode) -> str:
        episode.user(episode.turns[0])
        await episode.act([("c0", "list_dir", {})])
        servers = [pid for pid in marked(self.marker)
                   if b"servers/office/server.py" in Path(f"/proc/{pid}/cmdline").read_bytes()]
        assert len(servers) == 1, servers  # an AssertionError here is an `agent` failure, not `server`
        os.kill(servers[0], signal.SIGKILL)
        self.killed.append(servers[0])
        await episode.act([("c1", "list_dir", {})])
        return "unreachable"


@pytest.mark.slow
async def test_killed_server_is_an_infra_failure_and_the_run_goes_on(tmp_path, monkeypatch):
    marker = uuid.uuid4().hex
    monkeypatch.setenv("ENVCRAFT_RUN_MARKER", marker)
    log = RolloutLog(tmp_path / "rollouts.jsonl")
    tasks = [mail_task(1)]
    agent = KillServerAgent(marker)
    [killed] = await run_tasks(tasks, agent, StdioLauncher(), log, run_id="r", concurrency=1)
    assert agent.killed and not Path(f"/proc/{agent.killed[0]}").exists()  # the server really died
    assert killed.failure is not None and killed.failure.boundary == "server", killed.failure
    assert "office server" in killed.failure.message and "list_dir" in killed.failure.message
    assert killed.reward == 0.0 and killed.stop_reason == "error:server"
    [after] = await run_tasks(tasks, GoldReplayAgent({t.id: t.gold for t in tasks}), StdioLauncher(), log,
                              run_id="r", retries=1)
    assert after.reward == 1.0 and after.failure is None
    assert marked(marker) == []
    assert not [p for p in Path("/tmp/envcraft").glob(f"run-{os.getpid()}-*") if "-ops-" not in p.name]


class CrashingAgent:
    name, model = "crasher", None

    async def run(self, episode: Episode) -> str:
        episode.user(episode.turns[0])
        async with anyio.create_task_group() as group:  # the crash arrives wrapped in an ExceptionGroup
            group.start_soon(self.bug)
        return "unreachable"

    async def bug(self) -> None:
        assert 1 + 1 == 3, "policy bug"


async def test_a_crash_in_the_agent_is_the_agents_failure_unwrapped(tmp_path):
    [rollout] = await run_tasks([mail_task(0)], CrashingAgent(), InProcessLauncher(),
                                RolloutLog(tmp_path / "r.jsonl"), run_id="r")
    assert rollout.failure.boundary == "agent", rollout.failure
    assert rollout.failure.message.startswith("AssertionError: policy bug")


class HangingAgent:
    name, model = "hanger", None

    async def run(self, episode: Episode) -> str:
        episode.user(episode.turns[0])
        await episode.act([("c0", "run_shell", {"command": "sleep 3"})])
        return "unreachable"


@pytest.mark.slow
async def test_a_tool_call_that_hangs_is_a_server_failure_not_a_time_limit(tmp_path):
    limits = EpisodeBudget(tool_seconds=0.5)
    with anyio.fail_after(15):
        [rollout] = await run_tasks([mail_task(0)], HangingAgent(), InProcessLauncher(),
                                    RolloutLog(tmp_path / "r.jsonl"), run_id="r", limits=limits)
    assert rollout.failure.boundary == "server" and "did not answer within 0.5 s" in rollout.failure.message


async def test_resume_retries_infra_failures_as_often_as_asked(tmp_path):
    task, path = mail_task(0), tmp_path / "r.jsonl"
    for _ in range(3):  # a tool call that does not answer in time: the server's failure
        await run_tasks([task], HangingAgent(), InProcessLauncher(), RolloutLog(path), run_id="r", retries=1,
                        limits=EpisodeBudget(tool_seconds=0.5))
    assert len(path.read_text().splitlines()) == 2  # the first try and one retry, then no more
    await run_tasks([task], HangingAgent(), InProcessLauncher(), RolloutLog(path), run_id="r", retries=0,
                    limits=EpisodeBudget(tool_seconds=0.5))
    assert len(path.read_text().splitlines()) == 2
    broken = mail_task(2).model_copy(update={"envs": ["no-such-env"]})  # the task's failure is counted, not retried
    for _ in range(2):
        await run_tasks([broken], NoOpAgent(), InProcessLauncher(), RolloutLog(path), run_id="r", retries=5)
    assert len(path.read_text().splitlines()) == 3
    gold = mail_task(1)
    await run_tasks([gold], GoldReplayAgent({gold.id: gold.gold}), InProcessLauncher(), RolloutLog(path),
                    run_id="r", retries=5)
    await run_tasks([gold], GoldReplayAgent({gold.id: gold.gold}), InProcessLauncher(), RolloutLog(path),
                    run_id="r", retries=5)
    assert len(path.read_text().splitlines()) == 4  # a success is never re-run


async def test_the_step_that_crosses_a_budget_is_kept(tmp_path):
    task = mail_task(0)
    [rollout] = await run_tasks([task], GoldReplayAgent({task.id: task.gold}), InProcessLauncher(),
                                RolloutLog(tmp_path / "r.jsonl"), run_id="r", limits=EpisodeBudget(max_steps=2))
    assert rollout.stop_reason == "max_steps" and rollout.steps == 3
    last = rollout.messages[-1]
    assert last["role"] == "assistant" and last["tool_calls"][0]["function"]["name"] == "finish"
    assert rollout.timings.tool_calls == 2  # the crossing call is recorded, not executed


async def test_gold_scores_one_noop_scores_zero_concurrently(tmp_path):
    tasks = [mail_task(i) for i in range(8)]
    log = RolloutLog(tmp_path / "rollouts.jsonl")
    gold = await run_tasks(tasks, GoldReplayAgent({t.id: t.gold for t in tasks}), InProcessLauncher(), log,
                           run_id="r", concurrency=4)
    noop = await run_tasks(tasks, NoOpAgent(), InProcessLauncher(), log, run_id="r", concurrency=4)
    assert [r.reward for r in gold] == [1.0] * 8 and [r.reward for r in noop] == [0.0] * 8
    first = gold[0]
    assert first.messages[0]["role"] == "system" and "SKILL.md" in first.messages[0]["content"]  # the rendering's
    assert first.messages[1] == {"role": "user", "content": tasks[0].turns[0]}
    assert first.messages[2]["tool_calls"][0]["function"]["name"] == "contacts_search"
    assert first.messages[3]["role"] == "tool" and first.tools and first.timings.tool_calls == 3
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
