"""A real package: a wheel built from the tree, installed (not editable) in a fresh venv, run from elsewhere.

To stay fast, the venv gets the wheel alone (--no-deps) and reads the third-party dependencies already
installed for this interpreter through a plain path line in a .pth file: such a line adds the folder to
sys.path but runs none of its .pth hooks, so an editable envcraft installed there stays invisible.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from tests.helpers import REPO

pytestmark = pytest.mark.slow  # a wheel built and installed once for the module: not in the fast lane

SKIP = shutil.ignore_patterns(".git", "__pycache__", "*.pyc", "build", "runs", "*.egg-info", ".ruff_cache",
                              ".pytest_cache")


def run(*args: str, cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"
    shutil.copytree(REPO, source, ignore=SKIP)  # the build never writes into the checkout
    built = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp / "dist"),
                str(source), cwd=tmp)
    assert built.returncode == 0, built.stderr
    [wheel] = (tmp / "dist").glob("envcraft-*.whl")
    env = tmp / "venv"
    venv.create(env, with_pip=False, symlinks=True)
    python = env / "bin" / "python"
    purelib = Path(run(str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))", cwd=tmp).stdout.strip())
    deps = [p for p in sys.path if p.endswith("site-packages")] + [sysconfig.get_path("purelib")]
    (purelib / "_deps.pth").write_text("\n".join(dict.fromkeys(deps)) + "\n")
    done = run(sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel), cwd=tmp)
    assert done.returncode == 0, done.stderr
    return env


def test_the_installed_package_is_the_wheel_and_nothing_top_level_but_envcraft(installed, tmp_path):
    python = str(installed / "bin" / "python")
    where = run(python, "-c", "import envcraft.registry, envcraft.harness; print(envcraft.__file__)", cwd=tmp_path)
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(installed)  # the wheel's copy, not the checkout
    for name in ("registry", "harness", "generator", "core"):
        gone = run(python, "-c", f"import {name}", cwd=tmp_path)
        assert gone.returncode == 1 and f"No module named '{name}'" in gone.stderr
    tasks = next(installed.glob("lib/python*/site-packages/envcraft/tasks"))
    assert (tasks / "office.jsonl").exists() and not list(tasks.rglob("*.py"))  # task data, not the build scripts


def test_every_environment_is_listed(installed, tmp_path):
    listed = run(str(installed / "bin" / "envcraft"), "list", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    expected = sorted(p.parent.name for p in (REPO / "servers").glob("*/server.json"))
    assert len(expected) >= 152 and f"{len(expected)} environment(s)" in listed.stdout
    shown = {line.split()[0] for line in listed.stdout.splitlines() if line.split()}
    assert set(expected) <= shown


def test_run_from_the_installed_package_passes(installed, tmp_path):
    out = tmp_path / "run"
    done = run(str(installed / "bin" / "envcraft"), "run", "--env", "office", "--agent", "gold", "--limit", "3",
               "--out", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [row] = json.loads((out / "summary.json").read_text())
    assert row["agent"] == "gold" and row["episodes"] == 3 and row["success_rate"] == 1.0


@pytest.mark.anyio
@pytest.mark.parametrize("env", ["office", "vet_clinic"])
async def test_serve_runs_any_environment_from_the_installed_package(installed, tmp_path, env):
    printed = run(str(installed / "bin" / "envcraft"), "serve", env, "--client", "claude-desktop", "--stdio",
                  cwd=tmp_path)
    assert printed.returncode == 0, printed.stderr
    entry = json.loads(printed.stdout)["mcpServers"][env]
    assert Path(entry["command"]).is_relative_to(installed)
    async with Client(StdioServerParameters(command=entry["command"], args=entry["args"], cwd=str(tmp_path))) as client:
        tools = (await client.list_tools()).tools
    assert any(tool.name == "finish" for tool in tools) and len(tools) > 5
