"""Scenario -> blueprint through the real openai client, over HTTP, against the deterministic model.

The model is `harness/scripted_model.py`, a scripted stand-in (no weights can be fetched here).
Its first reply has a broken reference; the audit-and-repair loop feeds the error back and the
second reply is accepted, compiled and audited.
"""

from __future__ import annotations

import copy
import json

import pytest
import yaml
from envcraft.generator.llm import synthesize
from envcraft.generator.model.blueprint import BLUEPRINTS
from envcraft.harness.scripted_model import Script, build_app, serving

SCENARIO = "A small veterinary clinic's front desk books, moves and cancels appointments and invoices visits."


@pytest.mark.slow
def test_scenario_becomes_an_audited_environment_after_one_repair(tmp_path):
    good = yaml.safe_load((BLUEPRINTS / "vet_clinic.yaml").read_text())
    good["id"] = "llm_vet_desk"
    broken = copy.deepcopy(good)
    broken["entities"][1]["fields"][2]["ref"] = "ownr"  # pet.owner_id points at an entity that does not exist
    script = Script().add_replies(f"Scenario: {SCENARIO}", [json.dumps(broken), "```json\n" + json.dumps(good) + "\n```"])
    with serving(build_app(script)) as url:
        result = synthesize(SCENARIO, base_url=url, api_key="test", model="scripted", out_dir=tmp_path, rounds=3)
    assert result.accepted, [a.error for a in result.attempts]
    assert [a.round for a in result.attempts] == [1, 2]
    assert "ownr" in result.attempts[0].error
    assert result.attempts[1].audit.passed
    folder = tmp_path / "llm_vet_desk"
    assert (folder / "server.py").exists() and (folder / "seed" / ".app" / "state.json").exists()
    manifest = json.loads((folder / "server.json").read_text())
    assert manifest["_meta"]["io.github.envcraft/environment"]["envId"] == "llm_vet_desk"


def test_rounds_are_bounded_and_failure_is_reported(tmp_path):
    script = Script().add_replies(f"Scenario: {SCENARIO}", ["not json at all"])
    with serving(build_app(script)) as url:
        result = synthesize(SCENARIO, base_url=url, api_key="test", model="scripted", out_dir=tmp_path, rounds=2)
    assert not result.accepted and len(result.attempts) == 2
    assert all("does not validate" in a.error for a in result.attempts)
    assert not any(tmp_path.iterdir())
