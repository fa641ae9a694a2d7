"""Rules as code: a blueprint policy is enforced by the compiled tool (a refusal citing the rule and
the blocking fact), stated in SKILL.md, the server instructions and read_policies, and found by
the task generators' helper; searches say when they are cut; blueprint text stays literal."""

from __future__ import annotations

import ast
import copy
import json

import anyio
import pytest
import yaml
from envcraft.generator.compile.appfile import render_app
from envcraft.generator.compile.compiler import compile_blueprint, instructions_text
from envcraft.generator.model.blueprint import BLUEPRINTS, Blueprint, load_all, load_blueprint
from envcraft.generator.model.policy import allowed_side_effects, policy_records, refusal, rules
from envcraft.generator.seeds.seed import seed_tables
from envcraft.registry.catalog import Environment
from envcraft.registry.launch import load_server_module
from envcraft.registry.manifest import read_manifest
from envcraft_runtime import ToolFailure
from envcraft_runtime.rules import POLICY_FORMAT, PolicyRefusal, PolicyRule, load_policies
from mcp import Client

RENTALS = load_blueprint(BLUEPRINTS / "rental_tenant_matching.yaml")


def load(folder):
    manifest = read_manifest(folder)
    env = Environment(manifest.env.env_id, folder, manifest)
    return load_server_module(env)


@pytest.fixture(scope="module")
def rentals(tmp_path_factory):
    folder = compile_blueprint(RENTALS, tmp_path_factory.mktemp("envs") / RENTALS.id)
    return folder, load(folder)


def _unit_and_applicant(tables, unit_status="available"):
    unit = next(u for u in tables["rental_units"] if u["status"] == unit_status)
    applicant = tables["rental_applicants"][0]
    return unit, applicant


def test_a_policy_refuses_the_call_that_breaks_it_and_names_the_blocking_fact(rentals):
    _, module = rentals
    tables = seed_tables(RENTALS)
    unit, applicant = _unit_and_applicant(tables)
    tables["rental_applications"] = [a for a in tables["rental_applications"]
                                     if a["rental_applicant_id"] != applicant["id"]]
    call = dict(rental_unit_id=unit["id"], rental_applicant_id=applicant["id"], move_in_date="2026-12-24")
    found = refusal(module.app.lease_offer_send, tables, **call)
    assert found is not None and found.rule == "approved_before_offer"
    assert applicant["id"] in found.fact and unit["id"] in found.fact
    assert "(rule approved_before_offer:" in found.message
    before = copy.deepcopy(tables)
    with pytest.raises(ToolFailure):
        module.app.lease_offer_send(tables, **call)
    assert tables == before  # a refused write changes nothing
    # the same call once the application is approved: no rule refuses it, and it goes through
    tables["rental_applications"].append({"id": "rapp-0900", "rental_unit_id": unit["id"],
                                          "rental_applicant_id": applicant["id"], "status": "approved"})
    assert refusal(module.app.lease_offer_send, tables, **call) is None
    module.app.lease_offer_send(tables, **call)
    assert next(u for u in tables["rental_units"] if u["id"] == unit["id"])["status"] == "pending"


def test_a_threshold_on_the_referenced_row_blocks_with_its_value(rentals):
    _, module = rentals
    tables = seed_tables(RENTALS)
    app_row = next(a for a in tables["rental_applications"] if a["status"] == "screening")
    applicant = next(p for p in tables["rental_applicants"] if p["id"] == app_row["rental_applicant_id"])
    applicant["credit_score"] = 580
    found = refusal(module.app.rental_application_approve, tables, rental_application_id=app_row["id"])
    assert found is not None and found.rule == "credit_floor" and found.value == 580
    applicant["credit_score"] = 600
    assert refusal(module.app.rental_application_approve, tables, rental_application_id=app_row["id"]) is None


def test_one_source_enforced_rules_are_in_skill_instructions_and_read_policies(rentals):
    folder, module = rentals
    skill = (folder / "seed" / "SKILL.md").read_text("utf-8")
    listed = {p.id for p in module.app.read_policies({})}
    for rule in rules(RENTALS):
        assert f"**{rule.id}**" in skill and rule.text in skill
        assert rule.id in listed
    assert "approved_before_offer" in instructions_text(RENTALS)
    assert [p.__dict__ for p in module.app.read_policies({})] == policy_records(RENTALS)


