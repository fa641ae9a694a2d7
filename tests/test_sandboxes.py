"""Sandboxes are plug-ins: one module each under envcraft_runtime/sandboxes/, chosen from one map by name, and
no other part of the runtime switches on a sandbox's name."""

from __future__ import annotations

import ast
import shutil

import pytest
from envcraft_runtime import SANDBOXES, open_shell
from envcraft_runtime import settings as runtime_settings
from envcraft_runtime.shell import Shell

from tests.helpers import REPO

RUNTIME = REPO / "servers" / "envcraft_runtime"


def name_switches() -> list[str]:
    """Comparisons of anything with a sandbox's name, in the runtime (where a plug-in would be a string switch)."""
    found = []
    for path in sorted(RUNTIME.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Compare):
                texts = [c.value for c in ast.walk(node) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
                if set(texts) & set(SANDBOXES):
                    found.append(f"{path.relative_to(RUNTIME)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_each_sandbox_is_a_shell_of_its_own_module_named_as_the_settings_name_it():
    assert set(SANDBOXES) == set(runtime_settings.SANDBOXES)
    for name, make in SANDBOXES.items():
        assert issubclass(make, Shell) and make.name == name
        assert make.__module__ == f"envcraft_runtime.sandboxes.{name}"


def test_no_part_of_the_runtime_switches_on_a_sandbox_name():
    assert name_switches() == []


def test_an_unknown_sandbox_is_refused_with_the_names_to_use(tmp_path):
    with pytest.raises(ValueError, match="use one of bwrap, container, process"):
        open_shell(tmp_path, tmp_path, None, sandbox="docker")


@pytest.mark.parametrize("sandbox", ["process", "bwrap"])
def test_the_shell_runs_in_the_sandbox_it_was_opened_with(sandbox, tmp_path):
    """Under bwrap the workspace is /workspace and the host's paths are out of sight; as a plain process the command
    runs in the workspace's host path. Chosen by the argument, whatever the settings say."""
    if sandbox == "bwrap" and not shutil.which("bwrap"):
        pytest.skip("bwrap is not installed")
    other = "bwrap" if sandbox == "process" else "process"
    shell = open_shell(tmp_path, tmp_path, None, sandbox=sandbox,
                       settings=runtime_settings.RuntimeSettings(sandbox=other))
    try:
        assert type(shell) is SANDBOXES[sandbox]
        done = shell.run(f"pwd; if test -e {tmp_path}; then echo host-visible; fi")
        assert done.exit_code == 0, done
        if sandbox == "bwrap":
            assert done.stdout == "/workspace\n", done
        else:
            assert done.stdout == f"{tmp_path}\nhost-visible\n", done
    finally:
        shell.close()
