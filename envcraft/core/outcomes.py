"""What an episode counts as in every score: the one definition every report, summary and export uses.

An episode that its own actions ended is counted, whatever ended it: a finish, a step or time limit, a crash
in the agent's code (boundary `agent`), or a workspace the grader could not grade within its limits (boundary
`task`, core/bounded_grade.py); a failure counts as reward 0, never as an excuse. Only a failure of the
infrastructure (the model endpoint, a server or its transport, the sandbox) is left out of success and reward,
and it is never dropped silently: reports show how many there were beside every rate, and a resumed run
retries them (`envcraft run --retries`).
"""

from __future__ import annotations

from collections.abc import Iterable
from statistics import mean

from envcraft.core.rollout import Rollout

EPISODE_BOUNDARIES = frozenset({"task", "agent"})  # failures the episode owns: counted as reward 0
INFRASTRUCTURE_BOUNDARIES = frozenset({"model", "server", "sandbox"})  # shown and retried, not scored


def counted(rollout: Rollout) -> bool:
    """Whether the episode is in success and reward: it ended by its own actions, failures included."""
    return rollout.failure is None or rollout.failure.boundary in EPISODE_BOUNDARIES


def infrastructure_failure(rollout: Rollout) -> bool:
    return not counted(rollout)


def success_rate(rollouts: Iterable[Rollout]) -> float:
    """Passed episodes over counted ones (0.0 when none is counted)."""
    scored = [r for r in rollouts if counted(r)]
    return mean(r.passed for r in scored) if scored else 0.0


def mean_reward(rollouts: Iterable[Rollout]) -> float:
    """Mean reward over counted episodes, a failure the episode owns being 0 (0.0 when none is counted)."""
    scored = [r for r in rollouts if counted(r)]
    return mean(r.reward for r in scored) if scored else 0.0


def infrastructure_failures(rollouts: Iterable[Rollout]) -> int:
    return sum(infrastructure_failure(r) for r in rollouts)


__all__ = ["EPISODE_BOUNDARIES", "INFRASTRUCTURE_BOUNDARIES", "counted", "infrastructure_failure",
           "infrastructure_failures", "mean_reward", "success_rate"]