def test_an_app_reads_its_rules_from_a_checked_policies_file(tmp_path):
    """policies.json beside app.py is data the app loads at import: a malformed one fails there, naming the file."""
    app = str(tmp_path / "app.py")
    rule = {"id": "r1", "category": "capacity", "rule": "At most one.", "tools": ["t"], "enforced": True}
    good = {"format": POLICY_FORMAT, "env": "x", "policies": [rule]}
    (tmp_path / "policies.json").write_text(json.dumps(good))
    assert load_policies(app) == [PolicyRule("r1", "capacity", "At most one.", ["t"], True)]
    for broken in ({**good, "format": "envcraft.policies/0"}, {**good, "policies": [{**rule, "enforced": "yes"}]},
                   {**good, "policies": [{**rule, "tools": "t"}]}, {**good, "policies": [{**rule, "tools": [1]}]},
                   {**good, "policies": [{**rule, "extra": 1}]}, {**good, "policies": [{"id": "r1"}]}):
        (tmp_path / "policies.json").write_text(json.dumps(broken))
        with pytest.raises(ValueError, match=r"policies\.json"):
            load_policies(app)


def test_every_documented_rule_of_every_environment_has_a_blocking_check():
    """A rule is enforced (a precondition in code the audit breaks on purpose) or explicitly left to
    judgement or declared as a follow-up: SKILL.md's Policies section is generated from exactly these."""
    for bp in load_all():
        for rule in rules(bp):
            if rule.category in ("judgement", "side_effect"):
                assert not rule.enforced
                continue
            assert rule.enforced and rule.checks, f"{bp.id}: rule {rule.id} has no check"
            assert all(any(pre in next(o for o in bp.operations if o.name == name).preconditions
                           for pre in rule.checks) for name in rule.operations), f"{bp.id}: {rule.id}"


def test_search_says_when_results_are_cut_in_text_and_structured_output(rentals):
    folder, module = rentals

    async def main():
        async with Client(module.build_server(folder / "seed")) as client:
            total = len(json.loads((folder / "seed" / ".app" / "state.json").read_text())["rental_applicants"])
            result = await client.call_tool("rental_applicant_search", {"limit": 5})
            assert result.structured_content["note"] == f"5 of {total} shown; pass offset=5 for the rest"
            assert f"5 of {total} shown; pass offset=5 for the rest" in result.content[0].text
            rest = await client.call_tool("rental_applicant_search", {"limit": 100, "offset": 5})
            assert len(rest.structured_content["results"]) == total - 5
            assert "no more results" in rest.structured_content["note"]
            ids = [r["id"] for r in result.structured_content["results"] + rest.structured_content["results"]]
            assert ids == sorted(set(ids)) and len(ids) == total
            policies = await client.call_tool("read_policies", {"tool": "lease_offer_send"})
            assert {"approved_before_offer", "offer_available_units"} <= {
                p["id"] for p in policies.structured_content["result"]}
            report = await client.call_tool("rental_unit_report", {"group_by": "status"})
            assert sum(g["count"] for g in report.structured_content["groups"]) == report.structured_content["rows"]

    anyio.run(main)


def test_side_effects_are_declared_for_graders():
    bp = next(b for b in load_all() if b.id == "retail_helpdesk")
    assert "ticket_reply" in allowed_side_effects(bp, "support_ticket_resolve")


# ---------------------------------------------------------------- blueprint text stays literal


def _raw(bp: Blueprint) -> dict:
    return yaml.safe_load((BLUEPRINTS / f"{bp.id}.yaml").read_text("utf-8"))


def test_a_newline_in_a_one_line_field_is_refused():
    data = _raw(RENTALS)
    data["operations"][0]["description"] = "Find units.\nimport os; os.system('touch /tmp/pwned')"
    with pytest.raises(ValueError, match="description"):
        Blueprint.model_validate(data)
    data = _raw(RENTALS)
    data["policies"][0]["rule"] = "ok\n__import__('os').system('x')"
    with pytest.raises(ValueError):
        Blueprint.model_validate(data)


def test_hostile_text_reaches_the_app_only_as_literals_and_docstrings():
    data = _raw(RENTALS)
    hostile = '""" + __import__("os").system("touch /tmp/pwned") + """ \\'
    data["operations"][0]["description"] = hostile + '"'
    data["entities"][0]["fields"][0]["values"] = ['x"); __import__("os").system("id"); ("', "Maple Court"]
    data["policies"][0]["rule"] = 'Never "; import os; os.system("id") #'
    source = render_app(Blueprint.model_validate(data))
    tree = ast.parse(source)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and n.func.attr == "system"]
    assert not calls  # the text never became code
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == RENTALS.operations[0].name)
    assert "__import__" in ast.get_docstring(fn)


def test_app_py_imports_only_the_helpers_it_uses_and_defines_none(rentals):
    """The helpers live once in the runtime: app.py defines none and imports only names its code uses."""
    folder, _ = rentals
    tree = ast.parse((folder / "app.py").read_text("utf-8"))
    assert not [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name.startswith("_")]
    imported = [a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) and n.module != "__future__"
                for a in n.names]
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert "refuse" in imported and not [name for name in imported if name not in used]


