"""Rows trainers read: SFT transcripts, verl and SkyRL prompts, as JSONL or parquet.

Parquet columns are built with explicit pyarrow types. Tool schemas stay JSON strings: each tool's
`parameters` has its own properties, and a struct column unifies them (with pandas, `read_file`
came back with 37 properties, 34 of them null). Every row of a verl file has the same nested
shape, for the same reason.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from envcraft.core.extras import require
from envcraft.core.rendering import Rendering
from envcraft.core.rollout import Rollout
from envcraft.core.tasks import Task

EXPORT_FORMAT = "envcraft.export/2"
TRAINING_KEYS = ("prompt_token_ids", "token_ids", "logprobs", "reasoning_content", "reasoning")


def sft_messages(rollout: Rollout, system_prompt: str | None) -> list[dict[str, Any]]:
    """The transcript for SFT: a system prompt first (the rollout's own; the task's rendering for a rollout
    recorded without one), training-only fields dropped, and no trailing tool reply (a gold replay ends on
    finish's reply; the last turn to learn is the assistant's call)."""
    messages = [{k: v for k, v in m.items() if k not in TRAINING_KEYS} for m in rollout.messages]
    if not messages or messages[0]["role"] != "system":
        if system_prompt is None:
            raise ValueError(f"rollout {rollout.rollout_id} has no system prompt and its task {rollout.task_id} is "
                             "not in the task folder: pass the --tasks-dir it was run from")
        messages.insert(0, {"role": "system", "content": system_prompt})
    while messages and messages[-1]["role"] == "tool":
        messages.pop()
    return [_message(m) for m in messages]


def _message(m: dict[str, Any]) -> dict[str, Any]:
    """One fixed shape per message, so a parquet column has one type."""
    calls = [{"id": c.get("id") or "", "type": "function",
              "function": {"name": c["function"]["name"], "arguments": c["function"]["arguments"]
                           if isinstance(c["function"]["arguments"], str) else json.dumps(c["function"]["arguments"])}}
             for c in m.get("tool_calls") or []]
    return {"role": m["role"], "content": m.get("content") or "", "tool_calls": calls,
            "tool_call_id": m.get("tool_call_id") or ""}


def sft_row(rollout: Rollout, system_prompt: str | None) -> dict[str, Any]:
    return {"format": EXPORT_FORMAT, "messages": sft_messages(rollout, system_prompt),
            "tools": json.dumps(rollout.tools), "reward": rollout.reward, "task_id": rollout.task_id,
            "envs": rollout.envs}


def verl_row(task: Task, index: int, shown: Rendering) -> dict[str, Any]:
    """verl's RL dataset layout: data_source, prompt (system + first user turn), ability, reward_model,
    extra_info (tools_kwargs binds the trajectory's episode to this task), agent_name."""
    tools = shown.tools
    return {
        "data_source": f"envcraft/{task.envs[0]}",
        "agent_name": "tool_agent",
        "prompt": shown.messages(),
        "ability": "agentic-tool-use",
        "reward_model": {"style": "rule", "ground_truth": task.id},
        "extra_info": {"split": task.split, "index": index, "task_id": task.id, "task_hash": task.content_hash,
                       "envs": task.envs, "turns": json.dumps(task.turns), "tools": json.dumps(tools),
                       "need_tools_kwargs": True,
                       "tools_kwargs": {"envcraft": {"create_kwargs": {"task_id": task.id}}}},
    }


def skyrl_row(task: Task, index: int, shown: Rendering) -> dict[str, Any]:
    """SkyRL's dataset layout (skyrl/train/dataset/dataset.py): `prompt` and `env_class` are read; every other
    column reaches the environment as its extras, so `task_id` is one. SkyRL applies the chat template
    without tools, so the prompt writes the tools out after the system prompt (Rendering.text_messages)."""
    return {
        "data_source": f"envcraft/{task.envs[0]}",
        "prompt": shown.text_messages(),
        "env_class": "envcraft",
        "task_id": task.id,
        "reward_spec": {"method": "rule", "ground_truth": task.id},
        "extra_info": {"split": task.split, "index": index, "task_hash": task.content_hash, "envs": task.envs,
                       "turns": json.dumps(task.turns), "tools": json.dumps(shown.tools)},
    }


def _schema(kind: str):
    pa = require("pyarrow", "trainers", "a parquet export")

    message = pa.struct([("role", pa.string()), ("content", pa.string()),
                         ("tool_calls", pa.list_(pa.struct([("id", pa.string()), ("type", pa.string()), (
                             "function", pa.struct([("name", pa.string()), ("arguments", pa.string())]))]))),
                         ("tool_call_id", pa.string())])
    if kind == "sft":
        return pa.schema([("format", pa.string()), ("messages", pa.list_(message)), ("tools", pa.string()),
                          ("reward", pa.float64()), ("task_id", pa.string()), ("envs", pa.list_(pa.string()))])
    chat = pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))
    if kind == "skyrl":
        extra = pa.struct([("split", pa.string()), ("index", pa.int64()), ("task_hash", pa.string()),
                           ("envs", pa.list_(pa.string())), ("turns", pa.string()), ("tools", pa.string())])
        return pa.schema([("data_source", pa.string()), ("prompt", chat), ("env_class", pa.string()),
                          ("task_id", pa.string()), ("reward_spec", pa.struct([("method", pa.string()),
                                                                               ("ground_truth", pa.string())])),
                          ("extra_info", extra)])
    binding = pa.struct([("envcraft", pa.struct([("create_kwargs", pa.struct([("task_id", pa.string())]))]))])
    extra = pa.struct([("split", pa.string()), ("index", pa.int64()), ("task_id", pa.string()),
                       ("task_hash", pa.string()), ("envs", pa.list_(pa.string())), ("turns", pa.string()),
                       ("tools", pa.string()), ("need_tools_kwargs", pa.bool_()), ("tools_kwargs", binding)])
    return pa.schema([("data_source", pa.string()), ("agent_name", pa.string()), ("prompt", chat),
                      ("ability", pa.string()), ("reward_model", pa.struct([("style", pa.string()),
                                                                            ("ground_truth", pa.string())])),
                      ("extra_info", extra)])


def write_rows(rows: list[dict[str, Any]], out: Path, kind: str) -> None:
    """JSONL or parquet, by the file's suffix."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix == ".parquet":
        pa = require("pyarrow", "trainers", "a parquet export")
        pq = require("pyarrow.parquet", "trainers", "a parquet export")
        pq.write_table(pa.Table.from_pylist(rows, schema=_schema(kind)), out)
        return
    with open(out, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")


def verl_tool_config(tools: list[dict[str, Any]], gateway_url: str) -> dict[str, Any]:
    """verl's tool config (actor_rollout_ref.rollout.multi_turn.tool_config_path): every tool of the
    exported tasks, each run by EnvCraftTool in the trajectory's own episode on the gateway."""
    return {"tools": [{"class_name": "envcraft.harness.adapters.verl_tool.EnvCraftTool",
                       "config": {"type": "native", "gateway_url": gateway_url, "token_env": "ENVCRAFT_GATEWAY_TOKEN"},
                       "tool_schema": tool} for tool in tools]}
