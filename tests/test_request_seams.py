"""Template seams in the user's voice (issue 19, item 5: requests a person would write).

Each seam class was found in the committed store; the glitch lint (generator/tasks/quality.py, which
validate.py runs on every task) flags it, and the generator no longer writes it:
- a pronoun after a phrasal verb's particle ("call off it", "we've called off it", "back out it");
- "no to {x}, please" joined as a clause ("..., and no to it, please");
- "is all over" for a finished race entrant (done, or everywhere?);
- a note reference joined where a value belongs ("it's look the on hand up in ...");
- a lead that ends in a colon before a sentence that holds one ("A request, please: About X: ...").
"""

from __future__ import annotations

import random
import re

import pytest
from envcraft.generator.tasks.instruct import ALSO, OPENERS, Voice, join, wrap_turn
from envcraft.generator.tasks.phrases import GOALS, say
from envcraft.generator.tasks.quality import glitches
from envcraft.generator.tasks.reasons import ABOUT, SITUATION, lead_with

SEAMS = ("particle_before_pronoun", "bare_no_to", "vague_state", "note_frame_as_value", "opener_double_colon")
# a sentence with two colons, clock times aside
TWO_COLONS = re.compile(r"(?<!\d):(?!\d)[^.!?\n]*?(?<!\d):(?!\d)")


def seams(text: str) -> set[str]:
    return {g.split(":")[0] for g in glitches(text)} & set(SEAMS)


@pytest.mark.parametrize(("seam", "old", "fixed"), [  # old: verbatim from the committed store
    ("particle_before_pronoun", "If it was ordered after November 21, 2026, call off it; and the rest: the results "
     "for it are in.", "If it was ordered after November 21, 2026, call it off."),
    ("particle_before_pronoun", "Where it was due after 8 Dec, we've called off it.", "Where it was due after 8 Dec, "
     "we've called it off."),
    ("bare_no_to", "Check the note notes/valentina-legal-matter.md: practice area litigation, and no to it, please.",
     "Practice area litigation, and we'll give it a miss."),
    ("vague_state", "Got it. Next: the race participant Julia Brennan is all over.",
     "Got it. Next: the race participant Julia Brennan crossed the finish line."),
    ("note_frame_as_value", "That supply item is wrong - it's look the on hand up in rosa-supply-item.md under notes/.",
     "That supply item has changed; look the on hand up in rosa-supply-item.md under notes/."),
    ("opener_double_colon", "A request, please: The field adjuster Quentin Larsen needs sorting out: the claim "
     "assignment is accepted.", "A request, please. The field adjuster Quentin Larsen needs sorting out: the claim "
     "assignment is accepted."),
    ("opener_double_colon", "Thanks. Next: some loose ends: the vendor bill SI-000036 is on the calendar.",
     "Thanks. Next - some loose ends. The vendor bill SI-000036 is on the calendar."),
])
def test_the_lint_flags_each_seam_on_the_old_text(seam, old, fixed):
    assert seam in seams(old), glitches(old)
    assert not seams(fixed), glitches(fixed)


def test_the_lint_passes_a_colon_used_once_and_clock_times():
    assert not seams("Quick one: the booking runs 09:30 to 10:00 on Friday. Then add a visit: date 2026-12-04.")


def test_every_state_phrasing_said_of_a_pronoun_reads_as_english():
    """As batch.py and instruct.py use them: ", and <the row's end state>" said of "it" / "them"."""
    said = [f"The amount is fixed, and {say(p, who)}." for phrases in GOALS.values() for p in phrases
            for who in ("it", "them")]
    bad = [s for s in said if seams(s)]
    assert bad == [], bad[:10]
    assert "call it off" in say("call off {x}", "it") and say("call off {x}", "the booking") == "call off the booking"


def test_a_reason_ending_in_a_colon_leaves_one_colon_to_the_sentence():
    body = "we need a payment run: bank account Operating CAD - RBC 0921 and the run date 2026-12-08."
    leads = [*SITUATION, *(t.format(a="the supplier Maple Media", A="The supplier Maple Media") for t in ABOUT)]
    assert sum(lead.endswith(":") for lead in leads) >= 10  # the case under test is drawn
    texts = [lead_with(lead, body) for lead in leads]
    assert [t for t in texts if TWO_COLONS.search(t)] == []
    assert lead_with("Before I sign off:", "The vendor bill SI-000036 is on the calendar.") == \
        "Before I sign off: the vendor bill SI-000036 is on the calendar."  # one colon: it stays, the clause runs on


def test_an_opener_ending_in_a_colon_leaves_one_colon_to_the_sentence():
    body = "We need a payment run: bank account Operating CAD - RBC 0921."
    who = Voice("Ana Keller", None, "brief")
    colon_openers = tuple(o[:-1] for o in OPENERS["brief"] if o.endswith(":"))
    texts = [wrap_turn(body, random.Random(seed), True, None, who) for seed in range(40)]
    assert sum(t.startswith(colon_openers) for t in texts) >= 5  # colon openers were drawn
    assert [t for t in texts if TWO_COLONS.search(t)] == []
    follow = [wrap_turn("the field adjuster needs sorting out: the assignment is accepted.", random.Random(seed),
                        False, None, who) for seed in range(40)]
    assert [t for t in follow if seams(t)] == []


def test_a_connector_ending_in_a_colon_leaves_one_colon_to_the_sentence():
    clauses = ["the vendor bill SI-000036 is on the calendar", "we need a payment run: bank account Operating CAD"]
    texts = [join(clauses, random.Random(seed)) for seed in range(80)]
    assert any(":" in link for link in ALSO) and sum("One more" in t for t in texts) >= 3  # drawn
    assert [t for t in texts if TWO_COLONS.search(t)] == []
