"""Isolated virtual environments for consumers whose packages do not fit ours (a conflicting pin, or a
heavy stack we do not ship): each test that drives one runs it in a subprocess of its own venv.

    python -m tests.consumer_venvs            # build them all (what .ci/setup does)

A venv sees this interpreter's site-packages (so mcp, datasets, skyrl-gym... come along) and installs
on top only what the consumer adds, pinned here; it holds this repository as an editable install. It is
built once per (recipe, repository path) under ~/.cache/envcraft/consumer-venvs and reused.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CACHE = Path.home() / ".cache" / "envcraft" / "consumer-venvs"
# name -> (installed without their dependencies, installed with them)
RECIPES: dict[str, tuple[list[str], list[str]]] = {
    # SkyRL's trainer package pulls a GPU stack; its dataset code needs only transformers and loguru.
    # 0.3.0: the last release for Python 3.11 (0.4.0 needs 3.12); its PromptDataset is the one on SkyRL's main.
    "skyrl": (["skyrl==0.3.0"], ["transformers==5.8.0", "loguru==0.7.3"]),
    # verifiers pins mcp==2.0.0 (ours is 2.3.0): here it shadows ours, and our code in this venv is only the
    # envcraft_verifiers package, which reaches a gateway over HTTP. uv runs verifiers' chat program (a PEP 723
    # script whose dependencies uv fetches once into its cache).
    "verifiers": ([], ["verifiers==0.4.0", "uv==0.13.9"]),
}


def consumer_venv(name: str) -> Path:
    """The python of the named consumer venv, built on first use (under a lock: tests may run in parallel)."""
    bare, full = RECIPES[name]
    # pyproject.toml too: the editable install maps our packages as it lists them (a new package needs a rebuild)
    project = (REPO / "pyproject.toml").read_text("utf-8")
    key = hashlib.sha256(json.dumps([bare, full, str(REPO), sys.version, project]).encode()).hexdigest()[:12]
    folder = CACHE / f"{name}-{key}"
    python = folder / "bin" / "python"
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (folder / "ready").exists():
            return python
        subprocess.run([sys.executable, "-m", "venv", "--clear", "--system-site-packages", str(folder)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        for packages, extra in ((bare, ["--no-deps"]), (full, []), ([f"-e{REPO}"], ["--no-deps"])):
            if packages:
                subprocess.run([*pip, *extra, *packages], check=True)
        (folder / "ready").write_text("ok")
    return python


if __name__ == "__main__":
    for recipe in RECIPES:
        print(recipe, consumer_venv(recipe))
