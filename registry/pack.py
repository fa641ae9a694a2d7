"""`envcraft pack <env> DIR`: a standalone copy of one environment with the runtime vendored in.

Servers import the one runtime package, envcraft_runtime. A packed folder holds the environment's
own files plus a copy of that package beside server.py, so `python server.py` (and the CLI shim,
which looks for the runtime beside its environment) work with only `mcp` installed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from envcraft.registry.catalog import Environment
from envcraft_runtime.shell import RUNTIME_DIR

SKIP = shutil.ignore_patterns("__pycache__", "*.pyc")


def pack(env: Environment, out: Path | str) -> Path:
    """Write env's folder with envcraft_runtime/ vendored to `out` (which must not exist or be empty)."""
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise FileExistsError(f"{out} exists and is not an empty folder: choose a new folder to pack into")
    if out.exists():
        out.rmdir()
    shutil.copytree(env.folder, out, ignore=SKIP, symlinks=True)
    if (out / RUNTIME_DIR.name).exists():
        raise FileExistsError(f"{env.folder} already holds a {RUNTIME_DIR.name}/ folder: is it a packed copy?")
    shutil.copytree(RUNTIME_DIR, out / RUNTIME_DIR.name, ignore=SKIP)
    return out
