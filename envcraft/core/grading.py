"""Grading: deterministic checks on the final state, read from outside the sandbox after the episode.

Reward = (weight of passed goal checks / weight of all goal checks), halved if any guard fails
(collateral damage). A goal check that already holds in the initial state is never credited:
such a task is malformed and `Task` validation in the engine rejects it.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

from envcraft.core.answers import MAX_ANSWER_CHARS, dates, kind_of, names, same_value
from envcraft.core.claims import RECORD_ID, Reading, named_records, read, table_nouns, words
from envcraft.core.collateral import damage
from envcraft.core.diff import StateDiff
from envcraft.core.facts import states_fact
from envcraft.core.guesses import disowned, guesses, shaped, stands_alone
from envcraft.core.listing import MAX_BYSTANDERS, bystanders_listed
from envcraft.core.quotes import unquoted
from envcraft.core.state import APP_DIR, APP_STATE, HISTORY_TABLE
from envcraft.core.tasks import Check, Task
from envcraft.core.verdicts import Verdict
from envcraft.core.walk import text_files
from envcraft.core.world_index import index_of
from pydantic import BaseModel, ConfigDict


class Snapshot(BaseModel):
    """Everything a verifier may look at: app tables, text files, and the answer given to finish()."""

    model_config = ConfigDict(frozen=True)
    tables: dict[str, list[dict[str, Any]]]
    files: dict[str, str]
    answer: str | None = None

    @classmethod
    def of(cls, workspace: Path) -> Snapshot:
        workspace = Path(workspace)
        state = workspace / APP_STATE
        tables = json.loads(state.read_text("utf-8")) if state.exists() else {}
        files = text_files(workspace, skip_top=frozenset({APP_DIR}))  # bounded: the agent shaped this tree
        answer_file = workspace / APP_DIR / "answer.json"
        answer = json.loads(answer_file.read_text("utf-8")).get("answer") if answer_file.exists() else None
        return cls(tables=tables, files=files, answer=answer)


class CheckResult(BaseModel):
    model_config = ConfigDict(frozen=True)
    kind: str
    role: str
    passed: bool
    weight: float
    note: str = ""


class Grade(BaseModel):
    model_config = ConfigDict(frozen=True)
    reward: float
    passed: bool
    checks: list[CheckResult]
    state_diff: dict[str, StateDiff] = {}  # per environment, what the episode changed (filled in by a farm)
    verdict: Verdict | None = None  # a foreign benchmark's own checker's word (benchmarks/), beside the reward
    unfinished: str = ""  # why the grade could not finish (core/bounded_grade.py): reward 0, the episode's failure


def _same(value: Any, expected: Any) -> bool:
    """Equal; text after normalizing case, spacing and trailing punctuation (free text is not byte-compared)."""
    if isinstance(value, str) and isinstance(expected, str):
        return value == expected or normal_text(value) == normal_text(expected)
    return value == expected


def _matches(value: Any, expected: Any) -> bool:
    if isinstance(expected, dict) and len(expected) == 1 and next(iter(expected)).startswith("$"):
        op, operand = next(iter(expected.items()))
        if op == "$contains":
            return isinstance(value, str) and normal_text(str(operand)) in normal_text(value)
        if op == "$lacks":
            return not (isinstance(value, str) and normal_text(str(operand)) in normal_text(value))
        if op == "$has":
            return isinstance(value, list) and any(_same(item, operand) for item in value)
        if op == "$in":
            return any(_same(value, option) for option in operand)
        if op == "$all":
            return all(_matches(value, part) for part in operand)
        raise ValueError(f"unknown match operator {op}: use $contains, $lacks, $has, $in or $all")
    return _same(value, expected)


def normal_text(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(".!?;:, ")


def _rows(snapshot: Snapshot, check: Check) -> list[dict[str, Any]]:
    return [row for row in snapshot.tables.get(check.table or "", [])
            if all(_matches(row.get(field), want) for field, want in check.match.items())]


def _contains_any(text: str, needles: list[str]) -> bool:
    lowered = text.lower()
    return any(n.lower() in lowered for n in needles)


def _written(value: Any) -> str | None:
    """A cell as an answer would state it (None for an empty or structured one)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if value in (None, "", []) or isinstance(value, (list, dict, bool)):
        return None
    return value.replace("T", " ") if isinstance(value, str) and len(value) == 16 else str(value)


