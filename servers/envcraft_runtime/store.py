"""The app state of a workspace: named tables of JSON records under `.app/`, saved atomically and
locked, so the MCP tools and the CLI verbs (through the server) can share it."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .failures import ToolFailure

Tables = dict[str, list[dict[str, Any]]]

APP_DIR = ".app"  # app state; hidden from file listings, owned by the domain tools
STATE_FILE = "state.json"
ANSWER_FILE = "answer.json"
ANSWER_LIMIT = 2000  # characters of a finish() answer that are graded (envcraft.core.answers.MAX_ANSWER_CHARS)


class Store:
    """The app state of one workspace: named tables of JSON records, saved atomically."""

    def __init__(self, root: Path | str):
        self.dir = Path(root) / APP_DIR
        self.path = self.dir / STATE_FILE

    def read(self) -> Tables:
        try:
            return json.loads(self.path.read_text("utf-8"))
        except FileNotFoundError:
            raise ToolFailure("this workspace has no app state (.app/state.json): it was not initialised by the launcher") from None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Tables]:
        """Load, let the caller change, and save only if no error escaped: a failed write changes nothing."""
        self.dir.mkdir(exist_ok=True)
        with open(self.dir / "lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            tables = self.read()
            yield tables
            tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(tables, indent=1, sort_keys=True, allow_nan=False), "utf-8")
            os.replace(tmp, self.path)

    def record_answer(self, answer: str) -> None:
        self.dir.mkdir(exist_ok=True)
        (self.dir / ANSWER_FILE).write_text(json.dumps({"answer": answer, "at": time.time()}), "utf-8")


def find_row(tables: Tables, table: str, key: str, value: Any, what: str, hint: str) -> dict[str, Any]:
    """The row whose `key` equals `value`, or a ToolFailure that tells the agent how to find one."""
    for row in tables.get(table, []):
        if row.get(key) == value:
            return row
    raise ToolFailure(f"no {what} with {key} '{value}': {hint}")


def next_id(tables: Tables, table: str, prefix: str) -> str:
    """Sequential ids (msg-0042) keep gold replays deterministic."""
    tail = [str(row.get("id", "")).removeprefix(prefix + "-") for row in tables.get(table, [])
            if str(row.get("id", "")).startswith(prefix + "-")]
    return f"{prefix}-{max((int(t) for t in tail if t.isdigit()), default=0) + 1:04d}"
