"""Task model: what the user asks (turns), the initial state, the verifier checks, the gold solution.

Tasks are data (JSONL under tasks/), stored outside every workspace and never mounted into a
sandbox: no agent tool or shell command can read a verifier or a gold answer.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from envcraft.core.paths import TASKS
from envcraft.core.state import InitialState
from pydantic import BaseModel, ConfigDict, Field

TASK_FORMAT = "envcraft.task/1"


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ToolCall(Frozen):
    tool: str  # the tool's name in its environment
    env: str | None = None  # which of the task's environments (default: the first)
    arguments: dict[str, Any] = Field(default_factory=dict)
    turn: int = 0  # which user turn this call answers (multi-turn tasks)


class SideRows(Frozen):
    """collateral: the rows a documented follow-up (a `side_effect` policy) may add to a table, scoped to the records
    the task touches. A new row belongs to the record its `field` names; each record gets at most `most[id]` new rows
    (the task's own rows on it plus one per state change the workflow follows up), any other record none."""

    field: str
    most: dict[str, int] = Field(default_factory=dict)
    # per record, whom its follow-up is for: the refs the record itself holds (a notice on a repair request goes
    # to that request's resident). Empty in stores built before: only counted then.
    addressed: dict[str, dict[str, str]] = Field(default_factory=dict)


class Check(Frozen):
    """One deterministic check on the final state; `goal` checks earn credit, `guard` checks gate it.

    kinds:
      record        a row in `table` matches every field of `match` (`count` rows if given)
      no_record     no row in `table` matches `match`
      file_contains file `path` exists and states the fact `contains` makes (core/facts.py: figures as whole
                    values in any format, beside the check's phrases in one statement; phrases in any case,
                    spacing or markdown; a run of figures about one thing is a dump); with `table`
                    and `column` (a note naming the new row's id), or when it names a record's id, the file is
                    graded like an answer: the id as a whole word, and no other value of that column nor word of
                    the id's shape (a note listing every id is a dump); none of `lacks` may appear (a list that
                    must leave things out: a CSV of over-budget categories naming one within budget is a dump)
      file_absent   file `path` does not exist
      answer        the answer given to finish() claims each value of `contains` about the record `about` names
                    (core/claims.py: negated, questioned, hedged values and values said of other records are no
                    claims), typed: dates, times and
                    numbers in any common format, text as whole words; core/answers.py); with `table` and
                    `column`, an answer that also states another value of that column (a dump) fails; an
                    expected number (a count, a total, an amount, in digits or words) or time must be the only
                    one of its class the answer states as a guess, besides those the task's own text states
                    (one guess; core/guesses.py says what is context rather than a guess)
      unchanged     tables/files other than those listed in `allow` are exactly as in the initial state
                    (new files are allowed: scratch work is not damage)
      collateral    row-level: every existing row is unchanged except the fields `rows` lets the task
                    change; each table gains exactly `grow[table]` new rows (none if unlisted); a table in
                    `side` (a documented follow-up) gains at least `grow[table]`, and no record more than
                    `side[table]` allows (SideRows); existing files not in `allow` are unchanged; new files are
                    allowed (stores written before `side` list follow-up tables in `allow`: any number of rows)
    Field values in `match` are equal-to (text compared after normalizing case, spacing and trailing
    punctuation), or {"$contains": s} / {"$lacks": s} / {"$has": item} / {"$in": [..]} / {"$all": [ops]}.
    """

    kind: Literal["record", "no_record", "file_contains", "file_absent", "answer", "unchanged", "collateral"]
    role: Literal["goal", "guard"] = "goal"
    env: str | None = None  # whose final state to check (default: the task's first environment)
    table: str | None = None
    column: str | None = None  # answer, file_contains: the column of `table` whose other values must not be named
    match: dict[str, Any] = Field(default_factory=dict)
    count: int | None = None
    path: str | None = None
    contains: list[str] = Field(default_factory=list)
    lacks: list[str] = Field(default_factory=list)  # file_contains: text that must not appear (case-insensitive)
    # file_contains of a fact (core/facts.py): what answers its question for something else (other rows' figures and
    # their names); a statement paying the check gives none of those figures to its phrases (a hedge pays nothing)
    rivals: list[str] = Field(default_factory=list)
    context: list[str] = Field(default_factory=list)  # file_contains: rival figures its own row holds (a budget)
    aliases: dict[str, list[str]] = Field(default_factory=dict)  # file_contains: other wordings of a phrase ("total")
    # answer: the ids of the record the answer is about (the asked one first, then those the request names it by)
    # and what else states the reason it is refused (the rule's id and text); core/claims.py. Empty in stores
    # built before: read from `note` ("answer: status of po-0015", "names why po-0017 ...", "(rule ap_1)")
    about: list[str] = Field(default_factory=list)
    reasons: list[str] = Field(default_factory=list)
    allow: list[str] = Field(default_factory=list)
    rows: dict[str, dict[str, list[str]]] = Field(default_factory=dict)  # collateral: table -> id -> changeable fields ("*": any, e.g. deleted)
    grow: dict[str, int] = Field(default_factory=dict)  # collateral: table -> new rows the task creates
    side: dict[str, SideRows] = Field(default_factory=dict)  # collateral: table -> follow-up rows, per touched record
    weight: float = 1.0
    note: str = ""


class Task(Frozen):
    format: Literal["envcraft.task/1"] = TASK_FORMAT
    id: str
    envs: list[str]
    turns: list[str]  # user messages, in order; more than one means a multi-turn task
    initial: InitialState = InitialState()  # for the first environment
    other_initial: dict[str, InitialState] = Field(default_factory=dict)  # for the others, by name
    checks: list[Check]
    gold: list[ToolCall]
    archetype: str = ""
    difficulty: Literal["easy", "medium", "hard"] = "medium"
    split: Literal["train", "test"] = "train"
    tags: list[str] = Field(default_factory=list)

    def initial_for(self, env: str) -> InitialState:
        return self.initial if env == self.envs[0] else self.other_initial.get(env, InitialState())

    @property
    def content_hash(self) -> str:
        body = self.model_dump(mode="json", exclude={"id", "split"})
        return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]


