"""Each rule kind lives in its own module: outside generator/rules/<kind>.py its name appears as a string only in
the registry (generator/rules/__init__.py). Elsewhere code asks the registry for the kind and uses its hooks,
so a kind is changed in one file and a new one is added as one file.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest
from envcraft.generator.rules import NAMES
from envcraft.generator.rules.registry import kind

REPO = Path(__file__).resolve().parent.parent
CODE = ("envcraft", "core", "benchmarks", "registry", "harness", "generator", "servers/envcraft_runtime")
REGISTRY = REPO / "generator" / "rules" / "__init__.py"
# Other things share some kinds' names: policy categories (capacity, time_window), task shapes (aggregate),
# invariant kinds and a function name (compare). A string is read as one of those where it is assigned to one of
# these names, inside the Invariant model, or compared with an invariant's kind (`inv.kind`).
HOMONYMS = {"POLICY_CATEGORIES", "CATEGORY_TITLES", "category",  # generator/model/blueprint.py, policy.py, a kind's own
            "SHAPES", "REASONING", "shape",  # generator/tasks/generate.py
            "__all__"}  # names a module exports


def _homonyms(tree: ast.AST) -> set[int]:
    """ids of the string constants that name something else than a rule kind."""
    out = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.ClassDef) and node.name == "Invariant") or (isinstance(node, ast.Compare) and any(
                isinstance(n, ast.Attribute) and n.attr == "kind" and isinstance(n.value, ast.Name) and n.value.id == "inv"
                for n in (node.left, *node.comparators))):
            out |= {id(n) for n in ast.walk(node) if isinstance(n, ast.Constant)}
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id in HOMONYMS for t in targets) and node.value is not None:
                out |= {id(n) for n in ast.walk(node.value) if isinstance(n, ast.Constant)}
    return out


@functools.cache
def _strings() -> dict[str, list[tuple[Path, int]]]:
    """Every short string constant in our code -> where it appears (path, line)."""
    out: dict[str, list[tuple[Path, int]]] = {}
    for folder in CODE:
        for path in sorted((REPO / folder).rglob("*.py")):
            tree = ast.parse(path.read_text("utf-8"), str(path))
            homonyms = _homonyms(tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 40 \
                        and id(node) not in homonyms:
                    out.setdefault(node.value, []).append((path, node.lineno))
    return out


def literals(name: str) -> list[str]:
    """`path:line` of every string constant equal to `name` in our code, outside the registry and the kind's
    own module."""
    own = REPO / "generator" / "rules" / f"{name}.py"
    return [f"{path.relative_to(REPO)}:{line}" for path, line in _strings().get(name, []) if path not in (REGISTRY, own)]


@pytest.mark.parametrize("name", NAMES)
def test_a_kind_is_named_only_in_its_module_and_the_registry(name):
    assert literals(name) == [], f"{name} is spelled outside generator/rules/{name}.py: ask the registry instead"


def test_every_kind_has_its_module_and_its_name():
    for name in NAMES:
        assert kind(name).name == name
        assert (REPO / "generator" / "rules" / f"{name}.py").is_file()
