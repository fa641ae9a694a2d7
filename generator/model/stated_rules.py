"""Rules an environment's docs state, and the policy each one comes from.

A rule lives once, as a blueprint policy. A workspace doc states it through a placeholder,
`{{rule:<policy id>}}`, that `expand` (called by seed.seed_files) replaces with the policy's text, so the
doc, SKILL.md, the server instructions and the enforcing check all come from the same line. A sentence
of a doc that reads as a rule ("must", "never", "only", "at most", ...) but is written as plain prose has
no policy behind it: `unmapped(bp)` lists such sentences, and tests/test_policies.py keeps the list empty.

    statements(bp) -> [Statement(path="docs/counter_procedures.md", text="...", policy="licence_valid_through_return"), ...]
    unmapped(bp)   -> [Statement(..., policy=None), ...]

Tables are read as reference data (an error -> action lookup, a fee schedule) and code blocks as examples;
headings are titles. Everything else in a Markdown doc is split into sentences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from envcraft.generator.model.blueprint import Blueprint

PLACEHOLDER = re.compile(r"\{\{rule:([a-z][a-z0-9_]*)\}\}")
# The one list of words that make a sentence read as a rule: the rule lint (generator/audit/rule_lint.py) reads every
# text an agent sees with it, `statements` a doc's prose.
NORMATIVE = re.compile(
    r"\b(must|never(?! (?:\w+ed|came|showed|went|began|ran|made|got|left)\b)|(?<!-)only|cannot|can't|may not|not allowed|not accepted|at most|at least|no more than|"
    r"no later than|no earlier than|up to|within|before|is required|are required|always|do not|don't|forbidden|"
    r"prohibited|needs? to|has to|have to|limited to|mandatory|requires?|(?<!ed )instead of)\b"
    # a need stated as a fact about a kind of record ("Joint replacements need a room with laminar flow"),
    # not a record's field ("by need"), what someone happens to need ("cases that need", "you need") or a
    # request's data ("shift 06:30, needs a wheelchair lift")
    r"|(?<!\bthat )(?<!\bthey )(?<!\byou )(?<!\blonger )(?<!, )\bneeds? (?=(?:an?|both|no)\b|\d)"
    r"|\brequired(?=[).,;]|$)|\bno (?:more|fewer|less) \w+(?: \w+)? than\b"
    r"|\b(?:maximum|minimum)\b(?=:? ?\d| [a-z ]{1,30}: ?\d)"  # a bound, not a field ("the per-note maximum")
    r"|\b\d{1,2}:\d{2}\s*(?:-|–|to)\s*\d{1,2}:\d{2}\b", re.I)
CODE = re.compile(r"`[^`]*`")
BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"`(*{])")


@dataclass(frozen=True)
class Statement:
    path: str
    text: str  # the sentence as the doc's author wrote it (placeholders left in)
    policy: str | None  # the policy a placeholder names; None: prose with nothing behind it
    start: int = 0  # where the sentence sits in the raw file content
    end: int = 0


def normative(text: str) -> bool:
    """Reads as a rule: a normative word outside code spans, or an hours range. A line ending in a colon
    introduces the items after it ("Hard criteria (all must hold):"), which are read themselves."""
    return not text.rstrip().endswith(":") and bool(NORMATIVE.search(CODE.sub(" ", text)))


def expand(bp: Blueprint, text: str) -> str:
    """A doc's text with each `{{rule:id}}` replaced by that policy's rule (an unknown id is an error)."""
    rules = {p.id: p.rule for p in bp.policies}

    def one(match: re.Match) -> str:
        if match.group(1) not in rules:
            raise KeyError(f"{bp.id}: a doc cites rule {match.group(1)!r}, which is not a policy of the blueprint")
        return rules[match.group(1)]

    return PLACEHOLDER.sub(one, text)


def blocks(content: str) -> list[tuple[int, int]]:
    """Spans of the prose blocks of a Markdown text: bullets (with their continuation lines) and paragraphs."""
    out: list[tuple[int, int]] = []
    start = end = None
    fenced = False
    offset = 0
    for line in content.splitlines(keepends=True):
        here, offset = offset, offset + len(line)
        bare = line.strip()
        if bare.startswith("```"):
            fenced = not fenced
        skip = fenced or bare.startswith(("```", "#", "|")) or not bare
        if skip or BULLET.match(line):
            if start is not None:
                out.append((start, end))
            start = None
            if skip:
                continue
        if start is None:
            start = here + (BULLET.match(line).end() if BULLET.match(line) else len(line) - len(line.lstrip()))
        end = here + len(line.rstrip())
    if start is not None:
        out.append((start, end))
    return out


def sentences(content: str, whole: int = 320) -> list[tuple[int, int]]:
    """Spans to read as statements: a bullet or paragraph whole (a rule keeps its context: "Shipped orders
    cannot" needs the sentence before it), a long one sentence by sentence."""
    out = []
    for start, end in blocks(content):
        if end - start <= whole:
            out.append((start, end))
            continue
        cut = start
        for match in SENTENCE_END.finditer(content, start, end):
            out.append((cut, match.start()))
            cut = match.end()
        out.append((cut, end))
    return out


def statements(bp: Blueprint) -> list[Statement]:
    """Every rule a Markdown doc of the environment states: through a placeholder, or as bare prose."""
    found = []
    for file in bp.files:
        if file.content is None or file.format != "md":
            continue
        for start, end in sentences(file.content):
            text = file.content[start:end]
            cited = PLACEHOLDER.findall(text)
            found += [Statement(file.path, text, policy, start, end) for policy in cited]
            bare = PLACEHOLDER.sub(" ", text)
            if any(normative(part) for part in SENTENCE_END.split(" ".join(bare.split()))):
                found.append(Statement(file.path, " ".join(text.split()), None, start, end))
    return found


def unmapped(bp: Blueprint) -> list[Statement]:
    return [s for s in statements(bp) if s.policy is None]


__all__ = ["NORMATIVE", "PLACEHOLDER", "Statement", "expand", "normative", "statements", "unmapped"]