def iter_tasks(path: Path) -> Iterator[Task]:
    """Tasks of a JSONL file, plain or gzip-compressed (`.jsonl.gz`), parsed one at a time as they are read."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        yield from (Task.model_validate_json(line) for line in handle if line.strip())


def load_tasks(path: Path) -> list[Task]:
    return list(iter_tasks(path))


def write_tasks(path: Path, tasks: list[Task]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for task in tasks:
            handle.write(task.model_dump_json(exclude_defaults=False) + "\n")


TASKS_DIR = TASKS  # core/paths.py: the checkout's tasks/ or the wheel's


def task_file(env: str, tasks_dir: Path = TASKS_DIR) -> Path | None:
    """<env>.jsonl, or its gzip-compressed form <env>.jsonl.gz, if either exists."""
    for name in (f"{env}.jsonl", f"{env}.jsonl.gz"):
        if (Path(tasks_dir) / name).exists():
            return Path(tasks_dir) / name
    return None


def task_files(tasks_dir: Path = TASKS_DIR) -> list[Path]:
    return sorted(p for p in Path(tasks_dir).iterdir() if p.name.endswith((".jsonl", ".jsonl.gz")))


def task_index(tasks_dir: Path = TASKS_DIR) -> dict[str, Task]:
    """Every task of a folder by id: what a farm (in process or the gateway) looks a task id up in."""
    return {task.id: task for path in task_files(tasks_dir) for task in iter_tasks(path)}


def tasks_for(env: str, tasks_dir: Path = TASKS_DIR) -> list[Task]:
    path = task_file(env, tasks_dir)
    if path is None:
        raise FileNotFoundError(f"no task file {Path(tasks_dir) / env}.jsonl: generate tasks for {env!r} first "
                                "(envcraft tasks generate)")
    return load_tasks(path)
