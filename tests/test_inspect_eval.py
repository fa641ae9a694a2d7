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


def test_inspect_eval_scores_gold_like_transcripts_one_and_idle_ones_zero(tmp_path):
    tasks = [mail_task(i) for i in range(20, 23)]
    write_tasks(tmp_path / "tasks" / "office.jsonl", tasks)
    scripted = tasks[:2]  # the model has a gold-like script for these; for the last it answers without a tool
    with serving(build_app(Script.from_tasks(scripted))) as url:
        done = subprocess.run(
            [sys.executable, "-m", "inspect_ai", "eval", "envcraft/inspect", "-T", "env=office",
             "-T", f"tasks_dir={tmp_path / 'tasks'}", "--model", "openai-api/scripted/scripted",
             "--log-dir", str(tmp_path / "logs"), "--display", "plain", "--no-log-realtime"],
            capture_output=True, text=True, timeout=600, cwd=tmp_path,
            env={**os.environ, "SCRIPTED_BASE_URL": url, "SCRIPTED_API_KEY": "test"})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [path] = (tmp_path / "logs").glob("*.eval")
    result = log.read_eval_log(str(path))
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
