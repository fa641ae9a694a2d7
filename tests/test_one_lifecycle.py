"""One episode lifecycle (registry/lifecycle.py) for both farms: the in-process farm and a real gateway (its
control API over HTTP, MCP over HTTP) built on the same Lifecycle give the same grade and state diff for the
same gold, single- and multi-environment; and a fault planted in that one lifecycle shows in both alike, which
it could not if either farm still kept a copy of its own."""

from __future__ import annotations

import anyio
import pytest
from envcraft.core.bounded_grade import bounded_grade
from envcraft.core.tasks import write_tasks
from envcraft.harness.agents.policies import GoldReplayAgent
from envcraft.harness.farm_local import LocalFarm
from envcraft.harness.farm_remote import RemoteFarm
from envcraft.harness.runner import RolloutLog, run_tasks
from envcraft.harness.scripted_model import serve_in_thread
from envcraft.registry.gateway import Gateway
from envcraft.registry.lifecycle import Lifecycle

from tests.helpers import cross_task, free_port
from tests.test_gateway_state_diff import writing_task

pytestmark = pytest.mark.slow  # servers and whole runs: out of the fast lane

TOKEN = "one-lifecycle-token"


class SeedOnly(Lifecycle):
    """A planted fault at the start of an episode: every environment starts from its seed, not the task's S0."""

    def initial(self, task, env):
        return None


class NoDiff(Lifecycle):
    """A planted fault at the grade: the state diff is left out (the gateway's old drift)."""

    async def grade(self, task, members):
        return await bounded_grade(task, {env: m.baseline for env, m in members.items()},
                                   {env: m.workspace for env, m in members.items()}, self.grade_limits)


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    folder = tmp_path_factory.mktemp("one-lifecycle")
    chosen = [writing_task(), cross_task()]  # one environment; two, each from its own rows
    for task in chosen:
        write_tasks(folder / f"{task.id}.jsonl", [task])
    return folder, chosen


async def _gold(tasks, farm, log):
    async with farm:
        return await run_tasks(tasks, GoldReplayAgent({t.id: t.gold for t in tasks}), None, log, run_id="life",
                               farm=farm)


def both_ways(kind: type[Lifecycle], folder, chosen, tmp_path):
    """The same gold in process and through a gateway served over HTTP, each farm on its own `kind` lifecycle."""
    local = anyio.run(_gold, chosen, LocalFarm(lifecycle=kind(folder)), RolloutLog(tmp_path / "local.jsonl"))
    port = free_port()
    url, stop = serve_in_thread(Gateway(TOKEN, port=port, lifecycle=kind(folder)), port=port, lifespan="on",
                                timeout=60)
    try:
        remote = anyio.run(_gold, chosen, RemoteFarm(url.removesuffix("/v1"), TOKEN),
                           RolloutLog(tmp_path / "remote.jsonl"))
    finally:
        stop()
    for rollouts in (local, remote):
        assert [r.failure for r in rollouts] == [None, None]
    return local, remote


def outcome(rollout):
    return rollout.reward, [c.passed for c in rollout.checks], \
        {env: diff.model_dump(mode="json") for env, diff in rollout.state_diff.items()}


def test_both_farms_grade_the_same_gold_alike(tasks, tmp_path):
    folder, chosen = tasks
    local, remote = both_ways(Lifecycle, folder, chosen, tmp_path)
    for here, there, task in zip(local, remote, chosen):
        assert here.reward == there.reward == 1.0, task.id
        assert set(here.state_diff) == set(task.envs)
        assert any(diff.tables for diff in here.state_diff.values()), task.id  # the gold changed something
        assert outcome(here) == outcome(there), task.id


@pytest.mark.parametrize("fault", [SeedOnly, NoDiff])
def test_a_fault_in_the_one_lifecycle_shows_in_both_farms(fault, tasks, tmp_path):
    folder, chosen = tasks
    local, remote = both_ways(fault, folder, chosen, tmp_path)
    for here, there, task in zip(local, remote, chosen):
        assert outcome(here) == outcome(there), task.id
    if fault is SeedOnly:  # the cross task's gold acts on rows only its S0 plants: without them it cannot pass
        assert local[1].reward < 1.0 and remote[1].reward < 1.0
    else:
        assert all(not r.state_diff for r in local + remote)