# ---------------------------------------------------------------- untrusted builds are audited apart


@pytest.mark.slow
def test_an_untrusted_build_is_audited_in_a_contained_subprocess(tmp_path):
    import shutil

    from envcraft.generator.audit.isolated_audit import audit_isolated

    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed: the isolated audit runs as a plain limited process")

    secret = tmp_path / "host-secret.txt"
    secret.write_text("TOP-SECRET-7731", "utf-8")
    marker = tmp_path / "host-marker.txt"
    folder = compile_blueprint(RENTALS, tmp_path / "build" / RENTALS.id)
    report = audit_isolated(folder, RENTALS)
    assert report.passed, report.errors
    assert any("audited in a separate process" in f.message for f in report.findings)
    # a build that reads a host file and writes one at import: it runs in the child, which sees neither
    app = folder / "app.py"
    app.write_text(app.read_text("utf-8") + f"\nopen({str(marker)!r}, 'w').write('x')\n"
                   f"raise RuntimeError('leak: ' + open({str(secret)!r}).read())\n")
    report = audit_isolated(folder, RENTALS)
    text = report.model_dump_json()
    assert not report.passed and "does not import" in text  # it ran, in the child
    assert "TOP-SECRET-7731" not in text and not marker.exists()
    import sys
    assert not [m for m in sys.modules if m.startswith(f"envcraft_env_{RENTALS.id}") and "build" in str(
        getattr(sys.modules[m], "__file__", ""))]  # nothing of the build was imported here


def test_a_batch_is_all_or_nothing_and_names_the_blocking_record(tmp_path):
    bp = load_blueprint(BLUEPRINTS / "retail_helpdesk.yaml")
    app = load(compile_blueprint(bp, tmp_path / bp.id)).app
    tables = seed_tables(bp)
    tickets = tables["support_tickets"]
    ok = [t for t in tickets if t["status"] == "resolved"][:2]
    blocked = next(t for t in tickets if t["status"] == "new")
    before = copy.deepcopy(tables)
    with pytest.raises(PolicyRefusal) as refused:
        app.support_ticket_close_many(tables, [ok[0]["id"], blocked["id"]])
    assert refused.value.policy == "support_ticket_close.status_in" and blocked["id"] in str(refused.value)
    assert tables == before
    closed = app.support_ticket_close_many(tables, [t["id"] for t in ok])
    assert [t.status for t in closed] == ["closed", "closed"]
    assert {t["id"]: t["status"] for t in tables["support_tickets"]}[ok[1]["id"]] == "closed"
    with pytest.raises(ToolFailure, match="repeats"):
        app.support_ticket_close_many(tables, [ok[0]["id"], ok[0]["id"]])


# ---------------------------------------------------------------- rules a doc states come from policies


@pytest.mark.slow
def test_every_rule_a_doc_states_is_a_policy_and_the_doc_is_generated_from_it():
    """No workspace doc of any environment states a rule in prose of its own: each rule sentence is a
    `{{rule:id}}` placeholder of a blueprint policy, expanded from that policy's text."""
    from envcraft.generator.model.stated_rules import PLACEHOLDER, statements, unmapped
    from envcraft.generator.seeds.seed import seed_files

    cited = 0
    for bp in load_all():
        assert not unmapped(bp), f"{bp.id}: prose rules with no policy: {[s.text for s in unmapped(bp)]}"
        by_id = {r.id: r for r in rules(bp)}
        files = seed_files(bp, seed_tables(bp))
        for statement in statements(bp):
            rule = by_id[statement.policy]
            assert rule.enforced or rule.category in ("judgement", "side_effect"), f"{bp.id}: {rule.id}"
            assert next(p.rule for p in bp.policies if p.id == rule.id) in files[statement.path]
            cited += 1
        assert not any(PLACEHOLDER.search(files[f.path]) for f in bp.files if f.content is not None)
    assert cited >= 150
    # the check reads prose as a rule: a doc sentence added by hand is caught
    bp = load_blueprint(BLUEPRINTS / "car_rental_counter.yaml")
    doc = next(f for f in bp.files if f.format == "md")
    edited = bp.model_copy(update={"files": [doc.model_copy(update={
        "content": doc.content + "\n7. Customers under 25 must never rent a premium car.\n"})]})
    assert [s.text for s in unmapped(edited)] == ["Customers under 25 must never rent a premium car."]


