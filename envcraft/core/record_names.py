"""What names a record in a world: its id, a mostly distinct text field (a person's name, a bill number), a
name's head ("Studio D" for "Studio D - Interview Room"), a person's first or last name, the first word of a
longer name, and the nouns staff call a table's records by. core/claims.py reads an answer's records with them."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from envcraft.core.state import HISTORY_TABLE

MAX_NAME_WORDS = 8  # record names are short: "Morgan & Patel Software", "PagerDuty: Data on-call"

WORD = re.compile(r"[^\W_]+")
_NAME_COLUMN = re.compile(r"(?:^|_)(?:name|title|subject|code|number)$")  # names its row, shared or not (FDR-207)
_SHORT_FORM = re.compile(r"(.+?)\s*(?:\s[-\u2013\u2014]\s|,|\()")  # "Studio D - Interview Room": "Studio D"


def words(text: str) -> tuple[str, ...]:
    """A name as the words it is looked up by: case, spacing and punctuation do not matter."""
    return tuple(w.casefold() for w in WORD.findall(text))


def record_names(tables: dict[str, list[dict[str, Any]]]) -> dict[tuple[str, ...], frozenset[str]]:
    """Words -> the ids of the records they name: each row's id, and each value of a text field whose values are
    mostly distinct (a name, a number, an email; not an enum) or whose column is called a name, title, subject,
    code or number, as the generator's label_field picks them (four animals called Juniper, five protocols
    sharing a title, fifteen outage events on eight feeder codes), of at most MAX_NAME_WORDS words. A name two
    rows share names both ("FDR-101" for two events on one feeder): it names the asked record if either is,
    unless an id in parentheses right after it picks one ("Exhibit A (efs-0013)"). A one-word name counts only
    with a digit in it, or capitalized at four letters or more, three in a name column (the bank "PNC"; "IT",
    "On" and "rejected" are prose). A name's head of capitalized words before " - ", "," or "(" names its row as
    staff shorten it ("Studio D" for "Studio D - Interview Room"), where no other name has that head or is it."""
    found: dict[tuple[str, ...], set[str]] = {}
    shorts: dict[tuple[str, ...], set[tuple[str, ...]]] = {}  # a name's head before " - ", "," or "(" -> its names
    for table, rows in tables.items():
        if table == HISTORY_TABLE:
            continue  # the change log holds values, not names
        rows = [r for r in rows if isinstance(r, dict) and isinstance(r.get("id"), str)]
        columns = {k for r in rows for k, v in r.items() if isinstance(v, str) and k != "id"}
        for column in columns:
            counts = Counter(r.get(column) for r in rows if isinstance(r.get(column), str) and r.get(column))
            named = _NAME_COLUMN.search(column) is not None  # "Juniper" names each animal called so; five
            # protocols may share a title, and the title still names each of them
            if len(counts) < max(3, 0.5 * sum(counts.values())) and not named:
                continue  # an enum, not a name
            for row in rows:
                key = words(str(row.get(column) or ""))
                value = str(row.get(column) or "")
                if 0 < len(key) <= MAX_NAME_WORDS and (len(key) > 1 or (len(key[0]) >= (3 if named else 4) and value[:1].isupper())
                                                       or any(c.isdigit() for c in key[0])):
                    found.setdefault(key, set()).add(row["id"])
                    if column.endswith("name") and (short := _SHORT_FORM.match(value)) and _proper(short.group(1)):
                        shorts.setdefault(words(short.group(1)), set()).add(key)
        for row in rows:
            found.setdefault(words(row["id"]), set()).add(row["id"])
    for key, full in shorts.items():  # "Studio D" for "Studio D - Interview Room": one name's head, no name itself
        # (a name column's, each word capitalized)
        if len(full) == 1 and key not in found:
            found[key] = set(found[next(iter(full))])
    return {key: frozenset(ids) for key, ids in found.items()}


def _proper(text: str) -> bool:
    """Two words or more, each capitalized or a figure: a name's own head ("Studio D"), not prose ("Refund request")."""
    said = WORD.findall(text)
    return len(said) >= 2 and all(w[:1].isupper() or w[:1].isdigit() for w in said)


def singular(noun: str) -> str:
    """"policies" -> "policy", "batches" -> "batch", "orders" -> "order" (table names are regular English)."""
    if noun.endswith("ies") and len(noun) > 4:
        return noun[:-3] + "y"
    if noun.endswith(("sses", "ches", "shes", "xes")):
        return noun[:-2]
    return noun[:-1] if noun.endswith("s") and not noun.endswith("ss") else noun


def table_nouns(table: str) -> frozenset[str]:
    """What staff call a table's records: its last word, plural and singular (study_protocols: "protocols",
    "protocol"), and a name of three words or more by its initials as well (engineering_change_orders: "eco")."""
    parts = [w for w in table.casefold().split("_") if w]
    if not parts:
        return frozenset()
    found = {parts[-1], singular(parts[-1])}
    if len(parts) >= 3:
        initials = "".join(w[0] for w in parts)
        found |= {initials, initials + "s"}
    return frozenset(found)


def leading_words(names: dict[tuple[str, ...], frozenset[str]]) -> dict[str, frozenset[str]]:
    """The first word (four letters or more) of each name of two words or more -> the records it names."""
    found: dict[str, set[str]] = {}
    for key, ids in names.items():
        if len(key) >= 2 and key[0].isalpha() and len(key[0]) >= 4:
            found.setdefault(key[0], set()).update(ids)
    return {word: frozenset(ids) for word, ids in found.items()}


def short_names(names: dict[tuple[str, ...], frozenset[str]]) -> dict[str, frozenset[str]]:
    """A person's first and last name (3 letters or more) -> the ids of the records whose names hold it: "zoe" for
    Zoe Lindqvist. Only two-word names are a first and a last name ("Senior Wellbeing Fund" is no person). Read as
    a name only where the answer writes it capitalized, not followed by another capitalized word (_name_spans)."""
    found: dict[str, set[str]] = {}
    for key, ids in names.items():  # record_names
        if len(key) == 2 and all(w.isalpha() for w in key):
            for word in {key[0], key[-1]} - {"the", "and", "for"}:
                if len(word) >= 3:
                    found.setdefault(word, set()).update(ids)
    return {word: frozenset(ids) for word, ids in found.items()}


__all__ = ["MAX_NAME_WORDS", "WORD", "leading_words", "record_names", "short_names", "singular", "table_nouns", "words"]
