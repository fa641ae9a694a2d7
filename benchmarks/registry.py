"""Benchmarks by name: ours are imported on first use; a user's own (say an adapter over a tau2-bench
checkout) is one module file loaded from its path (`load_file`), or any object passed to `register`."""

from __future__ import annotations

import difflib
import importlib
import importlib.util
from pathlib import Path

from envcraft.benchmarks.seam import Benchmark
from envcraft.core.tasks import Task

BUILTIN = {"bfcl-multi-turn": "envcraft.benchmarks.bfcl"}  # name -> the module whose BENCHMARK it is
_LOADED: dict[str, Benchmark] = {}


def register(benchmark: Benchmark) -> Benchmark:
    _LOADED[benchmark.name] = benchmark
    return benchmark


def unregister(name: str) -> None:
    _LOADED.pop(name, None)


def names() -> list[str]:
    return sorted(set(BUILTIN) | set(_LOADED))


def get(name: str) -> Benchmark:
    if name not in _LOADED:
        if name not in BUILTIN:
            close = difflib.get_close_matches(name, names(), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise KeyError(f"no benchmark named {name!r}: {hint}known: {', '.join(names())}")
        register(importlib.import_module(BUILTIN[name]).BENCHMARK)
    return _LOADED[name]


def load_file(path: Path) -> Benchmark:
    """A benchmark module outside this package (its file defines BENCHMARK), registered under its own name."""
    path = Path(path)
    spec = importlib.util.spec_from_file_location(f"envcraft_benchmark_{path.stem}", path)
    if spec is None or spec.loader is None or not path.is_file():
        raise FileNotFoundError(f"no benchmark module at {path}: give a .py file that defines BENCHMARK")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not hasattr(module, "BENCHMARK"):
        raise ValueError(f"{path} defines no BENCHMARK object (see envcraft/benchmarks/README.md)")
    return register(module.BENCHMARK)


def every() -> list[Benchmark]:
    return [get(name) for name in names()]


def owner(env: str) -> Benchmark | None:
    """The benchmark serving environment `env`, or None for one of ours."""
    return next((b for b in every() if env in b.env_names), None)


def find_task(task_id: str) -> Task | None:
    """A benchmark's task by id, or None (ours live in task files)."""
    return next((t for b in every() if (t := b.task(task_id)) is not None), None)
