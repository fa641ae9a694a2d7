"""Why an episode stopped, carried by exceptions so the loop stays flat (the mini-swe-agent way).

An infrastructure failure is raised where it happens, as the class of the one boundary it
crossed, so a bad rollout is data, not a crash, and is never blamed on the wrong party.
"""

from __future__ import annotations

from typing import Literal

Boundary = Literal["model", "server", "sandbox", "task", "agent"]


class EpisodeStop(Exception):
    """The agent's episode ends normally for `reason` (e.g. max_steps, max_tokens)."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class InfraFailure(Exception):
    """Something outside the agent's control broke; the rollout is recorded as failed at `boundary`."""

    boundary: Boundary = "server"

    def __init__(self, boundary_or_message: str, message: str | None = None):
        if message is None:  # ModelFailure("...") form
            message = boundary_or_message
        else:  # InfraFailure("model", "...") form
            self.boundary = boundary_or_message  # type: ignore[assignment]
        super().__init__(f"{self.boundary}: {message}")
        self.message = message


class ModelFailure(InfraFailure):
    """The model endpoint failed after the client's retries (connection, status, timeout, empty reply)."""

    boundary = "model"


class ServerFailure(InfraFailure):
    """An environment server or its transport broke, or a tool call did not answer in time."""

    boundary = "server"


class SandboxFailure(InfraFailure):
    """The shell sandbox could not run a command (e.g. bubblewrap missing or refused)."""

    boundary = "sandbox"


class TaskFailure(InfraFailure):
    """The task cannot run as written (unknown environment, missing task, bad initial state)."""

    boundary = "task"


class AgentFailure(InfraFailure):
    """The agent's own code crashed (a bug in the policy, not in the farm or the model)."""

    boundary = "agent"


def leaf(exc: BaseException) -> BaseException:
    """The first real exception inside (nested) exception groups, so the cause, not the group, is named."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        inner = [e for e in exc.exceptions if isinstance(e, InfraFailure)] or list(exc.exceptions)
        exc = inner[0]
    return exc
