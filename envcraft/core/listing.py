"""A listing is no answer: an answer about one record that copies out its table, each record beside its value.

"dbs-0016: minibus_30ft; dbs-0012: minibus_30ft; ..." over every row of the asked table names the asked record
too, beside its own value, so claims (core/claims.py) credit that clause and read the rest as context about other
records. Such an answer never found which record was asked: it is paid only because the asked one is among the
copied rows (redteam4: a copy of the table kept full reward on nearly every question and refusal sampled).

So a record of the asked table counts as listed when the answer writes its own value of the asked column between
its name and the names either side of it, and it is a bystander unless it is the asked record, a record the
request names, or one the episode changed (a careful report names each record it changed and its new state).
More than MAX_BYSTANDERS bystanders listed is a listing: the answer check fails (a note's too). A careful answer
names a few other records beside their values ("Skipped gap-0009: it is declined", an alternative offered), not a
table.
"""

from __future__ import annotations

from typing import Any

from envcraft.core.answers import names
from envcraft.core.claims import named_spans

MAX_BYSTANDERS = 3  # careful reports (careful20..g, 140 answers) list at most 1; a copied table lists dozens


def _cell(value: Any) -> str | None:
    if isinstance(value, bool) or value in (None, "", [], {}) or isinstance(value, (list, dict)):
        return None
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def bystanders_listed(answer: str, rows: list[dict[str, Any]], column: str, spared: set[str],
                      record_names: dict[tuple[str, ...], frozenset[str]]) -> int:
    """How many records of `rows` (the asked table, as the episode starts and ends), none of them `spared` (ids,
    casefolded), the answer writes with their own value of `column` beside their name."""
    values: dict[str, set[str]] = {}
    for row in rows:
        if isinstance(row, dict) and isinstance(row.get("id"), str) and (cell := _cell(row.get(column))):
            values.setdefault(row["id"].casefold(), set()).add(cell)
    spans = []  # (start, end, the one record of the table it names, or None for a name two rows share), each place
    for start, end, ids in named_spans(answer, record_names):  # once; a record of another table ("2026-10" names a
        mine = {i.casefold() for i in ids} & set(values)  # period too) is no neighbour: its words may be the value
        if mine and (not spans or spans[-1][:2] != (start, end)):
            spans.append((start, end, next(iter(mine)) if len(mine) == 1 else None))
    listed: set[str] = set()
    for index, (start, end, record) in enumerate(spans):
        if record is None or record in spared or record in listed:
            continue
        left = max((e for s, e, r in spans[:index] if r != record), default=0)  # its own name written twice
        right = min((s for s, e, r in spans[index + 1:] if r != record), default=len(answer))  # ("pcl-0001: Umar
        around = answer[left:start] + " " + answer[end:right]  # Weber") is no neighbour
        if any(names(around, value)[0] for value in values[record]):
            listed.add(record)
    return len(listed)


__all__ = ["MAX_BYSTANDERS", "bystanders_listed"]
