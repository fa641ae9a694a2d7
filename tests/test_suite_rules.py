"""Rules of the test suite itself: a test waits on the event it needs, polled with a deadline, never on a fixed
sleep (on a busy machine the event comes late and a fixed sleep passes without testing, or fails), and never on a
poll without a deadline (a lost event hangs the suite instead of failing the test)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SLEEPS = ("time.sleep", "anyio.sleep", "asyncio.sleep", "sleep")


BOUNDS = ("anyio.fail_after", "anyio.move_on_after", "fail_after", "move_on_after")


def sleeps(tree: ast.AST) -> Iterator[tuple[ast.Call, list[ast.AST], bool, int]]:
    """Every sleep call, with the loops of its own function around it (innermost last), whether a `fail_after` /
    `move_on_after` bounds it, and how many functions deep it is. The code of a command or a child process a test
    starts is a string, not a call, and is not counted."""

    def visit(node: ast.AST, loops: list[ast.AST], bounded: bool, depth: int) -> Iterator:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                yield from visit(child, [], False, depth + 1)
                continue
            bound = bounded or (isinstance(child, (ast.With, ast.AsyncWith)) and any(
                ast.unparse(item.context_expr).startswith(BOUNDS) for item in child.items))
            if isinstance(child, ast.Call) and ast.unparse(child.func) in SLEEPS:
                yield child, loops, bound, depth
            yield from visit(child, loops + [child] if isinstance(child, (ast.While, ast.For, ast.AsyncFor)) else loops,
                             bound, depth)

    yield from visit(tree, [], False, 0)


def sleeps_outside_a_loop(tree: ast.AST) -> list[int]:
    """Lines of sleep calls that no loop of their own function encloses (a poll sleeps inside its loop)."""
    return [call.lineno for call, loops, _, _ in sleeps(tree) if not loops]


def polls_without_a_deadline(tree: ast.AST) -> list[int]:
    """Lines of the loops a test polls in (a sleep inside) that nothing bounds: no `fail_after`/`move_on_after` around
    them, no deadline or clock read in them, and not a background loop that runs until an event is set. A loop of a
    function nested in the test (a task it starts) is bounded by the test's own wait."""
    found = set()
    for _, loops, bounded, depth in sleeps(tree):
        if not loops or bounded or depth > 1:
            continue
        loop, text = loops[-1], ast.unparse(loops[-1])
        until_event = isinstance(loop, ast.While) and ".is_set()" in ast.unparse(loop.test)
        if not ("monotonic" in text or "deadline" in text or until_event):
            found.add(loop.lineno)
    return sorted(found)


def breaches(rule: Callable[[ast.AST], list[int]]) -> list[str]:
    """`path:line` of every place in tests/ the rule finds."""
    return [f"{path.relative_to(REPO)}:{line}" for path in sorted((REPO / "tests").rglob("*.py"))
            for line in rule(ast.parse(path.read_text("utf-8")))]


def test_every_poll_has_a_deadline():
    found = breaches(polls_without_a_deadline)
    assert found == [], f"polls without a deadline: wrap them in anyio.fail_after or check a deadline: {found}"


def test_the_rule_sees_a_poll_without_a_deadline_and_lets_a_bounded_one_pass():
    endless = "def t():\n    while not started():\n        time.sleep(0.05)\n"
    bounded = "async def t():\n    with anyio.fail_after(10):\n        while not started():\n            await anyio.sleep(0.05)\n"
    timed = "def t():\n    while not started() and time.monotonic() < deadline:\n        time.sleep(0.05)\n"
    background = "async def t():\n    async def load():\n        while True:\n            await anyio.sleep(0.1)\n"
    assert polls_without_a_deadline(ast.parse(endless)) == [2]
    assert polls_without_a_deadline(ast.parse(bounded)) == polls_without_a_deadline(ast.parse(timed)) == []
    assert polls_without_a_deadline(ast.parse(background)) == []


def test_no_test_sleeps_outside_a_polling_loop():
    found = breaches(sleeps_outside_a_loop)
    assert found == [], f"fixed sleeps: wait on the event with a deadline instead: {found}"


def test_the_rule_sees_a_fixed_sleep_and_lets_a_poll_pass():
    fixed = "async def t():\n    start()\n    await anyio.sleep(0.5)\n    assert started()\n"
    poll = "def t():\n    while not started():\n        time.sleep(0.05)\n"
    assert sleeps_outside_a_loop(ast.parse(fixed)) == [3]
    assert sleeps_outside_a_loop(ast.parse(poll)) == []
