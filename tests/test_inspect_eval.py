"""`inspect eval envcraft/inspect`, the real inspect_ai CLI, found through its entry point, with the scripted
stand-in model (harness/scripted_model.py) served over the OpenAI-compatible API: a gold-like transcript
scores 1, an idle one 0, and each score carries the check breakdown."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from envcraft.core.tasks import write_tasks
from envcraft.harness.scripted_model import Script, build_app, serving

from tests.helpers import mail_task

pytestmark = pytest.mark.slow  # servers, subprocesses or whole runs: out of the fast lane

log = pytest.importorskip("inspect_ai.log", reason="install the [inspect] extra: pip install 'envcraft[inspect]'")


def inspect_eval(scripted, tmp_path, *options: str):
    """`inspect eval envcraft/inspect -T option ...` with the stand-in model scripted for these tasks; its log."""
    with serving(build_app(Script.from_tasks(scripted))) as url:
        done = subprocess.run(
            [sys.executable, "-m", "inspect_ai", "eval", "envcraft/inspect", *(a for o in options for a in ("-T", o)),
             "--model", "openai-api/scripted/scripted", "--log-dir", str(tmp_path / "logs"), "--display", "plain",
             "--no-log-realtime"],
            capture_output=True, text=True, timeout=600, cwd=tmp_path,
            env={**os.environ, "SCRIPTED_BASE_URL": url, "SCRIPTED_API_KEY": "test"})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [path] = (tmp_path / "logs").glob("*.eval")
    return log.read_eval_log(str(path))


def test_inspect_eval_scores_gold_like_transcripts_one_and_idle_ones_zero(tmp_path):
    tasks = [mail_task(i) for i in range(20, 23)]
    write_tasks(tmp_path / "tasks" / "office.jsonl", tasks)
    scripted = tasks[:2]  # the model has a gold-like script for these; for the last it answers without a tool
    result = inspect_eval(scripted, tmp_path, "env=office", f"tasks_dir={tmp_path / 'tasks'}")
    assert result.status == "success" and result.eval.task == "envcraft/inspect"
    scores = {sample.id: sample.scores["grade"] for sample in result.samples}
    assert set(scores) == {task.id for task in tasks}
    for task in tasks:
        score = scores[task.id]
        assert score.value == (1.0 if task in scripted else 0.0), (task.id, score)
        assert score.metadata["passed"] == (task in scripted)
        assert [c["kind"] for c in score.metadata["checks"]] == [c.kind for c in task.checks]
    first = next(s for s in result.samples if s.id == tasks[0].id)
    assert first.messages[0].role == "system" and "SKILL.md" in first.messages[0].text  # the rendering's prompt
    called = [c.function for m in first.messages if m.role == "assistant" for c in m.tool_calls or []]
    assert called[: len(tasks[0].gold)] == [c.tool for c in tasks[0].gold]


def test_inspect_eval_runs_bfcl_tasks_turn_by_turn_and_scores_them_by_bfcl(tmp_path):
    """`-T bench=bfcl-multi-turn`: BFCL's tasks, each turn with that turn's tools (`sort` is first offered at
    turn 3 of miss_func_0, and the scripted gold calls it there), scored by BFCL's own checker."""
    pytest.importorskip("bfcl_eval", reason="BFCL is installed by .ci/setup (pip install --no-deps bfcl-eval==2026.3.23)")
    from envcraft.harness.benchmark_runs import bench_tasks

    tasks = bench_tasks("bfcl-multi-turn", "multi_turn_miss_func", 2)
    result = inspect_eval(tasks[:1], tmp_path, "bench=bfcl-multi-turn", "category=multi_turn_miss_func",
                          "limit=2")  # the second task's conversation idles
    scores = {sample.id: sample.scores["grade"] for sample in result.samples}
    assert {k: s.value for k, s in scores.items()} == {tasks[0].id: 1.0, tasks[1].id: 0.0}
    assert scores[tasks[0].id].metadata["verdict"]["valid"] is True
    assert scores[tasks[1].id].metadata["verdict"]["valid"] is False
    solved = next(s for s in result.samples if s.id == tasks[0].id)
    called = [c.function for m in solved.messages if m.role == "assistant" for c in m.tool_calls or []]
    assert "sort" in called
    refused = [m.function for m in solved.messages if m.role == "tool" and m.error]
    assert refused == ["finish"]  # only the stand-in's closing call: BFCL's episodes have no finish tool
