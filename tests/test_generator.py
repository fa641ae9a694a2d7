"""The blueprint compiler: deterministic output, golden templates, seed rules, operation semantics,
and a generated server that runs alone with nothing but `mcp` installed."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from envcraft.generator.compile.compiler import OFFICE, compile_blueprint, render_server, render_shim
from envcraft.generator.compile.extras import extras
from envcraft.generator.model.blueprint import BLUEPRINTS, load_blueprint
from envcraft.generator.model.policy import policy_records
from envcraft.generator.seeds.seed import seed_tables, state_json
from envcraft.registry.catalog import Environment, discover
from envcraft.registry.launch import load_server_module
from envcraft.registry.manifest import read_manifest
from envcraft.registry.pack import pack
from envcraft_runtime.rules import INACTIVE

from tests.helpers import REPO, inspector

TEST_BLUEPRINTS = REPO / "tests" / "blueprints"
VET = load_blueprint(BLUEPRINTS / "vet_clinic.yaml")
LIBRARY = load_blueprint(TEST_BLUEPRINTS / "tool_library.yaml")  # general
ROOMS = load_blueprint(TEST_BLUEPRINTS / "room_desk.yaml")  # claw_tool
BY_KIND = {"claw_workspace": VET, "claw_tool": ROOMS, "general": LIBRARY}


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def load_app(folder: Path):
    manifest = read_manifest(folder)
    env = Environment(manifest.env.env_id, folder, manifest)
    for name in [m for m in sys.modules if m.startswith(f"envcraft_env_{env.name}")]:
        del sys.modules[name]
    return load_server_module(env).app


# ---------------------------------------------------------------- loading


def test_a_blueprint_is_parsed_once_and_read_again_when_its_file_changes(tmp_path):
    """Loads are cached (the suite reads all 151 blueprints in many modules); an edited file is never stale."""
    path = tmp_path / "vet_clinic.yaml"
    text = (BLUEPRINTS / "vet_clinic.yaml").read_text("utf-8")
    path.write_text(text, "utf-8")
    first = load_blueprint(path)
    assert load_blueprint(path) is first
    path.write_text(text.replace(f"title: {VET.title}", "title: Edited Clinic"), "utf-8")
    assert load_blueprint(path).title == "Edited Clinic"
    assert load_blueprint(BLUEPRINTS / "vet_clinic.yaml") == VET


# ---------------------------------------------------------------- determinism and golden files


def test_same_blueprint_gives_byte_identical_trees(tmp_path):
    first = tree(compile_blueprint(VET, tmp_path / "a" / "vet_clinic"))
    second = tree(compile_blueprint(VET, tmp_path / "b" / "vet_clinic"))
    assert first == second
    assert {"server.py", "app.py", "bin/pawsome", "server.json", "README.md",
            "seed/.app/state.json", "seed/SKILL.md", "seed/data/pets.csv", "seed/docs/clinic_policies.md"} <= set(first)


def test_server_template_renders_the_office_server_exactly():
    instructions = ["You work inside the Northwind Studio office workspace for Alex Morgan. Today is Tuesday 2026-12-01. ",
                    "Start by reading SKILL.md; the team's policies are in docs/handbook.md. ",
                    "Use the mail, calendar, contacts and docs tools (or the `office` CLI in the shell); call finish when done."]
    rendered = render_server("Office workspace MCP server: mail, calendar, contacts and documents of a small team.",
                             instructions, "office", "1.0.0", "office", "full")
    assert rendered == (OFFICE / "server.py").read_text("utf-8")


def test_shim_template_renders_the_office_shim_exactly():
    assert render_shim("office") == (OFFICE / "bin" / "office").read_text("utf-8")


def test_generated_folders_hold_no_copy_of_the_runtime(tmp_path):
    """The runtime lives once (servers/envcraft_runtime); a build holds only what is its own."""
    for bp in BY_KIND.values():
        names = set(tree(compile_blueprint(bp, tmp_path / bp.id)))
        assert {n for n in names if n.endswith(".py")} == {"server.py", "app.py"}, names


def test_installed_vet_clinic_matches_its_blueprint(tmp_path):
    installed = REPO / "servers" / "vet_clinic"
    assert "vet_clinic" in discover()
    assert tree(installed) == tree(compile_blueprint(VET, tmp_path / "vet_clinic")), "run `envcraft generate`"


@pytest.mark.parametrize("bp", BY_KIND.values(), ids=BY_KIND.keys())
def test_manifest_lists_scaffold_and_domain_tools_by_kind(tmp_path, bp):
    folder = compile_blueprint(bp, tmp_path / bp.id)
    meta = read_manifest(folder).env
    assert read_manifest(folder).name == f"io.github.envcraft/{bp.id}"
    assert (meta.env_id, meta.kind, meta.archetypes) == (bp.id, bp.kind, list(bp.archetypes))
    scaffold = [t.name for t in meta.tools if t.layer == "scaffold"]
    expected = {"claw_workspace": 8, "claw_tool": 7, "general": 1}[bp.kind]
    assert len(scaffold) == expected and scaffold[-1] == "finish"
    assert [(t.name, t.writes) for t in meta.tools if t.layer == "domain"] == \
        [(op.name, op.writes) for op in bp.operations] + [(extra.name, extra.writes) for extra in extras(bp)]
    assert meta.cli == (bp.cli if bp.kind == "claw_workspace" else None)
    assert (folder / "bin").exists() == (bp.kind == "claw_workspace")
    assert all(f"`{op.name}`" in (folder / "README.md").read_text() for op in bp.operations)


# ---------------------------------------------------------------- seed


def test_seed_rows_follow_the_blueprint():
    tables = seed_tables(VET)
    assert tables == seed_tables(VET) and state_json(tables) == json.dumps(tables, indent=1, sort_keys=True)
    for entity in VET.entities:
        rows = tables[entity.table]
        assert [r["id"] for r in rows] == [f"{entity.id_prefix}-{i:04d}" for i in range(1, entity.rows + 1)]
        for spec in entity.fields:
            values = [r[spec.name] for r in rows]
            if spec.type == "ref":
                assert set(values) <= {r["id"] for r in tables[VET.entity(spec.ref).table]}
            if spec.type == "enum":
                assert set(values) <= set(spec.values)
            if spec.type in ("int", "float") and spec.min is not None:
                assert all(spec.min <= v <= spec.max and round(v, 2) == v for v in values)
            if spec.unique:
                assert len(set(values)) == len(values)
    statuses = {r["status"] for r in tables["appointments"]}
    assert statuses == {"booked", "checked_in", "completed", "cancelled"}
    for row in tables["appointments"]:
        start, end = (datetime.strptime(row[k], "%Y-%m-%dT%H:%M") for k in ("start", "end"))
        assert 30 <= (end - start).total_seconds() / 60 <= 120 and start.minute in (0, 30)
        assert start.hour >= 9 and (end.hour, end.minute) <= (17, 0)
    active = [r for r in tables["appointments"] if r["status"] not in INACTIVE]
    for a in active:  # the seed never double-books a vet, as the booking precondition counts rows (a finished visit
        # frees its slot: INACTIVE)
        assert not [b for b in active if b is not a and b["vet_id"] == a["vet_id"]
                    and a["start"] < b["end"] and b["start"] < a["end"]]
    for owner in tables["owners"]:
        assert owner["email"].split("@")[0].split(".")[0] == owner["name"].split()[0].lower()


def test_seed_decoys_optional_fields_and_files(tmp_path):
    tables = seed_tables(LIBRARY)
    names = [m["name"] for m in tables["members"]]
    firsts, lasts = [n.split()[0] for n in names], [n.split()[-1] for n in names]
    assert len(set(firsts)) < len(firsts) or len(set(lasts)) < len(lasts), "near-duplicate names expected"
    assert [t["code"] for t in tables["tools"]][:2] == ["T-001", "T-002"]
    assert all(isinstance(t["tags"], list) and t["tags"] for t in tables["tools"])
    folder = compile_blueprint(ROOMS, tmp_path / "room_desk")
    rooms = json.loads((folder / "seed" / "data" / "rooms.json").read_text())
    assert [r["name"] for r in rooms] == ["Heron", "Kingfisher", "Osprey", "Wren"]
    bookings = list(csv.reader(io.StringIO((folder / "seed" / "data" / "bookings.csv").read_text())))
    assert bookings[0] == ["id", "room_id", "title", "booked_by", "starts", "ends", "attendees", "status"]
    assert len(bookings) == 15
    skill = (folder / "seed" / "SKILL.md").read_text()
    assert "Today is **" in skill and "booking_create" in skill and "seats" in skill


# ---------------------------------------------------------------- operation semantics


def test_generated_operations_follow_the_documented_semantics(tmp_path):
    app = load_app(compile_blueprint(LIBRARY, tmp_path / "tool_library"))
    tables = seed_tables(LIBRARY)
    failure = app.ToolFailure
    tool = next(t for t in tables["tools"] if t["copies"] >= 2)
    member = next(m for m in tables["members"] if m["active"])
    for loan in tables["loans"]:
        loan["status"] = "returned"  # nobody has anything out: the capacity rule cannot fire by accident
    # search: case-insensitive substring on text, exact otherwise, id order, limit
    found = app.tool_search(tables, name=tool["name"].upper())
    assert tool["id"] in [t.id for t in found] and [t.id for t in found] == sorted(t.id for t in found)
    assert len(app.tool_search(tables, limit=3)) == 3
    assert {m.active for m in app.member_search(tables, active=True)} == {True}
    with pytest.raises(failure, match="tool_search"):
        app.tool_get(tables, "tol-0999")
    # create: validation, precondition, effect, id from next_id, optional fields null
    with pytest.raises(failure, match="out of range"):
        app.loan_open(tables, member["id"], tool["id"], 5, "2026-12-02", "2026-12-05")
    with pytest.raises(failure, match="today or later"):
        app.loan_open(tables, member["id"], tool["id"], 1, "2026-11-02", "2026-11-05")
    with pytest.raises(failure, match="not after"):
        app.loan_open(tables, member["id"], tool["id"], 1, "2026-12-05", "2026-12-02")
    copies = tool["copies"]
    loan = app.loan_open(tables, member["id"], tool["id"], 2, "2026-12-02", "2026-12-05")
    assert (loan.id, loan.status, loan.note) == (f"lon-{len(tables['loans']):04d}", "out", None)
    assert tool["copies"] == copies - 2
    # transition: status rule and effects (adjust back, set a literal)
    assert app.loan_return(tables, loan.id).status == "returned" and tool["copies"] == copies
    with pytest.raises(failure, match="only loans that are out"):
        app.loan_return(tables, loan.id)
    # at_least and capacity
    tool["copies"] = 1
    with pytest.raises(failure, match="not enough copies"):
        app.loan_open(tables, member["id"], tool["id"], 2, "2026-12-02", "2026-12-05")
    tables["members"][tables["members"].index(member)]["max_loans"] = 1
    app.loan_open(tables, member["id"], tool["id"], 1, "2026-12-02", "2026-12-05")
    with pytest.raises(failure, match="loan limit"):
        app.loan_open(tables, member["id"], tool["id"], 1, "2026-12-02", "2026-12-05")
    # update: at least one field, unique fields unique, bool field_equals
    with pytest.raises(failure, match="nothing to change"):
        app.member_update(tables, member["id"])
    other = next(m for m in tables["members"] if m is not member)
    with pytest.raises(failure, match="already used"):
        app.member_update(tables, member["id"], email=other["email"])
    assert app.member_update(tables, member["id"], max_loans=3).max_loans == 3
    # unique precondition with its own message, a runtime-reserved field name as a parameter
    with pytest.raises(failure, match="tool code is taken"):
        app.tool_add(tables, "Ladder", "T-001", "Annex", 1)
    added = app.tool_add(tables, "Ladder", "T-900", store_="Annex", copies=1)
    assert (added.store, added.tags, added.deposit) == ("Annex", [], None)
    # delete: status rule, row removed and returned
    with pytest.raises(failure, match="only returned"):
        app.loan_delete(tables, f"lon-{len(tables['loans']):04d}")
    gone = app.loan_delete(tables, "lon-0001")
    assert gone.id == "lon-0001" and "lon-0001" not in [r["id"] for r in tables["loans"]]


def test_no_overlap_and_not_in_past_on_times(tmp_path):
    app = load_app(compile_blueprint(ROOMS, tmp_path / "room_desk"))
    tables = seed_tables(ROOMS)
    room = max(tables["rooms"], key=lambda r: r["seats"])
    made = app.booking_create(tables, room["id"], "Kickoff", "a@b.co", "2026-12-20T10:00", "2026-12-20T11:00", 2)
    with pytest.raises(app.ToolFailure, match="room is taken"):
        app.booking_create(tables, room["id"], "Clash", "a@b.co", "2026-12-20T10:30", "2026-12-20T12:00", 2)
    app.booking_create(tables, room["id"], "Back to back", "a@b.co", "2026-12-20T11:00", "2026-12-20T12:00", 2)
    with pytest.raises(app.ToolFailure, match="YYYY-MM-DDTHH:MM"):
        app.booking_create(tables, room["id"], "Bad", "a@b.co", "2026-12-20 10:00", "2026-12-20T11:00", 2)
    with pytest.raises(app.ToolFailure, match="email"):
        app.booking_create(tables, room["id"], "Bad", "nobody", "2026-12-21T10:00", "2026-12-21T11:00", 2)
    room["seats"] = 3
    with pytest.raises(app.ToolFailure, match="too few seats"):
        app.booking_create(tables, room["id"], "Big", "a@b.co", "2026-12-21T10:00", "2026-12-21T11:00", 4)
    app.booking_cancel(tables, made.id)  # a cancelled booking frees its slot
    app.booking_create(tables, room["id"], "Retry", "a@b.co", "2026-12-20T10:00", "2026-12-20T11:00", 2)


def test_generated_cli_prints_json(tmp_path):
    folder = REPO / "servers" / "vet_clinic"  # its shim finds the runtime beside it, in servers/
    workspace = tmp_path / "ws"
    shutil.copytree(folder / "seed", workspace)
    env = {"PATH": os.environ["PATH"], "ENVCRAFT_WORKSPACE": str(workspace)}
    ran = subprocess.run([str(folder / "bin" / "pawsome"), "vet-list", "--specialty", "exotics"], env=env,
                         capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    page = json.loads(ran.stdout)
    assert [v["name"] for v in page["results"]] == ["Dr. Chloe Lam"] and page["note"] == "all 1 shown"


# ---------------------------------------------------------------- standalone: only mcp installed


@pytest.fixture(scope="module")
def bare_venv(tmp_path_factory):
    """A virtualenv with nothing but mcp==2.3.0 (skipped only when no package index is reachable)."""
    root = tmp_path_factory.mktemp("standalone")
    subprocess.run([sys.executable, "-m", "venv", str(root / "venv")], check=True, timeout=300)
    python = root / "venv" / "bin" / "python"
    pip = subprocess.run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q", "mcp==2.3.0"],
                         capture_output=True, text=True, timeout=900)
    if pip.returncode != 0:
        offline = ("Could not find a version", "No matching distribution", "NewConnectionError", "Network is unreachable",
                   "Temporary failure in name resolution", "Max retries exceeded", "ConnectTimeout", "ProxyError")
        if any(marker in pip.stdout + pip.stderr for marker in offline):
            pytest.skip(f"pip cannot reach a package index to install mcp==2.3.0: {pip.stderr.strip()[-300:]}")
        pytest.fail(f"pip install mcp==2.3.0 failed: {pip.stderr[-2000:]}")
    return root, python


@pytest.mark.slow
@pytest.mark.parametrize("kind", BY_KIND.keys())
def test_generated_server_runs_alone_with_only_mcp(bare_venv, tmp_path, kind):
    _, python = bare_venv
    bp = BY_KIND[kind]
    build = compile_blueprint(bp, tmp_path / "build" / bp.id)
    alone = pack(Environment(bp.id, build, read_manifest(build)), tmp_path / "alone" / bp.id)
    workspace = tmp_path / "workspace"
    shutil.copytree(alone / "seed", workspace)
    listed = inspector(str(python), str(alone / "server.py"), "--workspace", str(workspace), "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    names = [tool["name"] for tool in json.loads(listed.stdout)["tools"]]
    assert names == [t.name for t in read_manifest(alone).env.tools]
    if "read_policies" in names:  # the rules come from the policies.json the pack carries beside app.py
        called = inspector(str(python), str(alone / "server.py"), "--workspace", str(workspace), "--method",
                           "tools/call", "--tool-name", "read_policies")
        assert called.returncode == 0, called.stderr
        assert json.loads(called.stdout)["structuredContent"]["result"] == policy_records(bp)


@pytest.mark.slow
def test_packed_workspace_shell_runs_its_cli_with_only_mcp(bare_venv, tmp_path):
    """The shell's CLI verbs in a packed folder use the vendored runtime, with nothing but mcp installed."""
    _, python = bare_venv
    build = compile_blueprint(VET, tmp_path / "build" / VET.id)
    alone = pack(Environment(VET.id, build, read_manifest(build)), tmp_path / "alone" / VET.id)
    workspace = tmp_path / "workspace"
    shutil.copytree(alone / "seed", workspace)
    called = inspector(str(python), str(alone / "server.py"), "--workspace", str(workspace), "--method", "tools/call",
                       "--tool-name", "run_shell", "--tool-arg", "command=pawsome vet-list --specialty exotics")
    assert called.returncode == 0, called.stderr
    text = json.loads(called.stdout)["content"][0]["text"]
    assert "exit code: 0" in text and "Dr. Chloe Lam" in text, text
