"""Report facts: a file check about nothing in the world (a report's figures) grades what the file states, not
how it is worded.

Each expected value is read by its form. A figure ("4,200", "7710") is a number, matched as a whole value in
any common format ("$4,200", "4200", "4,200.00", "USD 4,200"), never as a substring ("4,200" is not in
"34,200"). Anything else is a phrase, matched from the start of a word after normalizing case, spacing and line
breaks, markdown marks, underscores and hyphens ("client-entertainment", "**Client\\nentertainment**"); its end
may run on into a longer word, so "Software licen" reads "licences" and "licenses".

A check that pairs phrases with figures is one fact ("Contractors" is "4,200" over): some statement (a line,
or a sentence of one) must name every phrase and state every figure. Figures are what a dump lists, so the
statements naming the check's phrases may state at most MAX_FACT_FIGURES distinct numbers together: a line or
a run of lines offering every plausible figure ("Contractors: 1 2 3 ... 5000", "Total: $7,709 / Total: $7,710
...") states none of them. A check of phrases alone (a CSV line, an email) must find each phrase in the file.

A hedge of a few figures is a dump too ("Team events: 4,200, 1,850, 630, 420"). A check's `rivals` are what
answers its question for something else (the other categories' overspends and their names, the sum of another
set of categories): no statement may give a rival figure to the check's phrases, neither the one that pays nor
another (a line per candidate is a hedge too). A statement about several things is cut where the named thing
changes: each figure belongs to the name it follows, or, when the statement opens with a figure, to the name it
precedes ("Software licences were $1,850 over, Utilities $630"; "$1,850 on Software licences and $630 on
Utilities"). Figures that are no rival (a row's budget and actual beside its overspend, a percentage) are
context and cost nothing; so is a rival figure the check's own row also holds (`context`: Utilities' budget is
$4,200, Contractors' overspend). A phrase may have other wordings (`aliases`: "total" is also "combined").
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict
from decimal import Decimal

from envcraft.core.answers import number_spans

MAX_FACT_FIGURES = 8  # a table row and a summary sentence about one thing state 4-6; a dump states dozens

_FIGURE = re.compile(r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")
_MARKS = re.compile(r"[\s*_`#|>~-]+")  # markdown emphasis, table bars, headings, hyphens and spacing: one space
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_BLOCK_LINE = re.compile(r"\s*(?:[|#>*+-]|\d+[.)]\s)")  # a table row, heading, quote or list item: a line of its own
_CLAUSE_END = re.compile(r"[;()\[\]]|[,:](?=\s)|\s[\u2013\u2014-]\s")  # not "4,200" nor "11:00"
_GOES_ON = re.compile(r"\s*[a-z]")
_BREAKS_OFF = re.compile(r"(?:[,(]|\b(?:the|a|an|of|in|on|at|to|and|or|for|by|with|is|are|was|were))\s*$", re.I)


def _figure(value: str) -> Decimal | None:
    value = value.strip()
    return Decimal(value.replace(",", "")) if _FIGURE.fullmatch(value) else None


def _normal(text: str) -> str:
    return " " + _MARKS.sub(" ", text.casefold()).strip() + " "


def _spans(statement: str, phrase: str) -> list[tuple[int, int]]:
    """Where `statement` names `phrase` (from the start of a word, through any case, spacing or markdown)."""
    words = _normal(phrase).split()
    ends = r"(?!\d)" if words and words[-1][-1:].isdigit() else ""  # "555 0103" is not in "555 01034"
    pattern = r"(?<![^\W_])" + _MARKS.pattern.join(map(re.escape, words)) + ends
    return [m.span() for m in re.finditer(pattern, statement, re.IGNORECASE)]


def _names(statement: str, wordings: list[str]) -> bool:
    return any(_spans(statement, wording) for wording in wordings)


def _own_share(statement: str, own: list[str], rivals: list[str], candidates: set[Decimal]) -> set[Decimal]:
    """The candidate figures `statement` gives to the `own` phrases: a figure in a clause naming one thing is
    that thing's ("Contractors ran $4,200 over (vs $1,850 for Software licences)"); otherwise the statement is
    cut where the named thing changes, each figure going to the name it follows, or to the one it precedes when
    the statement opens with a figure. Linear in the statement (but for sorting): a report of any size is read
    in one pass, each figure's clause and neighbouring names found by bisection."""
    named = sorted((start, end, owner) for owner, wordings in [(-1, own), *enumerate([r] for r in rivals)]
                   for wording in wordings for start, end in _spans(statement, wording))
    figures = [(start, value) for value, start, _ in number_spans(statement, words=False) if value in candidates]
    if not named:
        return set()
    leads = bool(figures) and figures[0][0] < named[0][0]
    cuts = [0, *(m.end() for m in _CLAUSE_END.finditer(statement)), len(statement) + 1]
    clauses: dict[int, set[int]] = defaultdict(set)  # clause index -> the owners named wholly inside it
    for start, end, owner in named:
        clause = bisect_right(cuts, start) - 1
        if end <= cuts[clause + 1]:
            clauses[clause].add(owner)
    keyed = sorted(((end if leads else start), owner) for start, end, owner in named)
    keys = [key for key, _ in keyed]
    share: set[Decimal] = set()
    for start, value in figures:
        in_clause = clauses.get(bisect_right(cuts, start) - 1, set())
        split = bisect_right(keys, start)  # names before the figure: keyed[:split]; after it: keyed[split:]
        if leads:
            owner = keyed[split][1] if split < len(keyed) else keyed[split - 1][1]
        else:
            owner = keyed[split - 1][1] if split else keyed[0][1]
        if (in_clause == {-1}) if len(in_clause) == 1 else owner == -1:
            share.add(value)
    return share


