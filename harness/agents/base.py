"""How an agent acts: one protocol. An agent drives an Episode and returns why it stopped."""

from __future__ import annotations

from typing import Protocol

from envcraft.harness.episode import Episode


class Agent(Protocol):
    name: str
    model: str | None

    async def run(self, episode: Episode) -> str:
        """Work through episode.turns with episode.act/say; return a stop reason ('finished', ...)."""
        ...
