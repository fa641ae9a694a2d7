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
"""

from __future__ import annotations

import re
from decimal import Decimal

from envcraft.core.answers import number_spans

MAX_FACT_FIGURES = 8  # a table row and a summary sentence about one thing state 4-6; a dump states dozens

_FIGURE = re.compile(r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")
_MARKS = re.compile(r"[\s*_`#|>~-]+")  # markdown emphasis, table bars, headings, hyphens and spacing: one space
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_BLOCK_LINE = re.compile(r"\s*(?:[|#>*+-]|\d+[.)]\s)")  # a table row, heading, quote or list item: a line of its own
_GOES_ON = re.compile(r"\s*[a-z]")
_BREAKS_OFF = re.compile(r"(?:[,(]|\b(?:the|a|an|of|in|on|at|to|and|or|for|by|with|is|are|was|were))\s*$", re.I)


def _figure(value: str) -> Decimal | None:
    value = value.strip()
    return Decimal(value.replace(",", "")) if _FIGURE.fullmatch(value) else None


def _normal(text: str) -> str:
    return " " + _MARKS.sub(" ", text.casefold()).strip() + " "


def _names(statement: str, phrase: str) -> bool:
    phrase = _normal(phrase).strip()
    ends = r"(?!\d)" if phrase[-1:].isdigit() else ""  # "555 0103" is not in "555 01034"
    return re.search(r"(?<![^\W_])" + re.escape(phrase) + ends, _normal(statement)) is not None


def statements(text: str) -> list[str]:
    """The file's sentences: each line, split where a sentence ends, and a sentence wrapped onto the next line
    joined back (that line goes on in lower case, or this one breaks off after a comma or a little word)."""
    lines: list[str] = []
    for line in text.splitlines():
        if lines and line.strip() and not _BLOCK_LINE.match(line) and (
                _GOES_ON.match(line) or _BREAKS_OFF.search(lines[-1])):
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    return [part for line in lines for part in _SENTENCE_END.split(line) if part.strip()]


def states_fact(text: str, values: list[str]) -> bool:
    """Whether `text` states the fact `values` make (module docstring)."""
    figures = [f for f in map(_figure, values) if f is not None]
    phrases = [v for v in values if _figure(v) is None]
    if not figures:
        whole = _normal(text)
        return all(_names(whole, phrase) for phrase in phrases)
    about = [s for s in statements(text) if all(_names(s, phrase) for phrase in phrases)]
    stated = [{value for value, _, _ in number_spans(s, words=False)} for s in about]
    if len(set().union(*stated)) > MAX_FACT_FIGURES:
        return False
    return any(set(figures) <= found for found in stated)


__all__ = ["MAX_FACT_FIGURES", "statements", "states_fact"]
