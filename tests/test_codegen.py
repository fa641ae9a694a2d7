"""How app.py is written: it imports the helpers it calls from the one runtime (and defines none), a
blueprint name can never hide one of them, and every app of the catalog stays small and clean."""

from __future__ import annotations

import ast
import inspect
import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from envcraft.generator.compile.appcode import BlueprintError
from envcraft.generator.compile.appfile import render_app
from envcraft.generator.compile.compiler import compile_blueprint
from envcraft.generator.compile.helper_calls import HELPERS
from envcraft.generator.model.blueprint import Blueprint, load_all, load_blueprint
from envcraft.generator.seeds.seed import seed_tables
from envcraft.registry.catalog import Environment
from envcraft.registry.launch import load_server_module
from envcraft.registry.manifest import read_manifest
from envcraft_runtime.cli import load_app

from tests.helpers import REPO

LIBRARY_YAML = REPO / "tests" / "blueprints" / "tool_library.yaml"
SERVERS = REPO / "servers"


def library(**renames: str) -> Blueprint:
    """tool_library with loan fields or operations renamed (old name -> new name)."""
    data = yaml.safe_load(LIBRARY_YAML.read_text("utf-8"))
    for entity in data["entities"]:
        for spec in entity["fields"]:
            spec["name"] = renames.get(spec["name"], spec["name"])
    for op in data["operations"]:
        op["name"] = renames.get(op["name"], op["name"])
        for key in ("params", "required"):
            op[key] = [renames.get(name, name) for name in op.get(key, [])]
    return Blueprint.model_validate(data)


def test_two_builds_of_one_environment_in_one_process_each_load_their_own_folder(tmp_path):
    """A build loaded earlier under the same name (another folder: a staging build, another test's) does not stand in
    for this one: it did, so this file failed when run after tests/test_generator.py in one process."""
    plain, renamed = library(), library(note="in_past")
    first = compile_blueprint(plain, tmp_path / "first" / plain.id)
    second = compile_blueprint(renamed, tmp_path / "second" / renamed.id)
    before = load_server_module(Environment(plain.id, first, read_manifest(first))).app
    after = load_server_module(Environment(renamed.id, second, read_manifest(second))).app
    assert (Path(before.__file__).parent, Path(after.__file__).parent) == (first, second)
    assert "in_past_" in inspect.signature(after.loan_open).parameters


def test_a_field_named_like_a_helper_gets_its_own_parameter_name(tmp_path):
    """loan_open calls the runtime's in_past (its start must not be in the past): a parameter named
    `in_past` would hide that function inside loan_open, so the field's parameter is `in_past_`."""
    bp = library(note="in_past")
    folder = compile_blueprint(bp, tmp_path / bp.id)
    app = load_server_module(Environment(bp.id, folder, read_manifest(folder))).app
    assert "in_past_" in inspect.signature(app.loan_open).parameters
    tables = seed_tables(bp)
    member = next(m for m in tables["members"] if m["active"])
    tool = max(tables["tools"], key=lambda t: t["copies"])
    tables["loans"] = []
    loan = app.loan_open(tables, member["id"], tool["id"], 1, "2026-12-02", "2026-12-05", in_past_="left at the desk")
    assert loan.in_past == "left at the desk"
    with pytest.raises(app.ToolFailure, match="a loan starts today or later"):
        app.loan_open(tables, member["id"], tool["id"], 1, "2026-11-02", "2026-12-05")


def test_an_operation_named_like_a_helper_is_refused():
    with pytest.raises(BlueprintError, match="refuse: the runtime helper of that name would be hidden"):
        render_app(library(loan_delete="refuse"))


def apps() -> list[tuple[str, ast.Module]]:
    return [(path.parent.name, ast.parse(path.read_text("utf-8"))) for path in sorted(SERVERS.glob("*/app.py"))
            if path.parent.name != "office"]


@pytest.mark.slow
def test_every_generated_app_imports_only_what_it_uses_and_copies_no_helper():
    found = apps()
    assert len(found) >= 150
    for env, tree in found:
        private = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name.startswith("_")]
        assert not private, f"{env}/app.py defines helpers {private}: they belong in envcraft_runtime"
        imported = [a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) and n.module != "__future__"
                    for a in n.names]
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        assert not [name for name in imported if name not in used], f"{env}/app.py imports names it never uses"


