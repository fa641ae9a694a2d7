"""The rule lint (generator/audit/rule_lint.py): a normative sentence an agent can read that no policy backs is found,
wherever it is written; SKILL.md's generic conventions state no rule of their own."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from envcraft.generator.audit.rule_lint import backed, normalize, normative, unbacked, unbacked_all, unbacked_count
from envcraft.generator.compile.conventions import conventions
from envcraft.generator.model.blueprint import BLUEPRINTS, load_all, load_blueprint
from envcraft.generator.model.policy import rules
from envcraft.generator.model.stated_rules import SENTENCE_END
from envcraft.generator.tasks.env import SERVERS


def copy_env(env: str, tmp_path: Path) -> Path:
    folder = tmp_path / env
    shutil.copytree(SERVERS / env, folder, ignore=shutil.ignore_patterns("__pycache__", "bin"))
    return folder


def rule_texts_of(bp) -> list[str]:
    return [normalize(rule.text) for rule in rules(bp)]


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
    assert source.count("INSTRUCTIONS = (\n") == 1
    server.write_text(source.replace("INSTRUCTIONS = (\n", 'INSTRUCTIONS = (\n    "Parrots must be seen before noon. "\n'))
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



NEW_FORMS = [  # rules without a modal verb (issue 19: "Joint replacements need a room with laminar flow")
    "Hip revisions need a room with a robot.",
    "Sedations need 2 nurses.",
    "Rail instead of air for Lyon-Paris.",
    "Maximum 5 pets per owner.",
    "Maximum stay length: 3 nights.",
    "A senior vet sees any bird, minimum 40 minutes.",
    "Vaccines are limited to 3 per visit.",
    "A chip scan is mandatory for strays.",
    "Boarding requires a signed waiver.",
    "Discharge a boarder once paid (owner signature required).",
    "Book no more dogs than kennels.",
]


def test_a_planted_rule_without_a_modal_verb_is_found(tmp_path):
    folder = copy_env("vet_clinic", tmp_path)
    before = texts(folder)
    doc = folder / "seed" / "docs" / "clinic_policies.md"
    doc.write_text(doc.read_text("utf-8") + "".join(f"- {line}\n" for line in NEW_FORMS), "utf-8")
    assert texts(folder) - before == set(NEW_FORMS)


def test_needs_and_bounds_as_description_are_not_rules():
    for text in ("Find clients by need, language or status.", "Cancel an event the grid no longer needs.",
                 "Animals that need a quieter place go to foster homes.", "You ask for the facts you need.",
                 "Luis Cardenas, shift 06:30, needs a wheelchair lift.", "Each call has a maximum award.",
                 "Change an investor's per-note maximum.", "Alerts are suppressed instead of paged.",
                 "Board approval once all required sign-offs are approved.",
                 "Elective cases are postponed when an emergency needs the room."):
        assert not normative(text), text

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


def test_no_sentence_an_agent_reads_states_a_rule_no_policy_backs():
    """Issue 19: every normative sentence of the catalog is a policy's text (or a shared convention)."""
    found = unbacked_all(SERVERS)
    assert not found, "unbacked rule sentences (state the rule as a policy, or say what the tool does):\n" + \
        "\n".join(f"{s.env} {s.path}: {s.text}" for s in found[:20])
    assert unbacked_count(SERVERS) == 0


def test_blueprint_prose_states_no_rule_of_its_own():
    """What SKILL.md, the instructions and the tool descriptions say besides the policies (the scenario, each
    operation's description, the notes) describes the work; the rules are the policies' (read before generating)."""
    found = []
    for bp in load_all():
        for text in SENTENCE_END.split(" ".join(bp.scenario.split())) + SENTENCE_END.split(" ".join(bp.skill.split())):
            found += [f"{bp.id} scenario/notes: {text}"] if normative(text) and not backed(text, rule_texts_of(bp), []) else []
        found += [f"{bp.id} {op.name}: {op.description}" for op in bp.operations
                  if normative(op.description) and not backed(op.description, rule_texts_of(bp), [])]
    assert not found, "\n".join(found)


def test_skill_md_examples_book_inside_the_environments_own_hours():
    """A CLI example in SKILL.md is written from the blueprint: it books a dinner at 17:00, not at 10:00
    (the generic example time once contradicted the restaurant's and the vet's hours)."""
    from datetime import date

    from envcraft.generator.compile.skill import example_arguments
    from envcraft.generator.seeds.seed import seed_tables

    weekdays = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

    checked, wrong = 0, []
    for bp in load_all():
        tables = None
        for op in bp.operations:
            for pre in op.preconditions:
                if pre.kind != "time_window" or not pre.from_time or any(c.ref_field for c in pre.conditions):
                    continue
                tables = tables or seed_tables(bp)
                args = example_arguments(bp, op, tables)
                value = args.get(pre.field)
                if not isinstance(value, str) or not all(args.get(c.field) == c.value for c in pre.conditions
                                                         if c.op == "=="):
                    continue
                checked += 1
                day = weekdays[date.fromisoformat(value[:10]).weekday()]
                if not (pre.from_time <= value[11:16] <= pre.to_time) or (pre.days and day not in pre.days):
                    wrong.append(f"{bp.id} {op.name} {pre.field}={value}")
    assert checked >= 3 and not wrong, (checked, wrong)
