"""The import graph of our packages: no cycle between modules or between packages, layers point one way,
and no module imports another module's private names.

Every import counts, including those inside functions: a lazy import hides a cycle, it does not break it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

REPO = Path(__file__).resolve().parent.parent
# Folder -> import name (pyproject's package-dir mapping; envcraft/core is where its name says).
PACKAGES = {"envcraft": "envcraft", "envcraft/core": "envcraft.core", "benchmarks": "envcraft.benchmarks",
            "registry": "envcraft.registry",
            "harness": "envcraft.harness", "generator": "envcraft.generator",
            "servers/envcraft_runtime": "envcraft_runtime"}
# What each package may import besides itself: dependencies point one way, the CLI on top.
# envcraft_runtime (the servers' runtime, stdlib only) sits below everything and imports none of ours.
ALLOWED = {
    "envcraft_runtime": set(),
    "envcraft.core": set(),
    "envcraft.benchmarks": {"envcraft.core"},  # foreign benchmarks: their tasks, episodes and graders
    "envcraft.registry": {"envcraft.core", "envcraft.benchmarks", "envcraft_runtime"},
    "envcraft.generator": {"envcraft.core", "envcraft.registry", "envcraft_runtime"},
    "envcraft.harness": {"envcraft.core", "envcraft.benchmarks", "envcraft.registry", "envcraft_runtime"},
    "envcraft": {"envcraft.core", "envcraft.benchmarks", "envcraft.registry", "envcraft.generator", "envcraft.harness",
                 "envcraft_runtime"},
}

# The generator's sub-packages by role, in layers from the bottom: a module imports only its own layer and those
# below (besides what the generator may import); llm.py, commands.py and catalog_stats.py, at the generator's top,
# import any. Within a layer the packages may import each other (the blueprint model names the rule kinds, which
# read the model), so long as no modules import each other around a loop (the first test). tools/move_generator.py
# moved the modules into them and filled this list.
GENERATOR_LAYERS: list[tuple[str, ...]] = [("model", "rules"), ("seeds",), ("compile",), ("audit",), ("tasks",)]
GENERATOR_ROLES = [role for layer in GENERATOR_LAYERS for role in layer]
for _rank, _layer in enumerate(GENERATOR_LAYERS):
    for _role in _layer:
        PACKAGES[f"generator/{_role}"] = f"envcraft.generator.{_role}"
        ALLOWED[f"envcraft.generator.{_role}"] = ALLOWED["envcraft.generator"] | {
            f"envcraft.generator.{r}" for below in GENERATOR_LAYERS[: _rank + 1] for r in below if r != _role}
for _above in ("envcraft.generator", "envcraft"):
    ALLOWED[_above] |= {f"envcraft.generator.{r}" for r in GENERATOR_ROLES}


def layer_of(package: str) -> str:
    """The node a package is in the package graph: a generator layer of several roles is one node."""
    for layer in GENERATOR_LAYERS:
        if package in {f"envcraft.generator.{r}" for r in layer}:
            return "envcraft.generator." + "+".join(layer)
    return package


# Sub-packages with a narrow door: who outside each may import it or its modules (a module, or a package's __init__).
# - harness.bench measures the farm for `envcraft bench`: nothing an episode runs depends on it;
# - the runtime's sandboxes are plug-ins chosen by name: only the runtime's front (its __init__ and the MCP adapter,
#   which opens each episode's shell) imports the map; nothing else reaches a sandbox's module.
DOORS = {
    "envcraft.harness.bench": {"envcraft.cli"},
    "envcraft_runtime.sandboxes": {"envcraft_runtime", "envcraft_runtime.mcp_adapter"},
}


def module_files() -> dict[str, Path]:
    modules = {}
    for folder, name in PACKAGES.items():
        for path in sorted((REPO / folder).rglob("*.py")):
            parts = list(path.relative_to(REPO / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join([name, *parts])] = path
    return modules


def imports_of(module: str, path: Path, known: dict[str, Path]) -> list[tuple[str, list[str]]]:
    """(imported module, names taken from it) for every import statement in the file, at any depth."""
    is_package = path.name == "__init__.py"
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")[: len(module.split(".")) - node.level + is_package]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.append((sub, []) if sub in known else (base, [alias.name]))
    return [(target, names) for target, names in found if target.split(".")[0] in ("envcraft", "envcraft_runtime")]


def graph() -> tuple[nx.DiGraph, list[str]]:
    known = module_files()
    g = nx.DiGraph()
    g.add_nodes_from(known)
    private = []
    for module, path in known.items():
        for target, names in imports_of(module, path, known):
            assert target in known, f"{module} imports {target}, which is not one of our modules"
            if target != module:
                g.add_edge(module, target)
            private += [f"{module} imports {target}.{n}" for n in names if n.startswith("_") and not n.startswith("__")]
    return g, private


def package_of(module: str) -> str:
    for name in sorted(PACKAGES.values(), key=len, reverse=True):
        if module == name or module.startswith(name + "."):
            return name
    raise AssertionError(module)


def test_no_import_cycle_between_modules():
    g, _ = graph()
    cycles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    assert not cycles, f"modules importing each other (directly or around a loop): {cycles}"


def test_packages_import_each_other_one_way_only():
    g, _ = graph()
    wrong = sorted({f"{a} -> {b}" for a, b in g.edges
                    if package_of(a) != package_of(b) and package_of(b) not in ALLOWED[package_of(a)]})
    assert not wrong, f"imports against the layering (core < registry < generator, harness < cli): {wrong}"
    packages = nx.DiGraph((layer_of(package_of(a)), layer_of(package_of(b))) for a, b in g.edges
                          if layer_of(package_of(a)) != layer_of(package_of(b)))
    assert nx.is_directed_acyclic_graph(packages)


def test_sub_packages_are_imported_only_through_their_door():
    g, _ = graph()
    wrong = sorted(f"{a} -> {b}" for a, b in g.edges for door, allowed in DOORS.items()
                   if (b == door or b.startswith(door + ".")) and not (a == door or a.startswith(door + "."))
                   and a not in allowed)
    assert not wrong, f"imports past a sub-package's door: {wrong}"


@pytest.mark.slow
def test_no_module_imports_another_modules_private_names():
    _, private = graph()
    assert not private, f"reaching into another module's internals: {private}"


def test_the_graph_sees_lazy_imports():
    """The walk must find imports inside functions, or a lazy import would hide a cycle from the tests above."""
    g, _ = graph()
    assert g.has_edge("envcraft.cli", "envcraft.registry.catalog")  # cli imports it inside _list only
