"""One guess: the values an answer or a note states as its guesses, so that stating several is a dump.

A count, a total or a time has no column of candidates to call a dump, and a note that names a new
row's id has candidates the world does not hold yet (ids a guesser would try past the last one). So
each value an answer states counts as one guess, however it is written: "3", "three", "twenty-one",
"16:00", "4 pm". What the answer presents as something else is context, not a guess, and is never
credited either: what a count is out of ("3 of 12"), a value named as not the answer ("not 2 but 3",
"the 12:30 lunch is cancelled"), the count of what a total sums ("$5,000 across 3 orders"), a part of
what a count counts ("3 orders; 1 is overdue"), a date marked as when something else happened ("I checked
on 2026-11-30"). Leaving a value out of the guesses is safe: a value that is not a guess cannot pay.
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

from envcraft.core.answers import NUMBER_WORD, date_spans, dates, kind_of, number_spans, time_spans, typed

_NOT_IT = re.compile(r"\b(?:old|previous(?:ly)?|former(?:ly)?|outdated|supersed(?:ed|es|ing)|not|no\s+longer|instead\s+of"
                     r"|replac(?:es|ed|ing)(?!\s+by))\s+(?:[A-Za-z]+\s+){0,2}[$#]?$",
                     re.I)  # "the old code 1193", "not 3 but 4", "(previously 5)": named as not the answer
_CALLED_OFF = re.compile(r"^(?:\s+[\w'-]+){0,4}\s+(?:is|was|were|has\s+been|got)\s+(?:now\s+)?"
                         r"(?:cancell?ed|called\s+off|postponed|rescheduled|moved)\b|^\s*(?:cancell?ed|called\s+off)\b",
                         re.I)  # "the 12:30 vendor lunch is cancelled": a value named as not going ahead
# "PO-17 (cancelled)": a status noted beside another value names it as not the answer; beside the expected value
# it is an annotation ("cjb-0031 (cancelled)" in a list of a crew's jobs), and the value is still claimed
_NOTED_OFF = re.compile(r"^\s*\((?:cancell?ed|called\s+off)\b", re.I)
_OF = re.compile(r"(?:\d|\b" + NUMBER_WORD + r")\s*(?:/\s*|(?:out\s+)?of\s+(?:all\s+)?(?:the\s+|our\s+)?)$",
                 re.I)  # "3 of 12", "3 out of the 12", "3/12", "three of the twelve"
# "$5,000 across 3 orders": the count of the rows a total sums (a whole number before a plural noun, after a
# preposition that a total is taken over) is context. It is never credited, so it cannot carry a dump either.
_OVER = re.compile(r"\b(?:across|over|from|among|between)\s+(?:the\s+|all\s+|these\s+|those\s+)?$", re.I)
_ROWS_AFTER = re.compile(r"^(?:\s+[a-z][a-z-]*){0,2}?\s+(?!(?:dollars|euros|pounds|cents|usd|eur|gbp)\b)[a-z][a-z-]*s\b",
                         re.I)  # "3 orders", "3 received orders"


def _not_a_guess(text: str, start: int, end: int) -> bool:
    before, after = text[:start], text[end:]
    return bool(_OF.search(before) or _NOT_IT.search(before) or _CALLED_OFF.match(after))


def _context_count(text: str, value: Decimal, start: int, end: int) -> bool:
    return value == value.to_integral_value() and bool(_OVER.search(text[:start]) and _ROWS_AFTER.match(text[end:]))


def _guess_spans(text: str, kind: str, words: bool = True) -> list:
    if kind == "time":
        return [s for s in time_spans(dates(text)[1])[0] if not _not_a_guess(text, s[1], s[2])]
    return [(value, start, end) for value, start, end in number_spans(text, words)
            if not (_not_a_guess(text, start, end) or _context_count(text, value, start, end))]


def guesses(text: str, kind: str, words: bool = True) -> set:
    """The values of `kind` ("number" or "time") that a text states as its answer (numbers in words too)."""
    return {value for value, _, _ in _guess_spans(text, kind, words)}


_MONEY_BEFORE = re.compile(r"(?:[$\u20ac\u00a3]|\b(?:usd|eur|gbp))\s?$", re.I)
_MONEY_AFTER = re.compile(r"^\s?(?:usd|eur|gbp|dollars|euros|pounds)\b", re.I)


def _money(text: str, start: int, end: int) -> bool:
    return bool(_MONEY_BEFORE.search(text[:start]) or _MONEY_AFTER.match(text[end:]))


def _things(text: str, value: Decimal, start: int, end: int) -> bool:
    return _whole(value) and bool(_ROWS_AFTER.match(text[end:]))


def _context_numbers(text: str, want: set, spans: list) -> set:
    """Numbers an answer states beside its value as what they are, not as other guesses of it: the amounts of a
    count's rows when the count is written bare ("2: T-11 ($4,500), T-25 ($7,000)"), and the count of rows
    beside a total with cents ("$62,287.05 for 4 orders"). Each reading pays one way only: "$2 or 3" pays for
    3 (a bare count beside an amount), never for 2 (written as money, a 3 beside it is another guess)."""
    def every(value, test) -> bool:
        return all(test(text, v, s, e) for v, s, e in spans if v == value)

    # bare and in digits: a count in words beside an amount ("two, $3") would pay both ways, since a number in
    # words is no guess once the value is written in digits
    bare = all(any(v == w and not _money(text, s, e) and re.search(r"\d", text[s:e]) for v, s, e in spans) for w in want)
    cents = all(not _whole(w) for w in want)
    return {v for v, _, _ in spans if v not in want
            and ((bare and every(v, lambda t, _v, s, e: _money(t, s, e))) or (cents and every(v, _things)))}


def _parts(want: set, spans: list) -> set:
    """The other numbers, when they are the working of the one expected total: each as often as written, they add
    up to it exactly ("1,070.10 in all: 982.37 settled and 87.73 still committed"; "5 tickets, 3 open and 2
    closed"). The total comes first, as a report gives it ("1, 2, 3" lists three counts), and only the largest
    number of a list can be the sum of all the rest, so a list of guesses still gets one guess."""
    total = next(iter(want)) if len(want) == 1 else None
    first = min((s for v, s, _ in spans if v == total), default=None)
    parts = [(v, s) for v, s, _ in spans if v != total]
    if first is None or len(parts) < 2 or any(s < first for _, s in parts):
        return set()
    return {v for v, _ in parts} if sum(v for v, _ in parts) == total else set()


# "3 orders for 2 suppliers", "3, up from 2 last week": a number that counts a thing the task never names is
# context beside a number of what it asks. Function words name nothing ("1 is overdue" stays a guess), nor do
# amounts of money or number words. If no number is left a guess this way, every number is one (so a count
# said in the answer's own words, "3 POs", still pays). Context is never credited, so only one value can pay.
_A_NUMBER_WORD = re.compile(NUMBER_WORD + r"\b", re.I)
_NEXT_WORD = re.compile(r"^\s*([A-Za-z][A-Za-z'-]*)")
_FUNCTION_WORDS = frozenset([
    "a", "an", "the", "and", "or", "but", "nor", "of", "in", "on", "at", "to", "for", "from", "by", "with",
    "without", "as", "is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "do", "does",
    "did", "will", "would", "can", "could", "may", "might", "must", "shall", "should", "it", "its", "they",
    "them", "their", "this", "that", "these", "those", "which", "who", "whom", "whose", "what", "when", "where",
    "why", "how", "all", "any", "each", "every", "some", "no", "not", "more", "less", "most", "least", "than",
    "then", "so", "too", "very", "just", "only", "also", "still", "yet", "up", "down", "out", "over", "under",
    "about", "after", "before", "into", "onto", "per", "total", "in-total", "percent", "if", "unless",
    "because", "since", "while", "though", "although", "including", "excluding", "except", "plus", "minus",
    "now", "today", "here", "there", "again", "already", "either", "neither", "both", "else", "i", "we", "you",
    "he", "she", "me", "us", "my", "our", "your", "his", "her", "let",
])


def _stem(word: str) -> str:
    word = word.lower()
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


# "3 orders; 1 is overdue", "3 orders, 1 of them overdue", "3, of which 1 is late": a number said of a part of
# what another number counts. It is context when that other number is a guess at least as large (a part is no
# larger than its whole); never credited, so "9 orders; 1 is late; 2 are late; 3 ..." pays for 9 alone.
_PART_AFTER = re.compile(r"^\s*(?:of\s+(?:them|these|those)\b|(?:is|are|was|were)\s+(?:still\s+|now\s+|already\s+)?"
                         r"(?:not\s+)?[a-z])", re.I)
_PART_BEFORE = re.compile(r"\b(?:of\s+(?:which|them|these|those)|(?:among|out\s+of)\s+(?:them|these|those))[,:]?\s+$",
                          re.I)


def _part(text: str, start: int, end: int) -> bool:
    return bool(_PART_AFTER.match(text[end:]) or _PART_BEFORE.search(text[:start]))


def _named_things(text: str, spans: list, given: str) -> list:
    """The spans that count something the task names, or nothing: those a count's guesses are among."""
    known = {_stem(w) for w in re.findall(r"[A-Za-z][A-Za-z'-]*", given)}

    def asked(start: int, end: int) -> bool:
        following = _NEXT_WORD.match(text[end:])
        word = following.group(1).lower() if following else ""
        return (not word or word in _FUNCTION_WORDS or _stem(word) in known or _money(text, start, end)
                or _A_NUMBER_WORD.match(word) is not None)

    kept = [span for span in spans if asked(span[1], span[2])]
    wholes = [value for value, start, end in kept if not _part(text, start, end)]
    parts = [span for span in kept if _part(text, span[1], span[2]) and any(span[0] <= w for w in wholes)]
    return [span for span in kept if span not in parts] or spans


def _all(text: str, kind: str) -> set:
    """Every value of `kind` a text writes, guess or not (what the task states itself)."""
    spans = time_spans(dates(text)[1])[0] if kind == "time" else number_spans(text)
    return {value for value, _, _ in spans}


def _whole(value: Decimal) -> bool:
    return value == value.to_integral_value()


# "I checked on 2026-11-30", "(as of 2026-11-30)", "the action was issued 2026-10-09": a date the answer marks as
# when something else happened is context beside the date it gives, unless the marking word is one the task asks
# about ("When was it issued?" makes "issued 2026-10-09" the answer). Context is never credited, and when no date
# is left a guess this way every date is one, so only one date can ever pay ("checked on" before each of a dump's
# dates leaves none a guess: all are, and the dump fails).
_DATE_CONTEXT = re.compile(
    r"\b(?:as\s+(?:of|at)|today(?:'s\s+date)?(?:\s+is|,)?|(?:the\s+)?current\s+date\s+is"
    r"|(?P<verb>since|checked|looked|verified|confirmed|updated|issued|opened|created|filed|logged|submitted|raised|sent"
    r"|received|signed|dated|placed|booked|requested|reported|written)"
    r"(?:\s+(?:it|this|that|them|these|the\s+\w+))?(?:\s+(?:on|at))?)\s*$", re.I)


def _date_context(text: str, start: int, task_words: set[str]) -> bool:
    marked = _DATE_CONTEXT.search(text[:start])
    return bool(marked) and _stem(marked.group("verb") or "") not in task_words


def _one_date(answer: str, expected: list[str], given: str) -> bool:
    """Each expected date (or a date and time's day) stated, and no other date besides the question's own: a date
    read two ways (11/12/2026) is one guess, credited if either reading is expected."""
    want = {date.fromisoformat(re.split(r"[ T]", e.strip())[0]) for e in expected if kind_of(e) in ("date", "datetime")}
    if not want:
        return True
    spans = [s for s in date_spans(answer)[0] if not _not_a_guess(answer, s[1], s[2])]
    task_words = {_stem(w) for w in re.findall(r"[A-Za-z][A-Za-z'-]*", given)}
    spans = [s for s in spans if not _date_context(answer, s[1], task_words)] or spans
    free = {day for days, _, _ in date_spans(given)[0] for day in days}
    return want <= {day for days, _, _ in spans for day in days} and all(
        days & (want | free) for days, _, _ in spans)


def stands_alone(answer: str, expected: list[str], given: str = "") -> bool:
    """The answer states each expected number or time as a guess, and no other guess of its class besides what
    `given` (the question's own text, the task's other expected values) states. A number's class is whole or
    not: a count is whole, so "$275,925.12 across 8 orders" states one total."""
    if not _one_date(answer, expected, given):
        return False
    for kind in ("number", "time"):
        want = {typed(e, kind) for e in expected if kind_of(e) == kind}
        if not want:
            continue
        spans = _guess_spans(answer, kind)
        digits = _guess_spans(answer, kind, words=False) if kind == "number" else []
        if kind == "number" and want <= {v for v, _, _ in digits}:
            spans = digits  # the value written in digits: the answer's prose ("before two closed") is not a guess;
            # a value in words is one guess among every number (so only one value can ever pay)
        written = spans  # every number written, context or not: the parts of a total (_parts)
        if kind == "number":
            spans = _named_things(answer, spans, given)
        stated = {v for v, _, _ in spans}
        others = stated - want - _all(given, kind)
        if kind == "number":
            others -= _context_numbers(answer, want, spans)
            others -= _parts(want, written)
        if not want <= stated or others:
            return False
    return True


def disowned(text: str, values: list[str], expected: str = "") -> str:
    """`text` with each mention of `values` that names it as not the answer ("not PO-17", "PO-17 (cancelled)")
    blanked: such a mention is context, neither a second guess nor credit. The `expected` value with a status
    noted beside it ("cjb-0031 (cancelled)") is annotated, not disowned; and once the expected value carries the
    note, the note annotates every value it follows: "new (cancelled), triaged (cancelled), ..." is every guess
    (a note read as annotation or as disowning depending on which value is right pays any dump so written)."""
    def mentions(value: str, any_form: bool = False) -> list[re.Match]:
        parts = re.findall(r"[^\W_]+", value) if any_form else [value]  # "closed with x" as closed_with_x too
        return list(re.finditer(r"(?<![\w-])" + r"[\W_]+".join(map(re.escape, parts)) + r"(?![\w-])", text, re.I))

    annotates = bool(expected.strip()) and any(_NOTED_OFF.match(text[m.end():])
                                               for m in mentions(expected.strip(), any_form=True))
    for value in sorted({v.strip() for v in values if v.strip()}, key=len, reverse=True):
        for found in reversed(mentions(value)):
            noted = value != expected.strip() and not annotates and _NOTED_OFF.match(text[found.end():])
            if noted or _not_a_guess(text, found.start(), found.end()):
                text = text[:found.start()] + " " * (found.end() - found.start()) + text[found.end():]
    return text


_DIGITS = re.compile(r"\d+")


def shaped(text: str, value: str) -> list[str]:
    """The words of `text` written in the shape of the id `value` (its letters, its digits any digits): "spc-0047"
    makes "spc-0048" and "SPC-1" the same kind of value. Empty if `value` has no letter prefix and digits."""
    if not re.fullmatch(r"[A-Za-z][\w-]*\d[\w-]*", value.strip()):
        return []
    parts = _DIGITS.split(value.strip())
    pattern = r"\d+".join(re.escape(p) for p in parts)
    return list(dict.fromkeys(m.group(0) for m in re.finditer(r"(?<![\w-])" + pattern + r"(?![\w-])", text, re.I)))


__all__ = ["disowned", "guesses", "shaped", "stands_alone"]
