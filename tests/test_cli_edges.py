"""The CLI at its edges: a missing extra, a reader that leaves early, a resumed run."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.helpers import REPO
from tests.test_run import envcraft

pytestmark = pytest.mark.slow  # servers, subprocesses or whole runs: out of the fast lane

WITHOUT = "import sys; sys.modules.update(dict.fromkeys({modules!r})); from envcraft.cli import main; sys.exit(main())"


def envcraft_without(modules: list[str], *args: str) -> subprocess.CompletedProcess:
    """The CLI in a process where `modules` cannot be imported (as on a plain wheel install without extras)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ENVCRAFT_")}
    return subprocess.run([sys.executable, "-c", WITHOUT.format(modules=modules), *args], capture_output=True,
                          text=True, timeout=300, cwd=REPO, env=clean)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("edges") / "run"
    done = envcraft("run", "--env", "office", "--agent", "gold", "--limit", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out


def test_a_parquet_export_without_pyarrow_names_the_extra_and_writes_nothing(run, tmp_path):
    out = tmp_path / "verl.parquet"
    done = envcraft_without(["pyarrow", "pyarrow.parquet"], "export", str(run), "--format", "verl", "--out", str(out))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().endswith("pip install 'envcraft[trainers]'"), done.stderr
    assert not out.exists() and not out.with_name("verl.tools.yaml").exists()


def test_ray_without_ray_names_the_extra_not_an_editable_install(tmp_path):
    done = envcraft_without(["ray"], "run", "--env", "office", "--agent", "noop", "--limit", "1", "--ray", "local",
                            "--out", str(tmp_path / "run"))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().endswith("pip install 'envcraft[ray]'") and "-e ." not in done.stderr


def test_json_output_into_a_closed_pipe_ends_quietly(run):
    read, write = os.pipe()
    os.close(read)  # the reader is gone before a byte is written, as `| head` is after its lines
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ENVCRAFT_")}
    done = subprocess.run([sys.executable, "-m", "envcraft.cli", "report", str(run), "--json"], stdout=write,
                          stderr=subprocess.PIPE, text=True, timeout=300, cwd=REPO, env=clean)
    os.close(write)
    assert done.stderr == "" and done.returncode == 141, done.stderr


def test_a_resume_counts_on_from_the_kept_rollouts_and_appends_its_settings(tmp_path):
    out = tmp_path / "run"
    assert envcraft("run", "--env", "office", "--agent", "gold", "--limit", "1", "--out", str(out)).returncode == 0
    first = json.loads((out / "run.json").read_text())
    again = envcraft("run", "--env", "office", "--agent", "gold", "--limit", "2", "--concurrency", "3",
                     "--out", str(out))
    assert again.returncode == 0, again.stderr
    progress = [line for line in again.stderr.splitlines() if line.startswith("gold: ")]
    assert progress and all(line.startswith("gold: 2/2") for line in progress), again.stderr
    meta = json.loads((out / "run.json").read_text())
    assert {k: v for k, v in meta.items() if k != "resumes"} == first  # the first run's settings stand
    [resume] = meta["resumes"]
    assert resume["limit"] == 2 and resume["concurrency"] == 3 and "at" in resume
