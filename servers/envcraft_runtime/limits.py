"""The bounds every shell command, and every episode as a whole, runs under."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Limits:
    wall_seconds: float = 20.0
    cpu_seconds: int = 10
    memory_mb: int = 512
    processes: int = 64
    open_files: int = 256
    file_mb: int = 64
    output_bytes: int = 64_000
    # The episode as a whole (all its commands together, however many run at once).
    episode_memory_mb: int = 1024
    episode_processes: int = 256
    episode_cpus: float = 1.0