def _column_values(snapshot: Snapshot, table: str, column: str) -> list[str]:
    out = dict.fromkeys(_written(row.get(column)) for row in snapshot.tables.get(table, []))
    return [value for value in out if value is not None]


def _about(check: Check, initial: Snapshot, final: Snapshot) -> tuple[str, str] | None:
    """(table, column) whose values a check's expected values are: its own, or, for a file check that names a
    record id (stores built before file checks carried it), the table holding that row."""
    if check.table and check.column:
        return check.table, check.column
    if check.kind != "file_contains" or len(check.contains) != 1:
        return None
    wanted = check.contains[0].strip()
    for snapshot in (final, initial):
        for table, rows in snapshot.tables.items():
            if any(isinstance(row, dict) and row.get("id") == wanted for row in rows):
                return table, "id"
    return None


def _candidates(check: Check, about: tuple[str, str] | None, snapshots: tuple[Snapshot, ...], text: str) -> list[str]:
    """The other values of the asked column in the world, and the words of the text written in the shape of an
    expected id (the ids a guesser would try past the last one): stating them too is a dump."""
    if about is None:
        return []
    values = dict.fromkeys(v for s in snapshots for v in _column_values(s, *about))
    for expected in check.contains:
        if about[1] == "id" or (values and all(shaped(v, expected) for v in values)):
            guessed = shaped(text, expected)
            ids = set() if about[1] == "id" or not guessed else {  # "cc-0012" beside code CC-012: a record's name
                str(r.get("id")).casefold() for s in snapshots for rows in s.tables.values() for r in rows if isinstance(r, dict)}
            values.update(dict.fromkeys(w for w in guessed if w.casefold() not in ids))
    # values the check asks for are not a dump of the column (an "all that match" answer lists several)
    return [v for v in values if not any(same_value(v, e) for e in check.contains)]


def states_only(check: Check, text: str, others: list[str], given: str = "", reason: bool = False) -> bool:
    """Every expected value stated, each count, total or time as the text's one guess of its class, and no other
    value of the asked column (or shape): the rule a finish answer and a note file share. `reason`: the rule
    refusing the asked record is named, which states a refusal's reason as well as its blocking value."""
    if not stands_alone(text, check.contains, given) and not (reason and not _guesses_past(text, check.contains, given)):
        return False  # a number gets one guess: a count or a total has no column to call a dump, and a column's
        # other values need not cover the small numbers a dump lists ("0 1 2 ... 149" for an on-hand of 65); a
        # refusal's rule named is its reason where its blocking value is a date or a figure too, if it guesses none
    for expected in check.contains:
        said = disowned(text, [expected, *others], expected) if kind_of(expected) == "text" else text  # "(not PO-17)"
        found, also = names(said, expected, others)
        if not (found or reason) or also:
            return False
    return True


def _guesses_past(text: str, expected: list[str], given: str) -> bool:
    """Whether the text states a date, number or time of an expected value's class that the task does not state."""
    for kind in {kind_of(e) for e in expected}:
        if kind in ("date", "datetime") and dates(text)[0] - dates(given)[0]:
            return True
        if kind in ("number", "time") and guesses(text, kind) - guesses(given, kind):
            return True
    return False


_NOTE_ID = re.compile(r"^(?:answer: \w+ of|names why(?: the \w+ is refused:)?) ([a-z]{2,6}-\d{3,})\b")
_NOTE_RULE = re.compile(r"\(rule (\w+)\)")


def asked_record(check: Check) -> str | None:
    """The id of the record an answer check asks about: its `about`, or (older stores) the id its note names."""
    noted = _NOTE_ID.match(check.note)
    return check.about[0] if check.about else noted.group(1) if noted else None


