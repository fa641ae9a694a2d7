"""The audit gate: generated environments pass; broken ones are rejected with a finding naming the tool."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from envcraft.generator.audit.audit import audit
from envcraft.generator.commands import audit_envs, generate
from envcraft.generator.compile.compiler import compile_blueprint
from envcraft.generator.model.blueprint import BLUEPRINTS, load_blueprint

from tests.helpers import REPO

VET = load_blueprint(BLUEPRINTS / "vet_clinic.yaml")
TEST_BLUEPRINTS = REPO / "tests" / "blueprints"


def errors(report) -> list[tuple[str | None, str]]:
    return [(f.tool, f.message) for f in report.findings if f.severity == "error"]


@pytest.fixture
def vet(tmp_path) -> Path:
    return compile_blueprint(VET, tmp_path / "vet_clinic")


def patch_app(folder: Path, old: str, new: str) -> None:
    app = folder / "app.py"
    text = app.read_text()
    assert old in text, old
    app.write_text(text.replace(old, new, 1))


# ---------------------------------------------------------------- passing environments


def test_installed_vet_clinic_passes():
    report = audit(REPO / "servers" / "vet_clinic")
    assert report.passed, errors(report)
    assert report.env == "vet_clinic" and report.calls > 40
    assert json.loads(report.model_dump_json())["passed"] is True


@pytest.mark.parametrize("name", ["tool_library", "room_desk"])
def test_other_kinds_pass(tmp_path, name):
    bp = load_blueprint(TEST_BLUEPRINTS / f"{name}.yaml")
    report = audit(compile_blueprint(bp, tmp_path / bp.id), bp)
    assert report.passed, errors(report)
    assert not report.findings, report.findings


def test_hand_written_office_gets_the_schema_only_probes():
    report = audit(REPO / "servers" / "office", find=False)
    assert report.passed, errors(report)
    assert any("no blueprint" in f.message for f in report.findings)


# ---------------------------------------------------------------- rejected environments


def test_a_tool_that_raises_a_bare_exception_is_rejected(vet):
    patch_app(vet, '        for _r in tables["owners"]\n', '        for _r in tables["owners"][0]["boom"]\n')
    report = audit(vet, VET)
    assert not report.passed
    assert any(tool == "owner_search" and "crashed" in message for tool, message in errors(report)), errors(report)


def test_a_read_tool_that_writes_is_rejected(vet):
    patch_app(vet, "@read\ndef vet_list(", "@write\ndef vet_list(")
    patch_app(vet, '    check_choice(specialty, field="specialty", choices=VET_SPECIALTY)\n',
              '    check_choice(specialty, field="specialty", choices=VET_SPECIALTY)\n'
              '    tables["vets"][0]["room"] = "Room 9"\n')
    report = audit(vet, VET)
    assert not report.passed
    found = [message for tool, message in errors(report) if tool == "vet_list"]
    assert any("read tool changed .app/state.json" in m for m in found), found
    assert any("readOnlyHint" in m for m in found), found


def test_a_precondition_that_does_not_block_is_rejected(vet):
    patch_app(vet, '    if _block := not_among(_row, field="status", allowed=("booked",), what="appointment"):\n'
                   '        refuse("appointment_cancel.status_in", rule="only booked appointments can be cancelled", '
                   'fact=_block)\n', "")
    report = audit(vet, VET)
    assert not report.passed
    assert any(tool == "appointment_cancel" and "status_in precondition: accepted" in message
               for tool, message in errors(report)), errors(report)


def test_an_unvalidated_argument_that_crashes_is_rejected(vet):
    patch_app(vet, '    check_time(start, "start")\n', "    __import__('datetime').datetime.strptime(start, '%Y-%m-%dT%H:%M')\n")
    patch_app(vet, '    check_time(end, "end")\n', "")
    report = audit(vet, VET)
    assert not report.passed
    assert any(tool == "appointment_book" for tool, _ in errors(report)), errors(report)


@pytest.mark.slow
def test_a_hanging_tool_is_reported_without_holding_the_audit(vet):
    patch_app(vet, '    check_choice(specialty, field="specialty", choices=VET_SPECIALTY)\n',
              '    __import__("time").sleep(20)\n')
    report = audit(vet, VET, call_timeout=1.0, total_timeout=30.0)
    assert not report.passed and report.seconds < 15
    assert any(tool == "vet_list" and "hung" in message for tool, message in errors(report)), errors(report)


def test_static_problems_are_rejected(vet):
    manifest = json.loads((vet / "server.json").read_text())
    tools = manifest["_meta"]["io.github.envcraft/environment"]["tools"]
    tools[:] = [t for t in tools if t["name"] != "invoice_send"]
    (vet / "server.json").write_text(json.dumps(manifest))
    report = audit(vet, VET)
    assert ("invoice_send", "served but not listed in server.json") in errors(report)
    (vet / "app.py").write_text("def broken(:\n")
    report = audit(vet, VET)
    assert not report.passed and any("app.py does not parse" in message for _, message in errors(report))
    (vet / "server.json").write_text("{}")
    assert any("server.json does not validate" in message for _, message in errors(audit(vet, VET)))


# ---------------------------------------------------------------- the commands


def test_generate_installs_what_passes_and_reports_what_does_not(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text((TEST_BLUEPRINTS / "tool_library.yaml").read_text().replace("id: tool_library", "id: Bad-Id"))
    lines: list[str] = []
    code = generate([TEST_BLUEPRINTS / "tool_library.yaml", broken], tmp_path / "servers", echo=lines.append)
    assert code == 1
    assert (tmp_path / "servers" / "tool_library" / "server.json").exists()
    assert not (tmp_path / "servers" / "__pycache__").exists()
    assert any(line.startswith("tool_library") and " pass " in line for line in lines), lines
    assert any("REJECTED" in line and "broken.yaml" in line for line in lines), lines
    assert lines[-1].startswith("2 environment(s): 1 passed, 1 failed")
    assert generate([TEST_BLUEPRINTS / "tool_library.yaml"], tmp_path / "servers", echo=lines.append) == 0


def test_audit_command_prints_reports():
    lines: list[str] = []
    assert audit_envs(["vet_clinic"], as_json=True, echo=lines.append) == 0
    assert json.loads(lines[0])[0]["env"] == "vet_clinic"
