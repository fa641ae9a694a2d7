"""The rule lint (generator/rule_lint.py): a normative sentence an agent can read that no policy backs is found,
wherever it is written; SKILL.md's generic conventions state no rule of their own."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from envcraft.generator.blueprint import BLUEPRINTS, load_all, load_blueprint
from envcraft.generator.conventions import conventions
from envcraft.generator.rule_lint import normative, unbacked, unbacked_count
from envcraft.generator.tasks.env import SERVERS

# Unbacked sentences over every generated environment on this branch: the lint may only go down (issue 19
# wants 0; what is left is blueprint prose: scenarios, tool descriptions and notes).
BUDGET = 160


def copy_env(env: str, tmp_path: Path) -> Path:
    folder = tmp_path / env
    shutil.copytree(SERVERS / env, folder, ignore=shutil.ignore_patterns("__pycache__", "bin"))
    return folder


def texts(folder: Path) -> set[str]:
    return {s.text for s in unbacked(folder)}


def test_a_planted_rule_is_found_in_a_doc_in_skill_md_and_in_the_instructions(tmp_path):
    folder = copy_env("vet_clinic", tmp_path)
    before = texts(folder)
    planted = {
        folder / "seed" / "docs" / "clinic_policies.md": "- Walk-ins wait at most 20 minutes before a vet sees them.\n",
        folder / "seed" / "SKILL.md": "\nRefunds are not accepted after the visit.\n",
    }
    for path, line in planted.items():
        path.write_text(path.read_text("utf-8") + line, "utf-8")
    server = folder / "server.py"
    source = server.read_text("utf-8")
    assert "Call finish when done." in source
    server.write_text(source.replace("Call finish when done.", "Parrots must be seen before noon. Call finish when done."))
    assert texts(folder) - before == {"Walk-ins wait at most 20 minutes before a vet sees them.",
                                      "Refunds are not accepted after the visit.", "Parrots must be seen before noon."}


def test_a_sentence_that_states_a_policy_is_backed_and_an_hours_range_reads_as_a_rule(tmp_path):
    folder = copy_env("vet_clinic", tmp_path)
    before = texts(folder)
    rule = json.loads((folder / "policies.json").read_text("utf-8"))["policies"][0]["rule"]
    doc = folder / "seed" / "docs" / "clinic_policies.md"
    doc.write_text(doc.read_text("utf-8") + f"- {rule}\n- The lab takes samples 10:00-12:00.\n", "utf-8")
    assert texts(folder) - before == {"The lab takes samples 10:00-12:00."}
    assert not normative("Mark a truck that never arrived.")  # what happened, not a rule
    assert normative("Drop a course before the drop deadline.")


def test_skill_md_conventions_state_no_rule_of_their_own():
    """The generic lines are the runtime's (paging, failed writes, history); hours and slots come from the
    environment's own documents, so no line contradicts them (it once said "09:00-17:00 on 30-minute marks")."""
    for bp in load_all():
        lines = conventions(bp)
        assert not any("09:00" in line or "30-minute" in line for line in lines), bp.id
    vet = load_blueprint(BLUEPRINTS / "vet_clinic.yaml")
    skill = (SERVERS / "vet_clinic" / "seed" / "SKILL.md").read_text("utf-8")
    assert all(line in skill for line in conventions(vet)), "servers/ holds the SKILL.md the generator writes now"
    assert not any(s.path == "seed/SKILL.md" and "Conventions" in s.text for s in unbacked(SERVERS / "vet_clinic"))


def test_unbacked_rule_sentences_never_grow():
    assert unbacked_count(SERVERS) <= BUDGET
