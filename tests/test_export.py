"""Reports and exports read from a real run folder."""

from __future__ import annotations

import json

import pytest
from envcraft.harness.reports.numbers import pass_at as _pass_at
from envcraft.harness.reports.numbers import pass_hat as _pass_hat

from tests.test_run import envcraft


@pytest.mark.slow
def test_report_and_exports_from_a_run(tmp_path):
    out = tmp_path / "run"
    done = envcraft("run", "--env", "office", "--limit", "3", "--attempts", "2", "--out", str(out))
    assert done.returncode == 0, done.stderr
    report = envcraft("report", str(out), "--json")
    assert report.returncode == 0, report.stderr
    rows = {row["agent"]: row for row in json.loads(report.stdout)["runs"][0]["by_agent_and_split"]}
    assert rows["gold"]["attempts"] == 2 and rows["gold"]["pass^2"] == 1.0
    assert rows["noop"]["pass^2"] == 0.0
    table = envcraft("report", str(out))
    [gold] = [line.split() for line in table.stdout.splitlines() if line.startswith("gold")]
    assert gold[4] == "2" and gold[-1] == "1.000", table.stdout  # attempts, pass^2
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
