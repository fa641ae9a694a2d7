"""SkyRL-gym: each EnvCraft task as a `BaseTextEnv` whose `step` runs the model's tool calls on the farm.

    from envcraft.harness.adapters.skyrl_env import register_env
    env = skyrl_gym.make(register_env(), env_config={"gateway_url": URL, "token": T},   # or {} in process
                         extras={"task_id": "office-001", "max_turns": 20})
    prompt, info = env.init(prompt)       # the episode's rendering, tools written out; first user turn
    out = env.step(completion_text)       # tool observations; reward = the graded reward when done

Rows of `envcraft export RUN --format skyrl` carry `env_class: "envcraft"` and `task_id`, which SkyRL's
dataset hands to the environment as extras; their `prompt` is what `init()` would build.

The episode ends when the model calls `finish`, answers without a tool call, or uses its turns; the
final state is then graded from outside the agent's reach and the episode deleted.
"""

from __future__ import annotations

from typing import Any

from envcraft.core.extras import require
from envcraft.harness.adapters.sync_farm import shared_farm
from envcraft.harness.adapters.tool_text import parse_tool_calls

_text_env = require("skyrl_gym.envs.base_text_env", "trainers", "the SkyRL adapter")
BaseTextEnv, BaseTextEnvStepOutput = _text_env.BaseTextEnv, _text_env.BaseTextEnvStepOutput
_registration = require("skyrl_gym.envs.registration", "trainers", "the SkyRL adapter")

ENV_ID = "envcraft"


def _get(config: Any, key: str) -> Any:
    return config.get(key) if hasattr(config, "get") else getattr(config, key, None)


class EnvCraftTextEnv(BaseTextEnv):
    def __init__(self, env_config: Any = None, extras: dict[str, Any] | None = None):
        super().__init__()
        extras = extras or {}
        if "task_id" not in extras:
            raise ValueError('extras needs "task_id" (an EnvCraft task id): rows of `envcraft export RUN --format '
                             'skyrl` carry it, or pass extras={"task_id": ...}')
        config = env_config or {}
        self.farm = shared_farm(_get(config, "gateway_url"), _get(config, "token"), _get(config, "tasks_dir"))
        self.task_id = extras["task_id"]
        self.max_turns = int(extras.get("max_turns", 20))
        self.info = None
        self.reward: float | None = None

    def init(self, prompt: list[dict[str, Any]] | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The row's prompt when SkyRL passes one (an exported row's is this rendering), else the rendering."""
        self.info = self.farm.create(self.task_id)
        return (prompt or self.info.rendering().text_messages()), {"episode": self.info.id, "tools": self.info.tools}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        self.turns += 1
        calls = parse_tool_calls(action)
        observations, finished = [], False
        for call in calls:
            if isinstance(call, str):
                observations.append({"role": "tool", "content": call})
                continue
            name, arguments = call
            reply = self.farm.call_tool(self.info.id, name, arguments)
            observations.append({"role": "tool", "content": reply.text})
            finished |= name == self.info.tool_name(None, "finish") and not reply.is_error
        done = finished or not calls or self.turns >= self.max_turns
        if not done:
            return BaseTextEnvStepOutput(observations=observations, reward=0.0, done=False, metadata={})
        grade = self.farm.grade(self.info.id)
        self.reward = grade.reward
        self.close()
        return BaseTextEnvStepOutput(observations=observations, reward=grade.reward, done=True,
                                     metadata={"passed": grade.passed, "checks": [c.model_dump() for c in grade.checks]})

    def close(self) -> None:
        if self.info is not None:
            self.farm.delete(self.info.id)
            self.info = None

    def get_metrics(self) -> dict[str, Any]:
        return {"reward": self.reward or 0.0, "turns": self.turns}


def register_env() -> str:
    """Register the environment with skyrl_gym (idempotent); returns its id for `skyrl_gym.make`."""
    if ENV_ID not in _registration.registry:
        _registration.register(id=ENV_ID, entry_point=f"{__name__}:EnvCraftTextEnv")
    return ENV_ID
