"""BFCL v4 multi-turn (the `bfcl-eval` wheel) served by the farm and graded by BFCL's own checker."""

from envcraft.benchmarks.bfcl.benchmark import BENCHMARK

__all__ = ["BENCHMARK"]
