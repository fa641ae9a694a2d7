"""The reverse check of the state phrasings: a phrasing a request uses means one state and no other."""

from __future__ import annotations

import re

from envcraft.generator.tasks.phrase_groups import group_of


def phrase_key(phrase: str) -> str:
    """A phrasing as a reader compares it: lowercase words, the row slot and punctuation gone."""
    return " ".join(re.sub(r"[^a-z0-9' ]", " ", phrase.lower().replace("{x}", " ")).split())


def _reads(key: str, status: str, goals: dict[str, tuple[str, ...]]) -> bool:
    """Whether a reader could take the words `key` for `status`: its own phrasing, or its name said plainly."""
    said = f" {key} "
    return any(phrase_key(p) == key or f" {phrase_key(p)} " in said for p in goals.get(status, ())) \
        or f" {status.replace('_', ' ')} " in said


def misreadings(goals: dict[str, tuple[str, ...]], machines: list[list[str]] | None = None) -> list[str]:
    """Phrasings that do not map back to exactly one state, each as "phrase: meant A, reads as B":
    - across the table, a phrasing two states share, unless they are one state (a group of GROUPS: an
      entity holding two of a group gets the status named instead, see `ambiguous`);
    - within each state machine (an entity's status values), a phrasing of one state that a reader could
      take for another state of the same machine: its phrasing inside, or its name said plainly."""
    out = []
    for status, phrases in goals.items():
        for phrase in phrases:
            key = phrase_key(phrase)
            for other in goals:
                if other != status and other not in group_of(status) and any(phrase_key(p) == key for p in goals[other]):
                    out.append(f"{phrase!r}: meant {status}, reads as {other}")
    for states in machines or []:
        for status in states:
            for phrase in goals.get(status, ()):
                key = phrase_key(phrase)
                out += [f"{phrase!r}: meant {status}, reads as {other} (machine {', '.join(states)})"
                        for other in states if other != status and other not in group_of(status) and _reads(key, other, goals)]
    return sorted(set(out))
