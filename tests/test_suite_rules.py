"""Rules of the test suite itself: a test waits on the event it needs, polled with a deadline, never on a fixed
sleep (on a busy machine the event comes late and a fixed sleep passes without testing, or fails)."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SLEEPS = ("time.sleep", "anyio.sleep", "asyncio.sleep", "sleep")


def sleeps_outside_a_loop(tree: ast.AST) -> list[int]:
    """Lines of sleep calls that no loop of their own function encloses (a poll sleeps inside its loop). The code of
    a command or a child process a test starts is a string, not a call, and is not counted."""
    found = []

    def visit(node: ast.AST, in_loop: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Call) and ast.unparse(child.func) in SLEEPS and not in_loop:
                found.append(child.lineno)
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                visit(child, False)
            else:
                visit(child, in_loop or isinstance(child, (ast.While, ast.For, ast.AsyncFor)))

    visit(tree, False)
    return found


def test_no_test_sleeps_outside_a_polling_loop():
    found = {f"{path.relative_to(REPO)}:{line}" for path in sorted((REPO / "tests").rglob("*.py"))
             for line in sleeps_outside_a_loop(ast.parse(path.read_text("utf-8")))}
    assert found == set(), f"fixed sleeps: wait on the event with a deadline instead: {sorted(found)}"


def test_the_rule_sees_a_fixed_sleep_and_lets_a_poll_pass():
    fixed = "async def t():\n    start()\n    await anyio.sleep(0.5)\n    assert started()\n"
    poll = "def t():\n    while not started():\n        time.sleep(0.05)\n"
    assert sleeps_outside_a_loop(ast.parse(fixed)) == [3]
    assert sleeps_outside_a_loop(ast.parse(poll)) == []
