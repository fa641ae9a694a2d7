"""SFT and verl files as their readers load them: `datasets` for SFT (JSONL and parquet), pyarrow against
verl's documented dataset schema, and the tool config verl's tool agent loop reads."""

from __future__ import annotations

import json

import pytest
import yaml
from envcraft.core.tasks import write_tasks
from envcraft.harness.agents.policies import GoldReplayAgent
from envcraft.harness.export import export
from envcraft.harness.runner import RolloutLog, run_tasks

from tests.helpers import mail_task

datasets = pytest.importorskip("datasets", reason="install the [trainers] extra: pip install -e .[trainers]")
pq = pytest.importorskip("pyarrow.parquet", reason="install the [trainers] extra: pip install -e .[trainers]")


@pytest.fixture
def run(tmp_path):
    tasks = [mail_task(i) for i in range(3)]
    write_tasks(tmp_path / "tasks" / "office.jsonl", tasks)
    import anyio

    log = RolloutLog(tmp_path / "run" / "rollouts.jsonl")
    anyio.run(lambda: run_tasks(tasks, GoldReplayAgent({t.id: t.gold for t in tasks}), None, log, run_id="r"))
    return tmp_path, tasks


def real_tool(tools: list[dict], name: str) -> dict:
    return next(t for t in tools if t["function"]["name"] == name)


@pytest.mark.parametrize("suffix,loader", [(".jsonl", "json"), (".parquet", "parquet")])
def test_sft_files_load_with_datasets_and_keep_tool_schemas_intact(run, suffix, loader):
    folder, tasks = run
    out = folder / f"sft{suffix}"
    export(folder / "run", "sft", out, tasks_dir=folder / "tasks")
    rows = datasets.load_dataset(loader, data_files=str(out), split="train")
    assert len(rows) == len(tasks)
    row = rows[0]
    tools = json.loads(row["tools"])
    rollout = RolloutLog(folder / "run" / "rollouts.jsonl").done[(row["task_id"], "gold", 0)]
    assert real_tool(tools, "read_file") == real_tool(rollout.tools, "read_file")  # no null-filled properties
    assert row["messages"][0]["role"] == "system" and "finish" in row["messages"][0]["content"]
    turn = next(t for t in tasks if t.id == row["task_id"]).turns[0]
    assert row["messages"][1] == {"role": "user", "content": turn, "tool_calls": [], "tool_call_id": ""}
    last = row["messages"][-1]
    assert last["role"] == "assistant" and last["tool_calls"][0]["function"]["name"] == "finish"


def test_verl_parquet_follows_the_documented_schema_and_binds_each_row_to_its_task(run):
    folder, tasks = run
    out = folder / "verl.parquet"
    export(folder / "run", "verl", out, tasks_dir=folder / "tasks", gateway_url="http://127.0.0.1:9999")
    table = pq.read_table(out)
    assert set(table.column_names) == {"data_source", "agent_name", "prompt", "ability", "reward_model", "extra_info"}
    rows = table.to_pylist()
    assert [r["extra_info"]["task_id"] for r in rows] == [t.id for t in tasks]
    for row, task in zip(rows, tasks):
        assert row["data_source"] == "envcraft/office" and row["agent_name"] == "tool_agent"
        assert [m["role"] for m in row["prompt"]] == ["system", "user"] and row["prompt"][1]["content"] == task.turns[0]
        assert row["reward_model"] == {"style": "rule", "ground_truth": task.id}
        assert row["extra_info"]["tools_kwargs"] == {"envcraft": {"create_kwargs": {"task_id": task.id}}}
        assert row["extra_info"]["need_tools_kwargs"] is True
        assert json.loads(row["extra_info"]["turns"]) == task.turns
    config = yaml.safe_load((folder / "verl.tools.yaml").read_text())
    names = {tool["tool_schema"]["function"]["name"] for tool in config["tools"]}
    assert {"mail_send", "finish", "read_file"} <= names
    assert all(t["class_name"] == "envcraft.harness.adapters.verl_tool.EnvCraftTool" and
               t["config"]["gateway_url"] == "http://127.0.0.1:9999" for t in config["tools"])
