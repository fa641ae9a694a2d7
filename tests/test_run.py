"""The main job and `envcraft serve` as a user runs them: real subprocesses, real HTTP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import pytest
from envcraft.core.rollout import Rollout
from envcraft.core.tasks import write_tasks
from envcraft.harness.scripted_model import Script, build_app, serving
from mcp import Client

from tests.helpers import REPO, free_port, mail_task, marked, wait_for_port

pytestmark = pytest.mark.slow  # servers and whole runs, seconds each: not in the fast lane

ENVCRAFT = [sys.executable, "-m", "envcraft.cli"]


def envcraft(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ENVCRAFT_")}
    return subprocess.run([*ENVCRAFT, *args], capture_output=True, text=True, timeout=300, cwd=REPO,
                          env={**clean, **(env or {})})


@pytest.fixture
def task_dir(tmp_path):
    tasks = [mail_task(i) for i in range(5)]
    write_tasks(tmp_path / "tasks" / "office.jsonl", tasks)
    return tmp_path / "tasks", tasks


def test_main_job_without_endpoint_runs_builtin_policies(task_dir, tmp_path):
    folder, tasks = task_dir
    out = tmp_path / "run"
    done = envcraft("run", "--tasks-dir", str(folder), "--out", str(out), "--launcher", "stdio")
    assert done.returncode == 0, done.stderr
    assert "No LLM is used" in done.stderr
    table = {line.split()[0]: line.split() for line in done.stdout.splitlines() if line.startswith(("gold", "noop"))}
    assert table["gold"][3] == "100.0%" and table["noop"][3] == "0.0%"
    rollouts = [Rollout.model_validate_json(line) for line in (out / "rollouts.jsonl").read_text().splitlines()]
    assert len(rollouts) == 2 * len(tasks)
    again = envcraft("run", "--tasks-dir", str(folder), "--out", str(out))
    assert "10 rollout(s) already recorded" in again.stderr
    assert len((out / "rollouts.jsonl").read_text().splitlines()) == 2 * len(tasks)


def test_main_job_with_endpoint_runs_the_claw_agent(task_dir, tmp_path):
    folder, tasks = task_dir
    with serving(build_app(Script.from_tasks(tasks))) as url:
        done = envcraft("run", "--tasks-dir", str(folder), "--out", str(tmp_path / "run"),
                        env={"ENVCRAFT_BASE_URL": url, "ENVCRAFT_MODEL": "scripted"})
    assert done.returncode == 0, done.stderr
    [row] = [line.split() for line in done.stdout.splitlines() if line.startswith("claw")]
    assert row[1] == "scripted" and row[3] == "100.0%"


def test_bad_arguments_get_a_clear_error(task_dir):
    folder, _ = task_dir
    done = envcraft("run", "--tasks-dir", str(folder), "--env", "nope")
    assert done.returncode == 2 and "no environment named 'nope'" in done.stderr
    done = envcraft("run", "--tasks-dir", str(folder), "--env", "vet_clinic")  # a real environment without tasks there
    assert done.returncode == 2 and "no task file" in done.stderr and "envcraft tasks generate" in done.stderr
    done = envcraft("run", "--tasks-dir", str(folder), "--agent", "claw")
    assert done.returncode == 2 and "--base-url" in done.stderr


@pytest.mark.anyio
async def test_serve_prints_a_snippet_and_serves_any_mcp_client():
    port = free_port()
    marker = uuid.uuid4().hex
    server = subprocess.Popen([*ENVCRAFT, "serve", "office", "--port", str(port)], cwd=REPO,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              env={**os.environ, "ENVCRAFT_RUN_MARKER": marker})
    try:
        wait_for_port(port)
        snippet = json.loads("".join(iter(server.stdout.readline, "}\n")) + "}")
        url = snippet["mcpServers"]["office"]["url"]
        assert url == f"http://127.0.0.1:{port}/mcp"
        async with Client(url) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert {"mail_search", "run_shell"} <= names
            listing = await client.call_tool("list_dir", {})
            assert "SKILL.md" in listing.content[0].text
        assert server.pid in marked(marker)  # the marker finds the server's processes
    finally:
        server.terminate()
        server.wait(timeout=15)
    assert marked(marker) == []  # found by the run's marker, even if re-parented


@pytest.mark.parametrize("options", [["--sandbox", "bwrap"], ["--sandbox", "process"], ["--launcher", "docker"]])
def test_each_sandbox_backend_runs_the_reference_environment(options, tmp_path):
    if "docker" in options and subprocess.run(["docker", "info"], capture_output=True).returncode != 0:
        pytest.skip("no Docker engine answers here: run .ci/docker.sh to start one")
    done = envcraft("run", "--env", "office", "--limit", "4", "--agent", "gold", *options, "--out", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr
    [row] = [line.split() for line in done.stdout.splitlines() if line.startswith("gold")]
    assert row[2] == "4" and row[3] == "100.0%", done.stdout


def test_an_unreachable_endpoint_fails_before_any_episode(task_dir, tmp_path):
    folder, _ = task_dir
    out = tmp_path / "run"
    done = envcraft("run", "--tasks-dir", str(folder), "--out", str(out), "--base-url", "http://127.0.0.1:9/v1")
    assert done.returncode != 0
    assert "http://127.0.0.1:9/v1" in done.stderr and "no episode was run" in done.stderr
    assert not (out / "rollouts.jsonl").exists()


def test_cli_asks_for_token_ids_and_logprobs_and_sets_limits(task_dir, tmp_path):
    folder, tasks = task_dir
    out = tmp_path / "run"
    with serving(build_app(Script.from_tasks(tasks))) as url:
        done = envcraft("run", "--tasks-dir", str(folder), "--out", str(out), "--base-url", url, "--limit", "2",
                        "--return-token-ids", "--logprobs", "--max-steps", "2")
    assert done.returncode == 0, done.stderr
    assert "HTTP Request" not in done.stderr
    rollouts = [Rollout.model_validate_json(line) for line in (out / "rollouts.jsonl").read_text().splitlines()]
    assert len(rollouts) == 2 and all(r.stop_reason == "max_steps" and r.steps == 3 for r in rollouts)
    replies = [m for r in rollouts for m in r.messages if m["role"] == "assistant"]
    assert replies and all(m["token_ids"] and m["prompt_token_ids"] and m["logprobs"] for m in replies)
