"""Report files are graded on the facts they state, not their wording (core/facts.py): office-008's overspend
note and office-011's project brief.

A careful report in its own words (figures without separators, other spelling and case, a wrapped line,
prose instead of a table) is paid in full; a dump of figures or of every room is not. Graded by the harness's
own grading code on the office seed, through each task's file checks.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from envcraft.core.grading import Snapshot, grade
from envcraft.core.tasks import load_tasks

REPO = Path(__file__).resolve().parent.parent
TASKS = {t.id: t for t in load_tasks(REPO / "tasks" / "office.jsonl")}
STATE = json.loads((REPO / "servers" / "office" / "seed" / ".app" / "state.json").read_text())
OVERSPEND = "reports/q4_overspend.md"
BRIEF = "projects/verde_bikes_pitch.md"


def _failed(task_id: str, path: str, text: str) -> list[str]:
    """The notes of the task's file checks that `text`, written at `path`, fails."""
    task = TASKS[task_id]
    result = grade(task, Snapshot(tables=STATE, files={}), Snapshot(tables=STATE, files={path: text}))
    return [c.note for c, r in zip(task.checks, result.checks, strict=True) if c.kind == "file_contains" and not r.passed]


AWK_STYLE = """# Q4 overspend

Categories more than 10% over budget (data/q4_budget.csv):

- Contractors (Design): $4200 over ($34200 actual vs $30000 budget, 14.0%)
- Software licenses (Operations): $1850 over (15.4%)
- **Client Entertainment** (Sales): $610 over (15.3%)
- UTILITIES (Operations): $630 over (15.0%)
- Team-events (Operations): $420 over (12.0%)

Total overspend of these five categories: $7710.
"""
PROSE = """Q4 overspend note for the board pack.

Contractors ran 4,200.00 USD over budget, the largest overspend. Software licences were $1,850 over, Client
entertainment $610, Utilities $630 and Team events $420. In total the flagged categories are $7,710 over
budget; Cloud hosting ($720) and Bank fees ($55) are over by 10% or less.
"""


@pytest.mark.parametrize("text", [AWK_STYLE, PROSE], ids=["awk-style", "prose"])
def test_office_008_a_careful_note_in_its_own_words_is_paid(text):
    assert _failed("office-008", OVERSPEND, text) == []


CATEGORIES = [line.split(",")[0] for line in
              (REPO / "servers" / "office" / "seed" / "data" / "q4_budget.csv").read_text().splitlines()[1:]]
LARGEST = "- Contractors: $4,200 over\n"
OTHERS = "- Software licences: $1,850\n- Client entertainment: $610\n- Utilities: $630\n- Team events: $420\n"
TOTAL = "Total: $7,710\n"
SPREAD = "".join(f"- {c}: " + " ".join(map(str, range(0, 2000, 10))) + "\n" for c in CATEGORIES if c != "Contractors")


@pytest.mark.parametrize(("text", "fails"), [
    ("- Contractors: " + " ".join(f"${n:,}" for n in range(0, 5001, 50)) + "\n" + OTHERS + TOTAL,
     ["largest overspend"]),
    (LARGEST + OTHERS + "Total: " + " ".join(str(n) for n in range(7000, 8001)) + "\n",
     ["total overspend of the flagged categories"]),
    (LARGEST + OTHERS + "".join(f"Total: ${n:,}\n" for n in range(7700, 7720)),
     ["total overspend of the flagged categories"]),
    (LARGEST + "Also over budget: " + ", ".join(CATEGORIES) + ".\n" + TOTAL,
     ["another category over 10%, with its overspend"] * 4),
    (LARGEST + SPREAD + TOTAL, ["another category over 10%, with its overspend"] * 4),
    (LARGEST + "Also over budget: " + ", ".join(CATEGORIES) + ".\nBy $1,850, $610, $630 and $420.\n" + TOTAL,
     ["another category over 10%, with its overspend"] * 4),
], ids=["figures-for-one-category", "figures-for-the-total", "a-total-per-line", "names-only", "figures-per-name",
        "names-apart-from-figures"])
def test_office_008_a_dump_of_figures_or_names_is_not_paid(text, fails):
    """Each dump stands in for one fact of an otherwise right note: only that fact's checks fail."""
    assert _failed("office-008", OVERSPEND, LARGEST + OTHERS + TOTAL) == []
    assert _failed("office-008", OVERSPEND, text) == fails


@pytest.mark.parametrize("text", [
    "# Verde Bikes pitch\n\n- Date: 2026-12-09, 11:00-12:00, in the Atlas room (moved: the Lantern Room is closed).\n",
    "- Room: ATLAS (8 seats, big screen), moved from the Lantern Room, closed 7-10 Dec.\n",
    "The pitch on 2026-12-09 at 11:00 is now in the\nAtlas Room.\n",
])
def test_office_011_a_brief_naming_the_new_room_in_its_own_words_is_paid(text):
    assert _failed("office-011", BRIEF, text) == []