@pytest.mark.slow
def test_every_operation_finds_rows_through_one_declaration_per_entity():
    """A table, how a row is named and how to find ids are spelled once per app (a `Rows` constant): an
    operation finds its row, or checks an id argument, in one line."""
    for env, tree in apps():
        calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        assert not calls & {"find_row", "check_ref"}, f"{env}/app.py spells out a look-up: use its Rows constant"
        declared = [n.targets[0].id for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
                    and getattr(n.value.func, "id", "") == "Rows"]
        assert len(set(declared)) == len(declared)
        used = {n.value.id for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
        assert set(declared) <= used, f"{env}/app.py declares Rows it never uses: {set(declared) - used}"
        lookups = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                   and n.func.attr in ("find", "check_ref") and getattr(n.func.value, "id", "") in declared]
        assert all(n.lineno == n.end_lineno for n in lookups), f"{env}/app.py has a look-up over several lines"
    assert sum(1 for _ in apps()) >= 150


@pytest.fixture(scope="module")
def rendered() -> list[tuple[Blueprint, str]]:
    """app.py as the generator writes it now, for every eighth blueprint of the catalog."""
    return [(bp, render_app(bp)) for bp in load_all()[::8]]


def test_an_app_says_it_is_generated_and_from_what_and_leaves_the_derived_tools_to_the_runtime(rendered):
    """The header names the blueprint (a file that exists); the module defines the blueprint's operations and
    nothing the runtime makes from tools.json (read_policies, reports, batches, list_changes, descriptions)."""
    for bp, source in rendered:
        header = source.splitlines()[0]
        assert header.startswith(f"# Generated by generator/compile/compiler.py from generator/blueprints/{bp.id}.yaml: "
                                 "change the blueprint"), header
        assert (REPO / "generator" / "blueprints" / f"{bp.id}.yaml").exists()
        tree = ast.parse(source)
        functions = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
        assert sorted(functions) == sorted(op.name for op in bp.operations), bp.id
        names = {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        assert not names & {"PARAMETERS", "POLICIES", "OPERATION_NAMES"}, bp.id
        last = tree.body[-1]
        assert isinstance(last, ast.Assign) and last.targets[0].id == "OPERATIONS"
        assert last.value.func.id == "app_operations"
    marked = subprocess.run(["git", "check-attr", "linguist-generated", "servers/vet_clinic/app.py",
                             "servers/vet_clinic/tools.json", "servers/office/app.py"], cwd=REPO, capture_output=True,
                            text=True, check=True).stdout.split("\n")
    assert [line.rsplit(": ", 1)[-1] for line in marked[:3]] == ["true", "true", "false"]


def test_a_write_builds_the_row_as_it_would_be_only_when_a_check_reads_it(rendered):
    """`_new = {**_row, ...}` is built only for a rule or effect that reads it; otherwise fields are assigned."""
    built = assigned = 0
    for bp, source in rendered:
        for fn in (n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)):
            new = [n for n in ast.walk(fn) if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "_new"
                   and isinstance(n.value, ast.Dict) and None in n.value.keys]  # {**_row, ...}
            reads = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == "_new"
                     and isinstance(n.ctx, ast.Load)]
            if new:
                built += 1
                assert len(reads) > 1, f"{bp.id}.{fn.name} builds _new only to copy it into _row"
            assigned += any(isinstance(n, ast.Subscript) and getattr(n.value, "id", "") == "_row"
                            for a in ast.walk(fn) if isinstance(a, ast.Assign) for n in a.targets)
    assert assigned > built > 0  # both shapes occur in the sample, direct assignment far more often


def test_a_helper_call_names_every_argument_after_the_value_it_examines(rendered):
    """`aggregate_fails` takes 13 arguments: app.py names them (`not_among(_row, field=..., allowed=..., what=...)`)."""
    tours = load_blueprint(REPO / "generator" / "blueprints" / "guided_tour_departures.yaml")  # has an aggregate
    sources = [source for _, source in rendered] + [render_app(tours)]
    calls = [n for source in sources for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)
             and getattr(n.func, "id", "") in HELPERS and len(n.args) + len(n.keywords) >= 3]
    assert len(calls) > 100
    positional = [ast.unparse(n)[:120] for n in calls if len(n.args) != 1]
    assert not positional, positional[:3]
    assert {k.arg for n in calls if n.func.id == "aggregate_fails" for k in n.keywords} >= {"match", "function", "says"}


def test_an_app_whose_tools_json_is_missing_or_torn_fails_at_import_saying_what_to_do(tmp_path):
    folder = tmp_path / "vet_clinic"
    shutil.copytree(SERVERS / "vet_clinic", folder, ignore=shutil.ignore_patterns("__pycache__", "seed"))
    assert len(load_app(folder).OPERATIONS) > 10  # as installed, it loads
    (folder / "tools.json").write_text(json.dumps({"format": "envcraft.tools/1", "derived": [{"kind": "macro"}],
                                                   "parameters": {}}))
    with pytest.raises(ValueError, match="kind is one of policies, report, batch, history"):
        load_app(folder)
    (folder / "tools.json").unlink()
    with pytest.raises(FileNotFoundError, match="run `envcraft generate`"):
        load_app(folder)
