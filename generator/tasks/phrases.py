"""What a person says instead of naming a tool: the state a row should end in, in plain words.

A user does not say "transition the claim to approved"; they say "the claim got the green light".
GOALS maps a target status to such phrasings ({x} is the row, as the request names it). A phrasing
never contains the status word itself. When an entity offers two transitions of the same meaning
(approve and accept; cancel and withdraw) the plain phrasing would be ambiguous, so the request
names the status instead (see `ambiguous`).

  phrases_common.py     several phrasings each for the states most requests name
  phrases_long_tail.py  one phrasing for every other status the catalog's state machines use
  phrase_groups.py      statuses that read the same to a person (`ambiguous`)
  phrase_reverse.py     the reverse check: each phrasing reads as exactly one state (`misreadings`)
"""

from __future__ import annotations

import re

from envcraft.generator.tasks.phrase_groups import GROUPS, ambiguous, group_of
from envcraft.generator.tasks.phrase_reverse import misreadings, phrase_key
from envcraft.generator.tasks.phrases_common import COMMON, MORE, THEIRS
from envcraft.generator.tasks.phrases_long_tail import LONG_TAIL

GOALS: dict[str, tuple[str, ...]] = {**COMMON, **LONG_TAIL}
for _status, _more in MORE.items():
    GOALS[_status] = GOALS[_status] + _more


def goal_phrases(status: str, theirs: bool = False) -> tuple[str, ...]:
    """The phrasings of a state; `theirs`: the state records the other side's answer (`answered_by_them`)."""
    return THEIRS[status] if theirs and status in THEIRS else GOALS.get(status, ())


def answered_by_them(to_status: str | None, description: str) -> bool:
    """A transition that records someone else's yes or no ("Record the tenant declining the offer", "Volunteer
    accepts the case"), not the desk's own ("Accept a received order", "Decline a submission")."""
    return to_status in THEIRS and not description.lower().startswith(("accept", "decline"))


# A phrasal verb puts a pronoun between verb and particle: "call the booking off" or "call off the booking", but
# only "call it off". Phrasings are written for a noun ("call off {x}"); `say` moves the particle for a pronoun.
PRONOUNS = frozenset({"it", "them", "him", "her"})
PARTICLE_FIRST = re.compile(r"\b(off|up|out|down|back|away) \{x\}")


def say(phrase: str, target: str) -> str:
    """`phrase` with the row slot filled by `target`, a pronoun placed before a phrasal verb's particle."""
    if target in PRONOUNS:
        phrase = PARTICLE_FIRST.sub(r"{x} \1", phrase)
    return phrase.format(x=target)


__all__ = ["GOALS", "GROUPS", "THEIRS", "ambiguous", "answered_by_them", "goal_phrases", "group_of", "misreadings", "phrase_key", "say"]
