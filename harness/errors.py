"""Why an episode stopped, carried by exceptions so the loop stays flat (the mini-swe-agent way).

An infrastructure failure names the one boundary it crossed, so a bad rollout is data, not a crash.
"""

from __future__ import annotations

from typing import Literal

Boundary = Literal["model", "server", "sandbox", "task"]


class EpisodeStop(Exception):
    """The agent's episode ends normally for `reason` (e.g. max_turns, max_tokens)."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class InfraFailure(Exception):
    """Something outside the agent broke; the rollout is recorded as failed at `boundary`."""

    def __init__(self, boundary: Boundary, message: str):
        super().__init__(f"{boundary}: {message}")
        self.boundary = boundary
        self.message = message
