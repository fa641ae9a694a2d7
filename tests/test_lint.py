"""Ruff lint over the repository, with the rules set in pyproject.toml ([tool.ruff])."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import REPO


def test_ruff_finds_nothing():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_servers_are_ruff_formatted():
    """Generated apps come out of `ruff format` (generator/compile/render.py) and office, the hand-written reference they
    follow, is kept in the same style: a generator that skipped the formatter, or a hand edit, shows here."""
    done = subprocess.run([sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "servers"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "already formatted" in done.stdout
