"""A foreign benchmark's own verdict on an episode, kept beside our reward (benchmarks/: BFCL, ...)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Verdict(BaseModel):
    """What the benchmark's checker said, in its own words: BFCL's `valid`, `error_type`, `error_message`."""

    model_config = ConfigDict(frozen=True)
    benchmark: str  # e.g. "bfcl-multi-turn"
    checker: str  # the function that decided, e.g. "bfcl_eval...multi_turn_checker.multi_turn_checker"
    valid: bool
    error_type: str = ""  # e.g. "multi_turn:instance_state_mismatch"; empty when valid
    error_message: str = ""
    details: dict[str, Any] = Field(default_factory=dict)  # a short excerpt of the checker's details
