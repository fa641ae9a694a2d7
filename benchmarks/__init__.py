"""Foreign benchmarks in the farm: their tasks, served as our episodes, graded by their own checkers.

`seam.py` is the contract (a Protocol, three parts: tasks, an episode factory, a grader); `registry.py`
finds benchmarks by name; `bfcl/` is the first user (BFCL v4 multi-turn). See README.md here for how to add one.
Imports `envcraft.core` only; the registry and the harness import this package.
"""

from envcraft.benchmarks.registry import get, names, owner, register
from envcraft.benchmarks.seam import BenchEnvironment, BenchEpisode, Benchmark

__all__ = ["BenchEnvironment", "BenchEpisode", "Benchmark", "get", "names", "owner", "register"]
