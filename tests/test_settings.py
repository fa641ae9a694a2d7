"""Settings: one typed model read from the environment in one place, passed to servers without writing the
environment, every variable in the README's table; --sandbox and --launcher mean what they say."""

from __future__ import annotations

import ast
import os
import re
import shutil

import pytest
from envcraft.registry.catalog import get
from envcraft.registry.launch import LAUNCHERS, InProcessLauncher, StdioLauncher, launch
from envcraft.registry.settings import Settings, variables
from envcraft.registry.workspaces import WorkspaceRoot
from envcraft_runtime import settings as runtime_settings
from envcraft_runtime.settings import RuntimeSettings

from envcraft.cli import main
from tests.helpers import REPO

SOURCES = ["envcraft", "registry", "harness", "generator", "benchmarks", "servers/envcraft_runtime"]  # envcraft/core too
# The modules that read the process environment for ENVCRAFT_* variables: the host's settings, the runtime's
# settings, and the environment's CLI inside a sandboxed command (its channels from the server, not settings).
READERS = {"registry/settings.py", "servers/envcraft_runtime/settings.py", "servers/envcraft_runtime/cli.py"}


def sources():
    for folder in SOURCES:
        yield from sorted((REPO / folder).rglob("*.py"))


def environ_writes(tree: ast.AST) -> list[int]:
    """Lines that write this process's environment: os.environ[...] = / del, .update/.setdefault/.pop, putenv."""
    found = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else node.targets if isinstance(node, ast.Delete) else []
        for target in targets:
            if isinstance(target, ast.Subscript) and ast.unparse(target.value) == "os.environ":
                found.append(node.lineno)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner, verb = ast.unparse(node.func.value), node.func.attr
            if (owner == "os.environ" and verb in ("update", "setdefault", "pop", "clear")) or \
                    (owner == "os" and verb in ("putenv", "unsetenv")):
                found.append(node.lineno)
    return found


def test_no_code_writes_the_environment_to_carry_a_setting():
    """Ray's own switch (set before Ray is imported, for Ray) is the one write, and it carries none of ours."""
    writes = {}
    for path in sources():
        text = path.read_text("utf-8")
        lines = text.splitlines()
        for line in environ_writes(ast.parse(text)):
            if "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER" not in lines[line - 1]:
                writes[f"{path.relative_to(REPO)}:{line}"] = lines[line - 1].strip()
    assert writes == {}


def test_the_environment_is_read_for_our_variables_in_the_settings_modules_only():
    readers = set()
    for path in sources():
        for line in path.read_text("utf-8").splitlines():
            if re.search(r"environ(\.get)?\s*[\[(]\s*[\"']ENVCRAFT_|getenv\(\s*[\"']ENVCRAFT_", line):
                readers.add(str(path.relative_to(REPO)))
    # the verl adapter reads the token from the variable its trainer config names (a secret, named by the user)
    assert readers - READERS <= {"harness/adapters/verl_tool.py"}, readers - READERS


def test_every_variable_the_code_names_is_in_the_settings_and_the_readme_table():
    named = set()
    for path in sources():
        named |= set(re.findall(r"ENVCRAFT_[A-Z][A-Z_]*[A-Z]", path.read_text("utf-8")))
    documented = variables()
    assert named <= set(documented), sorted(named - set(documented))
    readme = (REPO / "README.md").read_text("utf-8")
    table = dict(re.findall(r"^\| `(ENVCRAFT_[A-Z_]+)` \| (.+?) \|$", readme, re.M))
    assert set(table) == set(documented), (sorted(set(documented) - set(table)), sorted(set(table) - set(documented)))


def test_settings_are_the_defaults_overridden_by_the_environment_then_by_options():
    assert Settings.from_env({}) == Settings()
    given = Settings.from_env({"ENVCRAFT_MODEL": "m", "ENVCRAFT_SANDBOX": "process", "ENVCRAFT_GC_THRESHOLD": "0",
                               "ENVCRAFT_SCHEMA_CACHE": "0", "ENVCRAFT_CGROUPS": "off"}, model="cli", base_url=None)
    assert (given.model, given.rewrite_model, given.gc_threshold, given.schema_cache) == ("cli", "m", 0, False)
    assert given.runtime == RuntimeSettings(sandbox="process", cgroups=False)
    assert RuntimeSettings.from_environ(given.runtime.to_environ()) == given.runtime  # what a child process reads
    with pytest.raises(ValueError, match=r"docker launcher.*ENVCRAFT_SANDBOX='docker'"):
        Settings.from_env({"ENVCRAFT_SANDBOX": "docker"})
    with pytest.raises(ValueError, match="workspace_mb"):
        Settings.from_env({"ENVCRAFT_WORKSPACE_MB": "-1"})


async def shell_home(launcher, tmp_path) -> str:
    env = get("office")
    with WorkspaceRoot(tmp_path) as root:
        async with launch(env, launcher, root) as instance:
            done = await instance.client.call_tool("run_shell", {"command": "pwd"})
            return done.content[0].text


@pytest.mark.slow
@pytest.mark.anyio
@pytest.mark.parametrize("launcher", ["inprocess", "stdio"])
async def test_the_sandbox_setting_reaches_the_servers_of_each_launcher_without_the_environment(launcher, tmp_path):
    """Under bwrap a command's working folder is /workspace; as a plain process it is the workspace's host path."""
    before, previous = dict(os.environ), runtime_settings.configured()
    make = {"inprocess": InProcessLauncher, "stdio": StdioLauncher}[launcher]
    try:
        plain = await shell_home(make(Settings.from_env().with_runtime(sandbox="process")), tmp_path / "p")
        assert str(tmp_path / "p") in plain, plain
        if shutil.which("bwrap"):
            contained = await shell_home(make(Settings.from_env().with_runtime(sandbox="bwrap")), tmp_path / "b")
            assert "/workspace" in contained and str(tmp_path) not in contained, contained
    finally:
        runtime_settings.configure(previous)
    assert dict(os.environ) == before  # nothing was written to carry the choice


@pytest.mark.parametrize(("options", "says"), [
    (["--sandbox", "docker"], "pass --launcher docker"),
    (["--launcher", "process"], "pass them as --sandbox"),
    (["--launcher", "docker", "--sandbox", "bwrap"], "drop --sandbox bwrap"),
])
def test_sandbox_and_launcher_mean_what_they_say(options, says, capsys, tmp_path):
    assert main(["run", "--env", "office", "--agent", "gold", "--out", str(tmp_path), *options]) == 2
    assert says in capsys.readouterr().err
    assert not (tmp_path / "run.json").exists()  # refused before any work


def test_launchers_are_chosen_from_one_map_and_each_acquires_its_instances():
    assert set(LAUNCHERS) == {"inprocess", "stdio", "docker"}
    for make in (InProcessLauncher, StdioLauncher):
        assert callable(make().acquire)
