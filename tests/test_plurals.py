"""Table names are English plurals: no `auto_policys` or `depot_buss` reaches app.py, seeds, docs or tasks."""

from __future__ import annotations

import re

import pytest
from envcraft.generator.model.blueprint import load_all
from envcraft.generator.model.plurals import plural

# A naive "+s" plural: consonant + "ys", a sibilant + "s" (buss, boxs, batchs, brushs), but not "techs".
NAIVE = re.compile(r"(?:[^aeiou]ys|ss|xs|zs|shs|(?<!te)(?<!epo)chs)$")


def test_no_table_is_a_naive_plural():
    wrong = sorted(f"{bp.id}: {e.table}" for bp in load_all() for e in bp.entities if NAIVE.search(e.table))
    assert not wrong, f"tables named by a naive '+s' plural: {wrong}"


def test_every_default_table_is_the_plural_of_its_entity():
    wrong = sorted(f"{bp.id}: {e.name} -> {e.table}" for bp in load_all() for e in bp.entities
                   if e.table != plural(e.name))
    assert not wrong, f"tables that are not their entity's plural: {wrong}"


def test_hand_written_plurals_agree_with_the_rules():
    # 27 blueprints spell a plural out; the rules must reach the same word on their own.
    spelled = [(e.name, e.plural) for bp in load_all() for e in bp.entities if e.plural]
    assert len(spelled) >= 20
    assert [(name, plural(name)) for name, _ in spelled] == spelled


@pytest.mark.parametrize(("name", "many"), [
    ("auto_policy", "auto_policies"), ("depot_bus", "depot_buses"), ("licensed_business", "licensed_businesses"),
    ("soccer_pitch", "soccer_pitches"), ("facilities_tech", "facilities_techs"), ("log_index", "log_indexes"),
    ("ticket_reply", "ticket_replies"), ("treaty", "treaties"), ("stock_photo", "stock_photos"),
    ("recording_studio", "recording_studios"), ("approval_signoff", "approval_signoffs"), ("records_box", "records_boxes"),
    ("bordereau", "bordereaux"), ("gateway", "gateways"), ("diagnosis", "diagnoses"), ("shelf", "shelves"),
    ("staff", "staff"), ("clinic", "clinics")])
def test_rules(name, many):
    assert plural(name) == many
