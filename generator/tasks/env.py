"""An environment compiled from a blueprint, as the task engine sees it.

The blueprint says what the operations mean; the compiled folder (servers/<id>/) holds the code
that runs them. The engine executes chains by calling the compiled app functions directly on
copies of the seed tables (`op(tables, **arguments)`), the same code the MCP tools run.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envcraft.generator.compile.appcode import Param, params_of
from envcraft.generator.compile.compiler import MARKER, SCAFFOLD_SETS, scaffold_of, shell_cli
from envcraft.generator.model.blueprint import BLUEPRINTS, Blueprint, Entity, FieldSpec, Operation, load_blueprint
from envcraft.generator.seeds.seed import INACTIVE, guess_gen, time_pairs

Tables = dict[str, list[dict[str, Any]]]
SERVERS = Path(__file__).resolve().parents[2] / "servers"
# Semantic kinds of values that travel between environments (workflow.py) and make good descriptions.
SEMANTIC_GENS = ("person_name", "company", "product", "city", "country", "street", "phone", "job_title", "department")


@dataclass
class EnvSpec:
    name: str
    bp: Blueprint
    folder: Path
    app: types.ModuleType
    seed_json: str
    seed_files: dict[str, str]
    ops: dict[str, Operation] = field(default_factory=dict)
    params: dict[str, list[Param]] = field(default_factory=dict)
    _seed: Tables | None = None

    @property
    def kind(self) -> str:
        return self.bp.kind

    @property
    def cli(self) -> str | None:
        return shell_cli(self.bp)

    @property
    def scaffold(self) -> tuple[str, ...]:
        return SCAFFOLD_SETS[scaffold_of(self.bp)]

    def fn(self, op_name: str):
        return getattr(self.app, op_name)

    def entity(self, name: str) -> Entity:
        return self.bp.entity(name)

    def entity_of_table(self, table: str) -> Entity | None:
        return next((e for e in self.bp.entities if e.table == table), None)

    def seed_tables(self) -> Tables:
        """A fresh copy of the seed tables (rows are flat: a shallow copy per row is a deep copy)."""
        if self._seed is None:
            self._seed = json.loads(self.seed_json)
        return {table: [copy_row(row) for row in rows] for table, rows in self._seed.items()}

    def exports(self) -> dict[str, str]:
        """entity name -> workspace path of its export file (first one)."""
        found: dict[str, str] = {}
        for file in self.bp.files:
            if file.export and file.export not in found:
                found[file.export] = file.path
        return found

    def pairs(self, entity: Entity) -> dict[str, str]:
        return time_pairs(self.bp, entity)


def copy_row(row: dict[str, Any]) -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, list) else v) for k, v in row.items()}


def copy_tables(tables: Tables) -> Tables:
    return {table: [copy_row(row) for row in rows] for table, rows in tables.items()}


def is_active(entity: Entity, row: dict[str, Any]) -> bool:
    return not entity.status_field or row.get(entity.status_field) not in INACTIVE


def semantic_kind(entity: Entity, spec: FieldSpec) -> str | None:
    """What kind of real-world value a field holds: email, person_name, company, date, ... or None."""
    if spec.type == "email" or spec.gen == "email":
        return "email"
    if spec.type in ("date", "datetime"):
        return spec.type
    if spec.type != "str" or spec.template:
        return None
    gen = guess_gen(entity, spec)
    if spec.values and not spec.gen and gen not in ("person_name", "company", "product", "city"):
        return None
    return gen if gen in SEMANTIC_GENS else None


def label_field(entity: Entity) -> str | None:
    """The field a person would name a row by (name, title, code...), if any."""
    names = [f.name for f in entity.fields]
    for preferred in ("name", "full_name", "title", "display_name", "subject", "code", "number"):
        if preferred in names and entity.field(preferred).type in ("str", "email"):
            return preferred
    for spec in entity.fields:
        if spec.type == "str" and (spec.name.endswith(("_name", "_number", "_code", "_title")) or spec.unique):
            return spec.name
    return None


def _package(name: str, folder: Path) -> str:
    digest = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:8]
    return f"envcraft_tasks_{name}_{digest}"


def import_app(name: str, folder: Path) -> types.ModuleType:
    """Import <folder>/app.py as a package module (it imports envcraft_runtime)."""
    package = _package(name, folder)
    if package not in sys.modules:
        module = types.ModuleType(package)
        module.__path__ = [str(folder)]
        sys.modules[package] = module
    return importlib.import_module(f"{package}.app")


def read_seed_files(seed: Path) -> dict[str, str]:
    files = {}
    for path in sorted(seed.rglob("*")):
        rel = path.relative_to(seed)
        if rel.parts[0] == ".app" or not path.is_file() or path.is_symlink():
            continue
        files[rel.as_posix()] = path.read_bytes().decode("utf-8", "replace")
    return files


def is_generated(folder: Path) -> str | None:
    """The env id of a compiled-from-blueprint folder, else None (e.g. the hand-written office)."""
    app, manifest = folder / "app.py", folder / "server.json"
    if not (app.exists() and manifest.exists()) or MARKER not in app.read_text("utf-8", errors="replace"):
        return None
    meta = json.loads(manifest.read_text("utf-8")).get("_meta", {}).get("io.github.envcraft/environment", {})
    env_id = meta.get("envId")
    return env_id if env_id and (BLUEPRINTS / f"{env_id}.yaml").exists() else None


def load_env(folder: Path, blueprint: Blueprint | None = None) -> EnvSpec:
    folder = Path(folder).resolve()
    name = is_generated(folder) if blueprint is None else blueprint.id
    if name is None:
        raise ValueError(f"{folder} is not an environment compiled from a blueprint")
    bp = blueprint or load_blueprint(BLUEPRINTS / f"{name}.yaml")
    app = import_app(name, folder)
    missing = [op.name for op in bp.operations if not callable(getattr(app, op.name, None))]
    if missing:
        raise ValueError(f"{name}: app.py lacks {', '.join(missing)}: recompile it from its blueprint")
    seed = folder / "seed"
    spec = EnvSpec(name=name, bp=bp, folder=folder, app=app, seed_json=(seed / ".app" / "state.json").read_text("utf-8"),
                   seed_files=read_seed_files(seed))
    spec.ops = {op.name: op for op in bp.operations}
    spec.params = {op.name: params_of(bp, op) for op in bp.operations}
    return spec


def generated_envs(root: Path = SERVERS, stale: list[str] | None = None) -> dict[str, Path]:
    """env id -> folder, for every folder of `root` compiled from its current blueprint (a build whose
    manifest no longer matches the blueprint is left out and named in `stale`)."""
    from envcraft.generator.compile.compiler import manifest as render_manifest

    found = {}
    for manifest in sorted(Path(root).glob("*/server.json")):
        env_id = is_generated(manifest.parent)
        if not env_id:
            continue
        try:
            current = render_manifest(load_blueprint(BLUEPRINTS / f"{env_id}.yaml"))
            fresh = json.loads(manifest.read_text("utf-8")) == json.loads(json.dumps(current))
        except Exception:  # noqa: BLE001 - an unreadable blueprint or manifest: not usable
            fresh = False
        if fresh:
            found[env_id] = manifest.parent
        elif stale is not None:
            stale.append(env_id)
    return found


class EnvCache:
    """EnvSpecs loaded on first use (workers load only what their tasks touch)."""

    def __init__(self, folders: dict[str, Path]):
        self.folders = dict(folders)
        self._loaded: dict[str, EnvSpec] = {}

    def __getitem__(self, name: str) -> EnvSpec:
        if name not in self._loaded:
            self._loaded[name] = load_env(self.folders[name])
        return self._loaded[name]

    def __contains__(self, name: str) -> bool:
        return name in self.folders

    @property
    def names(self) -> list[str]:
        return sorted(self.folders)
