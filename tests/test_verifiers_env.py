"""verifiers (0.4.0) runs EnvCraft tasks as its own environment: `vf-eval envcraft-verifiers`, verifiers' own
CLI and loader, in an isolated venv (its mcp pin is not ours: tests/consumer_venvs.py), against a real gateway,
with the scripted stand-in model (harness/scripted_model.py) over the OpenAI-compatible API in place of an
LLM. Each task's reward is the grade `envcraft run` gives the same conversation with the same model, a task of
two user turns included."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from envcraft.core.rollout import Rollout
from envcraft.core.tasks import write_tasks
from envcraft.harness.scripted_model import Script, build_app, serving

from tests.consumer_venvs import consumer_venv
from tests.helpers import REPO, free_port, mail_task, wait_for_port
from tests.test_run import ENVCRAFT, envcraft

pytestmark = pytest.mark.slow  # servers, subprocesses or whole runs: out of the fast lane

TOKEN = "verifiers-token"


def two_turns(index: int):
    """A mail task whose user first asks for the contact, then for the mail: the gold's calls split likewise."""
    task = mail_task(index)
    lookup, *rest = task.gold
    return task.model_copy(update={"id": f"{task.id}-two", "turns": [
        f"Look up {lookup.arguments['query']} in the contacts.", task.turns[0]],
        "gold": [lookup, *[call.model_copy(update={"turn": 1}) for call in rest]]})


@pytest.fixture(scope="module")
def gateway(tmp_path_factory):
    folder = tmp_path_factory.mktemp("verifiers") / "tasks"
    tasks = [mail_task(40), mail_task(41), two_turns(42)]
    write_tasks(folder / "office.jsonl", tasks)
    port = free_port()
    process = subprocess.Popen([*ENVCRAFT, "serve", "--all", "--port", str(port), "--token", TOKEN,
                                "--tasks-dir", str(folder)],
                               cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for_port(port, timeout=120)
        yield f"http://127.0.0.1:{port}", folder, tasks
    finally:
        process.terminate()
        process.wait(timeout=30)


def vf_eval(python, gateway_url: str, model_url: str, out) -> list[dict]:
    """`vf-eval` as its users run it; the traces it wrote, one per task."""
    done = subprocess.run(
        [str(python.parent / "vf-eval"), "envcraft-verifiers", "--env.taskset.env", "office",
         "--env.taskset.task.gateway-url", gateway_url, "--env.agent.runtime.type", "subprocess",
         "-m", "scripted", "--client.base-url", model_url, "--client.api-key-var", "SCRIPTED_API_KEY",
         "--no-push", "--no-rich", "-o", str(out), "--run.name", "envcraft"],
        capture_output=True, text=True, timeout=900, cwd=out.parent,
        env={**os.environ, "ENVCRAFT_GATEWAY_TOKEN": TOKEN, "SCRIPTED_API_KEY": "test",
             "PATH": f"{python.parent}{os.pathsep}{os.environ['PATH']}"})  # its uv runs the chat program
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return [trace for line in (out / "envcraft" / "traces.jsonl").read_text().splitlines()
            for trace in json.loads(line)["traces"]]


def test_vf_eval_gives_each_task_the_grade_envcraft_run_gives(gateway, tmp_path):
    url, folder, tasks = gateway
    python = consumer_venv("verifiers")
    scripted = [tasks[0], tasks[2]]  # a gold-like script for these; the second task's conversation idles
    with serving(build_app(Script.from_tasks(scripted))) as model:
        traces = vf_eval(python, url, model, tmp_path / "vf")
        ran = envcraft("run", "--tasks-dir", str(folder), "--out", str(tmp_path / "run"), "--base-url", model)
    assert ran.returncode == 0, ran.stderr[-3000:]
    ours = {r.task_id: r for r in map(Rollout.model_validate_json, (tmp_path / "run" / "rollouts.jsonl").read_text()
                                                                    .splitlines())}
    theirs = {trace["task"]["data"]["id"]: trace for trace in traces}
    assert set(theirs) == set(ours) == {t.id for t in tasks}
    assert [ours[t.id].reward for t in tasks] == [1.0, 0.0, 1.0]
    for task in tasks:
        trace, rollout = theirs[task.id], ours[task.id]
        assert trace["rewards"]["envcraft"]["score"] == rollout.reward, task.id
        assert [c["passed"] for c in trace["info"]["envcraft"]["checks"]] == [c.passed for c in rollout.checks]
        shown = messages(trace)
        assert shown[0] == {"role": "system", "content": rollout.messages[0]["content"]}  # one rendering
        assert [m["content"] for m in shown if m["role"] == "user"] == task.turns  # each turn, in order
    for task in scripted:
        called = [call["name"] for m in messages(theirs[task.id]) if m["role"] == "assistant"
                  for call in m.get("tool_calls") or []]
        assert called == [c.tool for c in task.gold]


def messages(trace: dict) -> list[dict]:
    """The conversation a verifiers trace recorded (a node's message is kept as JSON text or as an object)."""
    return [json.loads(m) if isinstance(m, str) else m for m in (node["message"] for node in trace["nodes"])]
