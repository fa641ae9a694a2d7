"""Regular expressions an agent sends, matched in linear time.

With `google-re2` installed (a dependency of envcraft) patterns run on RE2, whose matching time is
linear in the text: `(a+)+$` cannot hold a thread for seconds. A packed folder running with only
`mcp` installed has no RE2: there the standard `re` runs in a child process that is killed when
the search's deadline passes, so a catastrophic pattern costs one process, never the server.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator

from .failures import ToolFailure

MAX_PATTERN_CHARS = 1_000

try:
    import re2
except ImportError:  # standalone without RE2: the fallback below
    re2 = None


class _Fallback:
    """`re` in a killable child process."""

    def __init__(self, pattern: str):
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ToolFailure(f"'{pattern[:200]}' is not a valid regular expression ({exc}): escape special characters") from None
        self.pattern = pattern

    def matching(self, lines: list[str], deadline: float) -> list[int]:
        request = json.dumps({"pattern": self.pattern, "lines": lines})
        try:
            done = subprocess.run([sys.executable, "-I", "-c", _WORKER], input=request, capture_output=True, text=True,
                                  timeout=max(deadline - time.monotonic(), 0.1))
        except subprocess.TimeoutExpired:
            raise ToolFailure(f"the pattern '{self.pattern[:200]}' took too long on these files: simplify it "
                              "(avoid nested repetition such as (a+)+) or search fewer files") from None
        return json.loads(done.stdout or "[]")


_WORKER = ("import json, re, sys; r = json.load(sys.stdin); p = re.compile(r['pattern']); "
           "print(json.dumps([i for i, line in enumerate(r['lines']) if p.search(line)]))")


def compile_linear(pattern: str) -> object:
    if not isinstance(pattern, str) or not pattern:
        raise ToolFailure("the pattern is empty: give a regular expression such as 'invoice|receipt'")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ToolFailure(f"the pattern is {len(pattern)} characters; the limit is {MAX_PATTERN_CHARS}: use a shorter one")
    if re2 is None:
        return _Fallback(pattern)
    options = re2.Options()
    options.max_mem = 16 * 2**20
    options.log_errors = False
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        detail = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise ToolFailure(f"'{pattern[:200]}' is not a regular expression this search runs ({detail}): escape special "
                          "characters; backreferences and lookaround are not supported") from None


def search_lines(engine: object, lines: list[str], deadline: float) -> Iterator[int]:
    """Indexes of the lines the engine finds a match in, in order."""
    if isinstance(engine, _Fallback):
        yield from engine.matching(lines, deadline)
        return
    for index, line in enumerate(lines):
        if engine.search(line):
            yield index
