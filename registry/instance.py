"""A live environment instance: what a launcher hands to whoever runs an episode."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from envcraft.core.state import InitialState
from envcraft.registry.catalog import Environment
from envcraft.registry.workspaces import materialize
from envcraft_runtime import end_episode
from mcp import Client


@dataclass
class Instance:
    """A live environment instance for one episode: the agent plane (client) and the workspace."""

    env: Environment
    workspace: Path
    client: Client
    initial: InitialState | None
    after_reset: Callable[[Path], None] | None = None  # e.g. the Docker backend hands files back to its uids

    def reset(self) -> None:
        """Control plane: put the workspace back to the episode's initial state."""
        end_episode(self.workspace)  # its commands end first (they would act on the restored folder)
        materialize(self.env.seed, self.workspace, self.initial)
        if self.after_reset is not None:
            self.after_reset(self.workspace)
