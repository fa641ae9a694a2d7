"""The mistakes a new user makes, each answered with a clear message, a non-zero exit, and no folder created."""

from __future__ import annotations

import json
import os
import signal
import subprocess

import pytest

from envcraft import __version__
from tests.helpers import REPO, free_port, wait_for_port
from tests.test_run import ENVCRAFT, envcraft


def test_version():
    done = envcraft("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"envcraft {__version__}"


@pytest.mark.slow
def test_report_and_export_on_a_missing_run_fail_and_create_nothing(tmp_path):
    missing = tmp_path / "runs" / "nope"
    for args in (["report", str(missing)], ["report", str(missing), "--html", str(tmp_path / "r.html")],
                 ["export", str(missing), "--format", "sft", "--out", str(tmp_path / "out" / "sft.jsonl")]):
        done = envcraft(*args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert f"no run folder {missing}" in done.stderr and "envcraft run --out" in done.stderr
    assert not (tmp_path / "runs").exists() and not (tmp_path / "out").exists() and not (tmp_path / "r.html").exists()


def test_task_stats_and_sample_on_a_missing_folder_fail_and_create_nothing(tmp_path):
    missing = tmp_path / "tasks" / "nope"
    for command in ("stats", "sample"):
        done = envcraft("tasks", command, "--dir", str(missing))
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        assert f"no task folder {missing}" in done.stderr and "envcraft tasks generate --out" in done.stderr
    assert not (tmp_path / "tasks").exists()


@pytest.mark.slow
def test_a_folder_that_is_not_a_run_is_named_as_such(tmp_path):
    done = envcraft("report", str(tmp_path))
    assert done.returncode == 2 and "holds no rollouts.jsonl" in done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_a_misspelt_environment_gets_did_you_mean_not_the_whole_catalog():
    for args in (["run", "--env", "offfice"], ["serve", "offfice"], ["serve", "offfice", "--stdio"]):
        done = envcraft(*args)
        assert done.returncode == 2, args
        assert "no environment named 'offfice'; did you mean 'office'?" in done.stderr, done.stderr
        assert "generate tasks" not in done.stderr
        assert len(done.stderr) < 200  # not 152 names on one line
    done = envcraft("run", "--env", "qqqqqq")
    assert done.returncode == 2 and "did you mean" not in done.stderr and "envcraft list" in done.stderr


@pytest.mark.slow
def test_a_misspelt_agent_gets_did_you_mean():
    done = envcraft("run", "--env", "office", "--agent", "gould")
    assert done.returncode == 2 and "unknown agent 'gould': did you mean 'gold'?" in done.stderr


@pytest.mark.slow
def test_the_banner_names_the_agents_asked_for(tmp_path):
    done = envcraft("run", "--env", "office", "--agent", "gold", "--limit", "1", "--out", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr
    assert "gold-replay policy" in done.stderr and "no-op" not in done.stderr


@pytest.mark.slow
def test_ctrl_c_and_sigterm_stop_serve_cleanly_and_remove_its_workspace(tmp_path):
    for sig, code in ((signal.SIGINT, 0), (signal.SIGTERM, 128 + signal.SIGTERM)):
        port = free_port()
        env = {**os.environ, "TMPDIR": str(tmp_path)}  # the temporary workspace lands here
        server = subprocess.Popen([*ENVCRAFT, "serve", "office", "--port", str(port)], cwd=REPO, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            wait_for_port(port, timeout=120)  # a loaded 2-core machine can take a while to start a server
            assert any((tmp_path / "envcraft").iterdir())  # the run's workspace folder exists while serving
            server.send_signal(sig)
            out, err = server.communicate(timeout=30)
        finally:
            server.kill()
        assert server.returncode == code, (sig, err)
        assert "resume" not in err and "stopped serving office" in err
        assert json.loads(out)["mcpServers"]["office"]["type"] == "http"  # stdout: the entry and nothing else
        assert list((tmp_path / "envcraft").iterdir()) == [], sig  # and is gone after
