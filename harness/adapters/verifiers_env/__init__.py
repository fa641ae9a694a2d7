r"""EnvCraft tasks as a verifiers environment (verifiers 0.4.0, its `verifiers.v1` stack), installed as the
top-level package `envcraft_verifiers`:

    vf-eval envcraft-verifiers --env.taskset.env office --env.taskset.task.gateway-url http://HOST:8765 \
        --env.agent.runtime.type subprocess -m MODEL        # control token: $ENVCRAFT_GATEWAY_TOKEN

verifiers pins mcp==2.0.0 and EnvCraft runs on mcp 2.3.0, so this package imports nothing of EnvCraft: it
reaches a gateway (`envcraft serve --all`) over HTTP, as any remote consumer does, and needs only verifiers and
httpx (install EnvCraft beside verifiers with `pip install --no-deps`). See docs/trainers.md.
"""

from envcraft_verifiers.environment import EnvCraftConfig, EnvCraftEnv, EnvCraftHarness, EnvCraftTask, EnvCraftTaskset

__all__ = ["EnvCraftConfig", "EnvCraftEnv", "EnvCraftHarness", "EnvCraftTask", "EnvCraftTaskset"]