def statements(text: str) -> list[str]:
    """The file's sentences: each line, split where a sentence ends, and a sentence wrapped onto the next line
    joined back (that line goes on in lower case, or this one breaks off after a comma or a little word)."""
    lines: list[list[str]] = []  # each line's parts, joined once at the end: linear however many wrap
    for line in text.splitlines():
        if lines and line.strip() and not _BLOCK_LINE.match(line) and (
                _GOES_ON.match(line) or _BREAKS_OFF.search(lines[-1][-1])):
            lines[-1].append(line.strip())
        else:
            lines.append([line])
    return [part for parts in lines for part in _SENTENCE_END.split(" ".join(parts)) if part.strip()]


def states_fact(text: str, values: list[str], rivals: list[str] = (), context: list[str] = (),
                aliases: dict[str, list[str]] | None = None) -> bool:
    """Whether `text` states the fact `values` make and no rival figure beside its phrases (module docstring)."""
    figures = {f for f in map(_figure, values) if f is not None}
    wordings = [[v, *(aliases or {}).get(v, [])] for v in values if _figure(v) is None]
    if not figures:
        return all(_names(text, phrase) for phrase in wordings)
    about = [s for s in statements(text) if all(_names(s, phrase) for phrase in wordings)]
    stated = [{value for value, _, _ in number_spans(s, words=False)} for s in about]
    if len(set().union(*stated)) > MAX_FACT_FIGURES:
        return False
    rival_figures = {f for f in map(_figure, rivals) if f is not None}
    given = figures | {f for f in map(_figure, context) if f is not None}  # a rival's value the own row also holds
    rival_names = [r for r in rivals if _figure(r) is None]
    own = [w for phrase in wordings for w in phrase]
    shares = [_own_share(s, own, rival_names, given | rival_figures) for s in about]
    hedged = any(share & (rival_figures - given) for share in shares)  # in any statement: one per line is a hedge too
    return not hedged and any(figures <= share for share in shares)


__all__ = ["MAX_FACT_FIGURES", "statements", "states_fact"]
