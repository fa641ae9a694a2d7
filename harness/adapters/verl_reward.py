"""verl's custom reward function for EnvCraft rows (`custom_reward_function.path` = this file,
`name` = compute_score).

The reward is the grade of the trajectory's final state, computed by the gateway's control API
when the policy called `finish` (EnvCraftTool returns it as that call's step reward; verl hands
the step rewards to this function as `extra_info["tool_rewards"]`). A trajectory that never
called `finish` submitted nothing and earns 0. Text in the response earns nothing: only state.
"""

from __future__ import annotations

from typing import Any


def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: dict[str, Any] | None = None,
                  **kwargs: Any) -> float:
    rewards = [float(r) for r in (extra_info or {}).get("tool_rewards") or [] if r]
    return rewards[0] if rewards else 0.0