@pytest.mark.parametrize("text", [
    "- Date: 2026-12-09, 11:00-12:00, in the Atlas, Birch or Lantern Room\n",
    "Rooms: Atlas Room / Birch Room / Lantern Room\n",
    "- Date: 2026-12-09, 11:00-12:00, in the Lantern Room\n",
])
def test_office_011_a_brief_naming_every_room_or_the_old_one_is_not_paid(text):
    assert _failed("office-011", BRIEF, text) == ["brief updated"]


FLAGGED = {"Contractors": "$4,200", "Software licences": "$1,850", "Client entertainment": "$610", "Utilities": "$630",
           "Team events": "$420"}
CANDIDATES = ", ".join([*FLAGGED.values(), "$720", "$55"])  # every over-budget category's overspend


@pytest.mark.parametrize("text", [
    LARGEST + OTHERS.replace("- Utilities: $630", "- Utilities: budget $4,200, spent $4,830, over by $630") + TOTAL,
    "Over budget: $4,200 on Contractors, $1,850 on Software licences, $610 on Client entertainment, $630 on "
    "Utilities and $420 on Team events. Combined: $7,710.\n",
    "Contractors $4,200, Software licences $1,850, Client entertainment $610, Utilities $630, Team events $420. "
    "Overall $7,710 = 4,200 + 1,850 + 610 + 630 + 420. Cloud hosting ($720) and Bank fees ($55) are within 10%.\n",
], ids=["context-figures-beside-a-row", "figures-before-names-and-combined", "one-sentence-per-row-and-the-sum"])
def test_office_008_careful_prose_with_context_figures_is_paid(text):
    assert _failed("office-008", OVERSPEND, text) == []


@pytest.mark.parametrize(("text", "fails"), [
    ("".join(f"- {name}: {CANDIDATES}\n" for name in FLAGGED) + TOTAL,
     ["largest overspend", *["another category over 10%, with its overspend"] * 4]),
    (LARGEST + "- Utilities: $630, $420\n- Software licences: $1,850\n- Client entertainment: $610\n"
     "- Team events: $420\n" + TOTAL, ["another category over 10%, with its overspend"]),
    (", ".join(FLAGGED) + ": " + CANDIDATES + ".\n" + TOTAL,
     ["largest overspend", *["another category over 10%, with its overspend"] * 4]),
    (CANDIDATES + ": " + ", ".join(FLAGGED) + ".\n" + TOTAL,
     ["largest overspend", *["another category over 10%, with its overspend"] * 4]),
    (LARGEST + OTHERS + "Total: $7,710 or $8,430\n", ["total overspend of the flagged categories"]),
    ("".join(f"- {name}: {figure}\n" for name in FLAGGED for figure in CANDIDATES.split(", ")) + TOTAL,
     ["largest overspend", *["another category over 10%, with its overspend"] * 4]),
], ids=["every-candidate-beside-every-category", "two-candidates-for-one", "names-then-figures",
        "figures-then-names", "two-totals", "a-line-per-candidate"])
def test_office_008_a_hedge_of_candidates_is_not_paid(text, fails):
    """A few figures on one fact pay nothing when another of them answers the question for something else."""
    assert _failed("office-008", OVERSPEND, text) == fails


def test_office_011_a_brief_that_adds_the_new_room_but_keeps_the_old_one_is_not_paid():
    brief = (REPO / "servers" / "office" / "seed" / BRIEF).read_text()
    assert _failed("office-011", BRIEF, brief) == ["brief updated"]
    assert _failed("office-011", BRIEF, brief + "\nUpdate: the pitch is moved to the Atlas Room.\n") == ["brief updated"]


def test_office_008_a_comparison_in_one_sentence_is_paid():
    text = ("Contractors ran $4,200 over (vs $1,850 for Software licences), the largest overspend.\n"
            + LARGEST + OTHERS + TOTAL)
    assert _failed("office-008", OVERSPEND, text) == []


def test_a_large_report_is_graded_in_linear_time():
    """A report the size of many pages at a checked path: every clause and name found once (core/facts.py).
    Grading was quadratic in a statement's figures: 98 KB took 32 s. Four times the text must cost about four
    times the time (quadratic would be 16), measured against a baseline in the same run, best of two."""
    line = "Contractors 4,200 Software licences 1,850, Utilities 630; "

    def cost(size: int) -> float:
        text = (line * (size // len(line) + 1))[:size]
        times = []
        for _ in range(2):
            start = time.monotonic()
            failed = _failed("office-008", OVERSPEND, text)
            times.append(time.monotonic() - start)
        assert failed  # a dump of rival figures earns nothing
        return min(times)

    small, large = cost(25_000), cost(100_000)
    assert large < 8 * small, (small, large)
