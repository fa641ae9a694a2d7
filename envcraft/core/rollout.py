"""Rollout model: one episode as RL trainers and benchmark reports read it (JSONL, one per line)."""

from __future__ import annotations

import time
import uuid
from typing import Any, Literal

from envcraft.core.diff import StateDiff
from envcraft.core.grading import CheckResult
from envcraft.core.verdicts import Verdict
from pydantic import BaseModel, Field

ROLLOUT_FORMAT = "envcraft.rollout/1"


class Failure(BaseModel):
    boundary: Literal["model", "server", "sandbox", "task", "agent"]
    message: str


class Timings(BaseModel):
    acquire_seconds: float = 0.0  # workspace + server up + tools listed
    agent_seconds: float = 0.0
    grade_seconds: float = 0.0
    total_seconds: float = 0.0
    tool_calls: int = 0
    tool_seconds_mean: float = 0.0


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_calls: int = 0


class Rollout(BaseModel):
    format: Literal["envcraft.rollout/1"] = ROLLOUT_FORMAT
    rollout_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    run_id: str
    task_id: str
    task_hash: str
    envs: list[str]
    split: str
    agent: str
    model: str | None = None
    attempt: int = 0
    launcher: str
    node: str | None = None  # the Ray node (`run --ray`) or local worker (`run --workers`: "local:PID") that served it
    messages: list[dict[str, Any]] = Field(default_factory=list)
    tools: list[dict[str, Any]] = Field(default_factory=list)
    reward: float = 0.0
    passed: bool = False
    checks: list[CheckResult] = Field(default_factory=list)
    verdict: Verdict | None = None  # a foreign benchmark's own verdict (BFCL: valid, error type) beside the reward
    state_diff: dict[str, StateDiff] = Field(default_factory=dict)  # per environment: what the episode changed
    stop_reason: str = ""
    steps: int = 0
    failure: Failure | None = None
    timings: Timings = Field(default_factory=Timings)
    usage: Usage = Field(default_factory=Usage)
    created_at: float = Field(default_factory=time.time)

    @property
    def key(self) -> tuple[str, str, int]:
        """What makes a rollout unique within a run: resuming skips keys already written."""
        return (self.task_id, self.agent, self.attempt)

    @property
    def reward_components(self) -> dict[str, float]:
        return {f"{i}:{c.kind}": float(c.passed) for i, c in enumerate(self.checks)}
