"""Typed answers: read the values of the asked type out of a free-form answer, and compare values.

An expected answer is typed by its own form: a date (2026-11-13), a date and time (2026-11-13
12:30), a time (12:30), a number (1234.5), or text (a name, an enum value, an email, an id).
The answer is parsed for values of that type in the common ways people write them, so
"Nov 13, 2026", "13 November 2026" and "11/13/2026" all read as 2026-11-13, "$1,234.50" as
1234.5, "In Progress" as in_progress. Numbers match as whole values, never as substrings ("12"
is not in "120" or "ord-0012"). Text matches whole words after normalizing case, spacing,
underscores/hyphens and surrounding punctuation; a value of several words may take an article between them
("closed with a discrepancy" is closed_with_discrepancy).
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date
from decimal import Decimal, InvalidOperation

MAX_ANSWER_CHARS = 2000  # longer answers are not graded: finish() says so (room for a careful full report)

MONTHS = {m: i + 1 for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                                             "dec"))}
_MONTH = (r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?"
          r"|nov(?:ember)?|dec(?:ember)?)(?![a-z])\.?")  # the names themselves: "NovaSeq 6000" is no date
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_MDY_NAMED = re.compile(_MONTH + r"\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})(?!\d)", re.I)
_DMY_NAMED = re.compile(r"(?<!\d)(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r",?\s+(\d{4})(?!\d)", re.I)
_NUMERIC_DATE = re.compile(r"(?<![\d/.-])(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})(?![\d/.-])")
_HALF = r"\s*([ap])\.?m\.?(?![a-z])"
_TIMES = (re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(?::\d{2})?(?:" + _HALF + r")?(?!\d)", re.I),  # 12:30, 12:30 pm
          re.compile(r"(?<![\d:.])(\d{1,2})[.h](\d{2})(?:" + _HALF + r")(?!\d)", re.I),  # 12.30pm
          re.compile(r"(?<![\d:.])(\d{1,2})h(\d{2})()(?!\d)", re.I),  # 12h30
          re.compile(r"(?<![\d:.])(\d{1,2})()" + _HALF, re.I))  # 12 pm
_ID = re.compile(r"(?<![\w-])[A-Za-z][\w-]*\d[\w-]*")  # T-104, PO-00004, INV-2026-0042, net30, Q4: names, not numbers
_CAPITAL_MONTH = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?"
                  r"|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)(?![a-z])\.?")  # capitalized: "3 may be" is prose
_MONTH_DAY = re.compile(_CAPITAL_MONTH + r"\s+\d{1,2}(?:st|nd|rd|th)?(?!\d)|(?<!\d)\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?"
                        + _CAPITAL_MONTH + r"(?![a-z])")  # a day without its year: "as of Nov 30"
_NUMBER = re.compile(r"(?<![\w.])[-\u2212]?(?:\d{1,3}(?:[,\u202f]\d{3})+|\d+)(?:\.\d+)?(?![\d])(?!\.\d)")
_SMALL = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
          "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]  # numbers in words
_TENS = {w: 10 * i for i, w in enumerate(["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"], 2)}
_WORD_VALUE = {**{w: i for i, w in enumerate(_SMALL)}, **_TENS, "hundred": 100, "thousand": 1000}
_WORD = re.compile(r"(?<!\w)(" + "|".join(sorted(_WORD_VALUE, key=len, reverse=True)) + r")(?![\w])", re.I)
NUMBER_WORD = r"(?:" + "|".join(_WORD_VALUE) + r")"
_JOIN = re.compile(r"^(?:-|\s+|\s+and\s+)$", re.I)  # what may stand between two words of one number
# "one" as a pronoun: "one of them", "the one", "no one", "one by one"; as a count it is still read ("one ticket")
_PRONOUN_BEFORE = re.compile(r"\b(?:the|no|each|every|any|which|that|this|another|some|someone)\s+$", re.I)
_PRONOUN_AFTER = re.compile(r"^(?:\s+(?:of|by|another|or\s+(?:two|more|other))\b|-[a-z])", re.I)  # "one-off"

_TRAILING = ".!?;:,\"'`)]}"


def kind_of(expected: str) -> str:
    value = expected.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return "date"
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?", value):
        return "datetime"
    if re.fullmatch(r"\d{1,2}:\d{2}", value):
        return "time"
    if re.fullmatch(r"-?\d+(\.\d+)?", value):
        return "number"
    return "text"


def _day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _month(word: str) -> int:
    return MONTHS[word.lower()[:3]]


def date_spans(text: str) -> tuple[list[tuple[frozenset[date], int, int]], str]:
    """(readings, start, end) of each date written in a common form (11/12/2026 reads two ways, one date written),
    and the text with them blanked out."""
    found: list[tuple[frozenset[date], int, int]] = []

    def take(days: set, match: re.Match) -> str:
        if days - {None}:
            found.append((frozenset(days - {None}), match.start(), match.end()))
        return " " * len(match.group(0))

    text = _ISO_DATE.sub(lambda m: take({_day(int(m[1]), int(m[2]), int(m[3]))}, m), text)
    text = _MDY_NAMED.sub(lambda m: take({_day(int(m[3]), _month(m[1]), int(m[2]))}, m), text)
    text = _DMY_NAMED.sub(lambda m: take({_day(int(m[3]), _month(m[2]), int(m[1]))}, m), text)
    # 11/13/2026 or 13/11/2026: whichever reading is a real date
    text = _NUMERIC_DATE.sub(lambda m: take({_day(int(m[3]), int(m[1]), int(m[2])), _day(int(m[3]), int(m[2]), int(m[1]))},
                                            m), text)
    return found, text


def dates(text: str) -> tuple[set[date], str]:
    """Dates written in common forms, and the text with them blanked out."""
    found, text = date_spans(text)
    return {day for days, _, _ in found for day in days}, text


def time_spans(text: str) -> tuple[list[tuple[str, int, int]], str]:
    """(HH:MM, start, end) of each time of day (12-hour forms converted), and the text with them blanked out."""
    found: list[tuple[str, int, int]] = []

    def take(m: re.Match) -> str:
        hour, minute, half = int(m[1]), int(m[2] or 0), m[3]
        if half:
            hour = hour % 12 + (12 if half.lower() == "p" else 0)
        if hour < 24 and minute < 60:
            found.append((f"{hour:02d}:{minute:02d}", m.start(), m.end()))
        return " " * len(m.group(0))

    for pattern in _TIMES:
        text = pattern.sub(take, text)
    return found, text


def times(text: str) -> tuple[set[str], str]:
    """Times of day as HH:MM (12-hour forms converted), and the text with them blanked out."""
    found, text = time_spans(text)
    return {value for value, _, _ in found}, text


def _blank(match: re.Match) -> str:
    return " " * len(match.group(0))


def _words(text: str) -> list[tuple[Decimal, int, int]]:
    """(value, start, end) of each number written in words: "three", "twenty-one", "one hundred and five". Two
    words that cannot form one number ("one two") are two numbers, so a dump in words is read as one."""
    out: list[tuple[Decimal, int, int]] = []
    total = current = 0
    last = start = end = None

    def close() -> None:
        nonlocal total, current, last
        if last is not None:
            out.append((Decimal(total + current), start, end))
        total = current = 0
        last = None

    for match in _WORD.finditer(text):
        word, value = match.group(1).lower(), _WORD_VALUE[match.group(1).lower()]
        joined = last is not None and _JOIN.match(text[end:match.start()]) is not None
        kind = "scale" if value >= 100 else "tens" if word in _TENS else "small"
        if not joined or not _continues(last, kind, word, current):
            close()
            start = match.start()
        if word == "hundred":
            current = (current or 1) * 100
        elif word == "thousand":
            total, current = (total + (current or 1)) * 1000, 0
        else:
            current += value
        last, end = (word if kind == "scale" else kind), match.end()
    close()
    return [(v, s, e) for v, s, e in out if not (v == 1 and e - s == 3 and _pronoun(text, s, e))]


def _pronoun(text: str, start: int, end: int) -> bool:
    """A lone "one" that stands for a thing, not a count: "one of them", "the one", "one-off", "I missed one." (at
    a clause's end it is a count only as the whole answer: "One.")."""
    if _PRONOUN_BEFORE.search(text[:start]) or _PRONOUN_AFTER.match(text[end:]):
        return True
    return bool(re.match(r"\s*(?:[.,;:!?)]|$)", text[end:])) and text.strip(" .!\n").lower() != "one"


def _continues(last: str | None, kind: str, word: str, current: int) -> bool:
    """Whether `word` extends the number read so far ("twenty" + "one", "three" + "hundred")."""
    if word == "hundred":
        return last in ("small", "tens") and 0 < current < 100
    if word == "thousand":
        return last in ("small", "tens", "hundred")
    if last in ("hundred", "thousand"):
        return True
    return last == "tens" and kind == "small" and current % 10 == 0 and word != "zero"


def number_spans(text: str, words: bool = True) -> list[tuple[Decimal, int, int]]:
    """(value, start, end) of each number written outside dates, times and ids, in digits (and in words)."""
    text = _ID.sub(_blank, text)
    text = times(dates(text)[1])[1]
    text = _MONTH_DAY.sub(_blank, text)
    out = []
    for match in _NUMBER.finditer(text):
        raw = re.sub(r"[,\u202f]", "", match.group(0)).replace("\u2212", "-")
        try:
            out.append((Decimal(raw), match.start(), match.end()))
        except InvalidOperation:
            continue
    return out + (_words(text) if words else [])


def numbers(text: str, words: bool = True) -> set[Decimal]:
    """Whole numbers and decimals, with thousands separators and currency signs, or in words, outside dates,
    times and ids."""
    return {value for value, _, _ in number_spans(text, words)}


def number(value: str) -> Decimal | None:
    try:
        return Decimal(value.strip())
    except InvalidOperation:
        return None


def normal(text: str, fold: bool = True) -> str:
    """Case, spacing, underscores and hyphens between words, and surrounding punctuation normalized."""
    text = unicodedata.normalize("NFKC", text)
    text = re.sub(r"(?<=[A-Za-z])[_-](?=[A-Za-z])|_", " ", text)
    text = " ".join(text.split()).strip(_TRAILING + " ")
    return text.lower() if fold else text


LETTERS_DIGITS = re.compile(r"(?<=[^\W\d_])(?=\d)|(?<=\d)(?=[^\W\d_])")  # where letters meet digits: "type2"
_ARTICLE = r" (?:(?:a|an|the) )?"  # "closed with a discrepancy" writes closed_with_discrepancy


def _spans(haystack: str, needle: str) -> list[tuple[int, int]]:
    if not needle:
        return []
    pattern = r"(?<!\w)" + _ARTICLE.join(LETTERS_DIGITS.sub("[ -]?", re.escape(word)) for word in needle.split(" ")) \
        + r"(?!\w)"  # letters and digits together or apart: "type 2 diabetes" writes type2_diabetes
    return [(m.start(), m.end()) for m in re.finditer(pattern, haystack)]


def texts_found(answer: str, expected: str, others: list[str]) -> tuple[bool, list[str]]:
    """Whether the answer names `expected` as whole words (any case), and which `others` it also names; where
    two overlap, the longer is what it names. A short other value ("IT") must appear as written."""
    raw = normal(answer, fold=False)
    folded = raw.lower()
    if len(folded) != len(raw):
        raw = folded
    hits = [(s, e, None) for s, e in _spans(folded, normal(expected))]
    # a short value (3 letters at most) the answer writes only in another case ("oh" for OH) makes the answer's
    # case its own ("It is warehouse ops" does not: its value is long, "It" is prose): other
    # short values are then matched in any case too, or "oh ca ny tx" would state one state code
    as_written = len(normal(expected)) > 3 or bool(_spans(raw, normal(expected, fold=False))) or not hits
    # the cases the answer writes the expected value in ("Push" for push): a short value written the same way is
    # as much a value ("Push. Sms." lists two channels, and kept full reward), and prose ("It is push") still
    # leaves "it" alone
    cases = {case for s, e, _ in hits for case in (str.upper, str.capitalize) if raw[s:e] == case(raw[s:e].lower())
             and raw[s:e] != raw[s:e].lower()}
    for other in set(others):
        written = normal(other, fold=False)
        short = len(written) <= 3 and as_written  # "IT", "On": matched as written, so prose ("it is") is no dump
        hay, needle = (raw, written) if short else (folded, written.lower())
        hits += [(s, e, other) for s, e in _spans(hay, needle)]
        if short and written.islower():  # and a stored lower-case code in capitals ("SMS" for sms), as codes are
            # written; capitalized only where it ends a clause ("Sms."), never as a sentence's first word ("On Monday")
            hits += [(s, e, other) for s, e in _spans(raw, written.upper())]
            hits += [(s, e, other) for s, e in _spans(raw, written.capitalize()) if str.capitalize in cases
                     and re.match(r"\s*(?:[.,;:!?)\]]|$)", raw[e:])]
    hits.sort(key=lambda h: (-(h[1] - h[0]), h[0]))
    taken: list[tuple[int, int]] = []
    found, also = False, []
    for start, end, value in hits:
        if any(start < e and s < end for s, e in taken):
            continue
        taken.append((start, end))
        if value is None:
            found = True
        elif value not in also:
            also.append(value)
    return found, also


def values_in(answer: str, kind: str) -> set:
    if kind == "date":
        return dates(answer)[0]
    if kind == "time":
        return times(dates(answer)[1])[0]
    if kind == "number":
        return numbers(answer)
    raise ValueError(kind)


def typed(value: str, kind: str):
    value = value.strip()
    if kind == "date":
        return date.fromisoformat(value)
    if kind == "time":
        return value
    return number(value)


def _same_kind(values: list[str], kind: str) -> list[str]:
    return [v for v in values if kind_of(v) == kind]


def _key(value: str, kind: str) -> str:
    """What makes two written values the same value: 2026-11-13T12:30 is 2026-11-13 12:30."""
    value = value.strip()
    return value.replace("T", " ")[:16] if kind == "datetime" else value


def same_value(a: str, b: str) -> bool:
    """Two written values are the same value (typed by the second)."""
    kind = kind_of(b)
    if kind == "text":
        return normal(a) == normal(b)
    if kind_of(a) != kind:
        return False
    return _key(a, kind) == _key(b, kind) if kind in ("datetime", "time") else typed(a, kind) == typed(b, kind)


def names(answer: str, expected: str, candidates: list[str] = ()) -> tuple[bool, list[str]]:
    """(the answer states `expected`, the other candidate values it also states)."""
    kind = kind_of(expected)
    same = _key(expected, kind)
    others = [c for c in candidates if _key(c, kind) != same]
    if kind == "datetime":
        day, clock = re.split(r"[ T]", expected.strip())[:2]
        days, rest = dates(answer)
        clocks = times(rest)[0]
        ok = date.fromisoformat(day) in days and clock[:5] in clocks
        also = [c for c in _same_kind(others, "datetime")
                if date.fromisoformat(re.split(r"[ T]", c.strip())[0]) in days and re.split(r"[ T]", c.strip())[1][:5] in clocks]
        return ok, also
    if kind in ("date", "time", "number"):
        found = values_in(answer, kind)
        want = typed(expected, kind)
        if kind == "number" and want in numbers(answer, words=False):
            found = numbers(answer, words=False)  # written in digits: its prose ("two of them") is not a guess
        also = [c for c in _same_kind(others, kind) if typed(c, kind) != want and typed(c, kind) in found]
        return want in found, also
    exp = normal(expected)
    return texts_found(answer, expected, [o for o in others if normal(o) != exp])


__all__ = ["LETTERS_DIGITS", "MAX_ANSWER_CHARS", "NUMBER_WORD", "date_spans", "kind_of", "names", "normal", "number_spans", "numbers", "time_spans", "times"]
