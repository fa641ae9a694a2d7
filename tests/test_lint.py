"""Ruff lint over the repository, with the rules set in pyproject.toml ([tool.ruff])."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import REPO


def test_ruff_finds_nothing():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
