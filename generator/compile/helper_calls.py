"""How app.py calls a runtime helper: the value it examines by position, every other argument by name.

A rule helper takes up to 13 arguments (`aggregate_fails`); written by name, the call says what each one is
(`named` does it for the calls the rule kinds of generator/rules/ write by position):
`not_among(_row, field="status", allowed=("draft",), what="payment run")`. Arguments a call leaves at their
default None are left out. Calls of two arguments (`check_date(due_date, "due_date")`) and the row look-ups
(`row_of`, `field_of`) stay as they read best, by position.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from typing import Any

from envcraft_runtime import arguments, rules

HELPERS: dict[str, Callable[..., Any]] = {
    name: helper for module in (arguments, rules) for name in module.__all__
    if inspect.isfunction(helper := getattr(module, name))}


def call(function: str, *args: str) -> str:
    """The expression `function(arg, ...)`; the arguments are expressions already."""
    helper = HELPERS.get(function)
    if helper is None or len(args) < 3:
        return f"{function}({', '.join(args)})"
    parameters = list(inspect.signature(helper).parameters.values())
    if len(args) > len(parameters):
        raise TypeError(f"{function} takes {len(parameters)} arguments, not {len(args)}")
    named = [f"{p.name}={arg}" for p, arg in zip(parameters[1:], args[1:], strict=False)
             if not (arg == "None" and p.default is None)]
    return f"{function}({', '.join([args[0], *named])})"


def named(expression: str) -> str:
    """A helper call a rule kind wrote by position (generator/rules/), its arguments (and the helper calls among
    them) named as `call` names them; each argument keeps its own text. Anything else as it is."""
    node = ast.parse(expression, mode="eval").body
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords
            and not any(isinstance(arg, ast.Starred) for arg in node.args)):
        return expression
    return call(node.func.id, *(named(ast.get_source_segment(expression, arg) or "") for arg in node.args))


__all__ = ["HELPERS", "call", "named"]