def reading(check: Check, initial: Snapshot, values: list[str], given: str = "") -> Reading:
    """What an answer check reads an answer for (core/claims.py). A store built before checks carried `about`
    has it in the note; a question's note names only the asked record, so the records its request names it by
    (a resident for the repair request) are read from the request itself. What depends on the world alone is
    derived once per initial world (core/world_index.py)."""
    world = index_of(initial.tables)
    about = set(check.about)
    if not about and asked_record(check):
        about = {asked_record(check)}
        if check.note.startswith("answer:"):
            about |= {i for ids in named_records(given, world.names) if len(ids) == 1 for i in ids}
    reasons = check.reasons or _NOTE_RULE.findall(check.note)
    nouns = table_nouns(check.table or "")  # office_budgets: "budgets", "budget"
    return Reading(about=frozenset(a.casefold() for a in about), names=world.names, short=world.short,
                   nouns=nouns, kinds=world.kinds(check.table or ""),
                   values=tuple(dict.fromkeys([*check.contains, *values])), expected=tuple(check.contains),
                   reasons=tuple(reasons),
                   world_words=world.world_words, referred=world.referred(about),
                   column=check.column or "", record_kinds=world.record_kinds, phrases=world.phrases,
                   heads=world.heads, leads=world.leads, restated=_restated(values, given),
                   requested=frozenset(i.casefold() for ids in named_records(given, world.names) if len(ids) == 1
                                       for i in ids))


def _restated(values: list[str], given: str) -> frozenset[tuple[str, ...]]:
    """The words of each of `values` that the task states itself (the date a request asks for)."""
    said = words(given)
    grams = {said[i:i + n] for n in {len(words(v)) for v in values} for i in range(len(said) - n + 1)}
    return frozenset(w for w in map(words, values) if w in grams)


def _lists_table(check: Check, initial: Snapshot, final: Snapshot, text: str, given: str) -> bool:
    """Whether `text` copies out the asked record's table rather than answering about it (core/listing.py)."""
    subject = asked_record(check)
    if not (subject and check.table and check.column) or check.column == "id":
        return False
    before = {r.get("id"): r for r in initial.tables.get(check.table, []) if isinstance(r, dict)}
    after = final.tables.get(check.table, [])
    changed = {str(r.get("id")) for r in after if isinstance(r, dict) and before.get(r.get("id")) != r}
    known = index_of(initial.tables).names  # the world's record names (core/world_index.py)
    asked = {*check.about, subject, *changed, *(i for ids in named_records(given, known) for i in ids)}
    rows = [*before.values(), *after]
    return bystanders_listed(text, rows, check.column, {a.casefold() for a in asked}, known) > MAX_BYSTANDERS


def answer_holds(check: Check, initial: Snapshot, answer: str | None, given: str = "",
                 final: Snapshot | None = None) -> bool:
    """`given`: what the task itself states (its turns, its expected answers); restating it is no dump."""
    if answer is None or len(answer) > MAX_ANSWER_CHARS:
        return False
    answer = unicodedata.normalize("NFKC", answer)  # "Ｉｔ ｉｓｎ'ｔ X" is read as the words it shows, negation too
    about = (check.table, check.column) if check.table and check.column else None
    if _lists_table(check, initial, final or initial, answer, given) or not _held(check, about, final or initial):
        return False
    answer = unquoted(answer, initial.files)  # the documents' own words are a quote, no claim (core/quotes.py)
    others = _candidates(check, about, (initial,), answer)
    claims = read(answer, reading(check, initial, others, given))
    if not check.note.startswith("names why"):  # a question's own values restated are context, not a dump; a
        others = [o for o in others if not names(given, o)[0]]  # refusal's request names the states it wants
    return states_only(check, claims.text, others, given, claims.stated_reason)