def test_a_doc_rule_turned_into_a_policy_blocks_the_call_through_the_real_server(tmp_path):
    """The counter procedures' licence rule is stated in the doc from the policy and refused by the tool."""
    bp = load_blueprint(BLUEPRINTS / "car_rental_counter.yaml")
    folder = compile_blueprint(bp, tmp_path / bp.id)
    module = load(folder)
    doc = (folder / "seed" / "docs" / "counter_procedures.md").read_text("utf-8")
    policy = next(p for p in bp.policies if p.id == "counter_procedures_1")
    assert policy.check is not None and policy.rule in doc and "counter_procedures_1" in (
        folder / "seed" / "SKILL.md").read_text("utf-8")
    state = json.loads((folder / "seed" / ".app" / "state.json").read_text())
    car = next(v for v in state["rental_vehicles"] if v["status"] == "ready")
    customer = min(state["rental_customers"], key=lambda c: c["license_expiry"])
    expiry = customer["license_expiry"]

    async def main():
        async with Client(module.build_server(folder / "seed")) as client:
            args = {"rental_customer_id": customer["id"], "rental_vehicle_id": car["id"], "out_at": "2027-06-01T10:00",
                    "due_back": "2027-06-03T10:00", "odometer_out": car["odometer"]}
            assert expiry < "2027-06-03"
            refused = await client.call_tool("rental_contract_open", args)
            assert refused.is_error and "(rule counter_procedures_1:" in refused.content[0].text
            assert expiry in refused.content[0].text  # the blocking fact: the licence's expiry date
            fine = dict(args, rental_customer_id=max(state["rental_customers"], key=lambda c: c["license_expiry"])["id"])
            done = await client.call_tool("rental_contract_open", fine)
            assert not done.is_error, done.content[0].text

    anyio.run(main)


@pytest.mark.slow
def test_every_enforced_rule_a_doc_states_blocks_a_call_built_to_break_it(tmp_path):
    """For each environment whose docs state an enforced rule, the audit (real server, real calls) arranges a
    world where only that rule breaks, and the tool refuses citing it; a rule that does not block fails it."""
    from envcraft.generator.audit.audit import audit
    from envcraft.generator.model.stated_rules import statements

    audited = []
    for bp in load_all():
        enforced = {r.id for r in rules(bp) if r.enforced}
        stated = {s.policy for s in statements(bp)} & enforced
        if not stated:
            continue
        report = audit(compile_blueprint(bp, tmp_path / bp.id), bp)
        unproven = [f.message for f in report.findings if "never shown to block" in f.message]
        assert report.passed and not unproven, (bp.id, unproven)
        audited.append(bp.id)
    assert len(audited) >= 12, audited


def test_a_field_of_one_referenced_row_is_compared_with_another_scaled(tmp_path):
    """`via` + `factor`: the candidate's desired salary against 110% of the requisition's salary max, at the
    boundary; the refusal names the factor and both rows' values."""
    bp = load_blueprint(BLUEPRINTS / "applicant_tracking.yaml")
    app = load(compile_blueprint(bp, tmp_path / bp.id)).app
    tables = seed_tables(bp)
    req = next(r for r in tables["job_requisitions"] if r["status"] == "open")
    cand = tables["candidate_profiles"][0]
    tables["job_applications"] = [a for a in tables["job_applications"] if a["candidate_profile_id"] != cand["id"]]
    req["salary_max"], cand["desired_salary"] = 100000.0, 110000.0
    # the pair meets every other rule of job_application_submit (seniority, location, staff experience)
    cand["seniority"], cand["location"], cand["years_experience"] = req["seniority"], req["location"], 10
    call = dict(candidate_profile_id=cand["id"], job_requisition_id=req["id"])
    assert refusal(app.job_application_submit, tables, **call) is None  # exactly 110%: allowed
    cand["desired_salary"] = 110001.0
    found = refusal(app.job_application_submit, tables, **call)
    assert found is not None and found.rule == "hiring_guidelines_2" and found.value == 110001.0
    assert "candidate profile's desired salary is 110001" in found.fact and "1.1 x the job requisition's salary max" in found.fact


def test_a_policy_id_is_never_a_word_of_the_world():
    """An answer citing a rule whose id is also a column ("max_note_amount") reads to the grader as the world's own
    data, so a wrong rule cited beside the right one went unnoticed (the audit's cites_a_rule_not_broken)."""
    raw = yaml.safe_load((BLUEPRINTS / "p2p_lending_marketplace.yaml").read_text("utf-8"))
    Blueprint.model_validate(raw)
    next(p for p in raw["policies"] if p["id"] == "note_amount_cap")["id"] = "max_note_amount"
    with pytest.raises(ValueError, match="also an entity, field or value name"):
        Blueprint.model_validate(raw)
