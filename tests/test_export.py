"""Reports and exports read from a real run folder."""

from __future__ import annotations

import json

from envcraft.harness.reports.numbers import pass_at as _pass_at, pass_hat as _pass_hat
from tests.test_run import envcraft


def test_report_and_exports_from_a_run(tmp_path):
    out = tmp_path / "run"
    done = envcraft("run", "--env", "office", "--limit", "3", "--attempts", "2", "--out", str(out))
    assert done.returncode == 0, done.stderr
    report = envcraft("report", str(out))
    gold = [line for line in report.stdout.splitlines() if line.startswith("gold")]
    assert gold and all("attempts=2" in line and "pass^2=1.000" in line for line in gold), report.stdout
    assert all("pass^2=0.000" in line for line in report.stdout.splitlines() if line.startswith("noop"))
    assert envcraft("export", str(out), "--format", "sft", "--out", str(tmp_path / "sft.jsonl")).returncode == 0
    sft = [json.loads(line) for line in (tmp_path / "sft.jsonl").read_text().splitlines()]
    assert len(sft) == 6 and all(row["reward"] == 1.0 and row["messages"] and row["tools"] for row in sft)
    assert envcraft("export", str(out), "--format", "verl", "--out", str(tmp_path / "verl.jsonl")).returncode == 0
    verl = [json.loads(line) for line in (tmp_path / "verl.jsonl").read_text().splitlines()]
    assert len(verl) == 3 and {"data_source", "prompt", "ability", "reward_model", "extra_info"} <= set(verl[0])
    assert (tmp_path / "verl.tools.yaml").exists()


def test_pass_at_k_and_pass_hat_k():
    assert _pass_at(4, 1, 1) == 0.25 and _pass_at(4, 1, 4) == 1.0
    assert _pass_hat(4, 2, 2) == 1 / 6 and _pass_hat(4, 4, 4) == 1.0 and _pass_hat(4, 3, 4) == 0.0