def _held(check: Check, about: tuple[str, str] | None, final: Snapshot) -> bool:
    """An id the check expects names a row the episode ends with: a note of "the new row's id" written with nothing
    created names the id the app would give next, which a guesser writes without doing the work (redteam4: 32 of 32
    sampled notes were paid with every call but the note's write left out)."""
    if about is None or about[1] != "id":
        return True
    ids = {str(row.get("id")).casefold() for row in final.tables.get(about[0], []) if isinstance(row, dict)}
    return all(value.strip().casefold() in ids for value in check.contains if RECORD_ID.fullmatch(value.strip()))


def file_holds(check: Check, initial: Snapshot, final: Snapshot, given: str = "") -> bool:
    """A file check about a column (a note naming the new row's id) grades the file as an answer, by what it claims
    (core/claims.py: "not rrq-0041", "rrq-0041?" and "rrq-0040 or rrq-0041" name nothing) and, like an answer, only
    up to MAX_ANSWER_CHARS (the task asks for a short note); one about nothing in the world (a report's figures) is
    graded on the facts it states (core/facts.py)."""
    text = final.files.get(check.path or "")
    if text is not None and check.lacks and _contains_any(text, check.lacks):
        return False
    about = _about(check, initial, final)
    if text is None:
        return False
    if about is None:
        return states_fact(text, check.contains, check.rivals, check.context, check.aliases)  # core/facts.py
    if len(text) > MAX_ANSWER_CHARS or not _held(check, about, final):
        return False
    text = unicodedata.normalize("NFKC", text)
    if _lists_table(check, initial, final, text, given):
        return False
    others = _candidates(check, about, (initial, final), text)
    claims = read(text, reading(check, initial, others, given))
    return states_only(check, claims.text, others, given, claims.stated_reason)


def holds(check: Check, initial: Snapshot, final: Snapshot, given: str = "") -> bool:
    if check.kind == "record":
        found = _rows(final, check)
        return len(found) == check.count if check.count is not None else bool(found)
    if check.kind == "no_record":
        return not _rows(final, check)
    if check.kind == "file_contains":
        return file_holds(check, initial, final, given)
    if check.kind == "file_absent":
        return (check.path or "") not in final.files
    if check.kind == "answer":
        return answer_holds(check, initial, final.answer, given, final)
    if check.kind == "collateral":
        return not damage(check, initial, final)
    if check.kind == "unchanged":
        allowed = set(check.allow) | {HISTORY_TABLE}
        tables = set(initial.tables) | set(final.tables)
        return all(initial.tables.get(t) == final.tables.get(t) for t in tables - allowed) and all(
            initial.files.get(f) == final.files.get(f) for f in set(initial.files) - allowed)
    raise ValueError(f"unknown check kind {check.kind}")


States = Snapshot | dict[str, Snapshot]  # one environment's, or each environment's by name


def _of(task: Task, states: States, check: Check) -> Snapshot:
    if isinstance(states, Snapshot):
        return states
    return states[check.env or task.envs[0]]


def given(task: Task) -> str:
    """What the task states itself: its turns and every value its answer checks expect."""
    return "\n".join([*task.turns, *(v for c in task.checks if c.kind == "answer" for v in c.contains)])


def grade(task: Task, initial: States, final: States) -> Grade:
    stated = given(task)
    results = [CheckResult(kind=c.kind, role=c.role,
                           passed=holds(c, _of(task, initial, c), _of(task, final, c), stated),
                           weight=c.weight, note=c.note) for c in task.checks]
    goals = [r for r in results if r.role == "goal"]
    total = sum(r.weight for r in goals)
    reward = sum(r.weight for r in goals if r.passed) / total if total else 0.0
    if any(not r.passed for r in results if r.role == "guard"):
        reward *= 0.5
    return Grade(reward=round(reward, 6), passed=reward >= 1.0, checks=results)


def credited_at_start(task: Task, initial: States) -> list[Check]:
    """Goal checks that the initial state already satisfies: free reward, so the task is rejected."""
    stated = given(task)
    return [c for c in task.checks if c.role == "goal" and holds(c, _of(task, initial, c), _of(task, initial, c), stated)]
