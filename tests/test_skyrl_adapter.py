"""SkyRL-gym, the real package: a registered env whose step runs tool calls on the farm and grades at the end."""

from __future__ import annotations

import json

import pytest

skyrl_gym = pytest.importorskip("skyrl_gym", reason="install the [trainers] extra: pip install -e .[trainers]")

from envcraft.core.tasks import write_tasks  # noqa: E402
from envcraft.harness.adapters.skyrl_env import register_env  # noqa: E402

from tests.helpers import mail_task  # noqa: E402


def completion(calls) -> str:
    """What a policy writes: some prose and Hermes-style tool calls."""
    return "Let me do that. " + "".join(
        f"<tool_call>{json.dumps({'name': c.tool, 'arguments': c.arguments})}</tool_call>" for c in calls)


@pytest.fixture
def task_env(tmp_path):
    from envcraft.harness.adapters.sync_farm import close_shared

    task = mail_task(7)
    write_tasks(tmp_path / "office.jsonl", [task])
    yield task, {"tasks_dir": str(tmp_path)}  # the env_config of an in-process farm reading these tasks
    close_shared()  # the farm the env opened, with its grading processes


def test_scripted_completion_is_graded_at_the_end(task_env):
    task, config = task_env
    env = skyrl_gym.make(register_env(), env_config=config, extras={"task_id": task.id, "max_turns": 5})
    prompt, info = env.init()
    assert prompt[-1] == {"role": "user", "content": task.turns[0]}
    assert "mail_send" in prompt[0]["content"] and info["tools"]
    first = env.step(completion(task.gold[:1]))
    assert not first["done"] and first["reward"] == 0.0
    assert task.gold[0].arguments["query"].split()[0] in first["observations"][0]["content"]
    last = env.step(completion(task.gold[1:]))
    assert last["done"] and last["reward"] == 1.0 and last["metadata"]["passed"]


def test_a_policy_that_does_nothing_earns_nothing(task_env):
    task, config = task_env
    env = skyrl_gym.make(register_env(), env_config=config, extras={"task_id": task.id})
    env.init()
    out = env.step("I am done.")  # no tool call ends the episode
    assert out["done"] and out["reward"] == 0.0
    bad = skyrl_gym.make(register_env(), env_config=config, extras={"task_id": task.id})
    bad.init()
    out = bad.step('<tool_call>{"name": "mail_send", "arguments": {</tool_call>' + completion(task.gold[2:]))
    assert "not valid JSON" in out["observations"][0]["content"] and out["done"] and out["reward"] == 0.0
