"""pyproject.toml ships every package of the tree: setuptools lists them by hand (`packages`), so a new
sub-package left off the list is missing from the wheel, though every test run from the checkout passes; and a
package-data pattern that matches nothing names files that moved away."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tests.helpers import REPO

SETUPTOOLS = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
DATA_ONLY = ("envcraft.servers", "envcraft.tasks")  # the catalog and the task store: shipped as package data


def folder_of(package: str) -> Path:
    """Where a package's files are: its nearest mapped parent's folder (package-dir), then its own name's parts."""
    mapped = SETUPTOOLS["package-dir"]
    parts = package.split(".")
    for cut in range(len(parts), 0, -1):
        if ".".join(parts[:cut]) in mapped:
            return REPO.joinpath(mapped[".".join(parts[:cut])], *parts[cut:])
    return REPO.joinpath(*parts)


def code_packages() -> set[str]:
    """Every folder holding an __init__.py under a mapped code folder, by its import name (the nearest mapping)."""
    mapped = {Path(folder): package for package, folder in SETUPTOOLS["package-dir"].items() if package not in DATA_ONLY}
    found = set()
    for root in mapped:
        for init in (REPO / root).rglob("__init__.py"):
            where = init.parent.relative_to(REPO)
            base = max((folder for folder in mapped if where.is_relative_to(folder)), key=lambda f: len(f.parts))
            found.add(".".join([mapped[base], *where.relative_to(base).parts]))
    return found


def test_every_package_in_the_tree_is_listed():
    missing = sorted(code_packages() - set(SETUPTOOLS["packages"]))
    assert not missing, f"packages the wheel would leave out: add {missing} to [tool.setuptools] packages"


def test_every_listed_package_is_a_folder_and_every_data_pattern_matches():
    absent = [p for p in SETUPTOOLS["packages"] if not folder_of(p).is_dir()]
    assert not absent, f"listed packages without a folder: {absent}"
    empty = [f"{package}: {pattern}" for package, patterns in SETUPTOOLS["package-data"].items()
             for pattern in patterns if not list(folder_of(package).glob(pattern))]
    assert not empty, f"package-data patterns that match no file (moved?): {empty}"
