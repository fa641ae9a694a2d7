"""Domain operations: the `read` / `write` tags an app puts on them, and how one is called with
arguments from outside (an MCP tool call or a CLI verb), which are checked here first."""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import Callable
from typing import Any

from . import history
from .failures import ToolFailure
from .store import Store
from .tool_cache import evaluated_signature


def read(fn: Callable) -> Callable:
    """Tag a domain operation that only reads the app state."""
    fn.writes = False
    return fn


def write(fn: Callable) -> Callable:
    """Tag a domain operation that changes the app state (saved only if it succeeds)."""
    fn.writes = True
    return fn


MAX_ARGUMENT_CHARS = 100_000  # per text argument of a domain operation (a file's content has its own cap)


def check_arguments(arguments: dict[str, Any], max_chars: int = MAX_ARGUMENT_CHARS) -> None:
    """Refuse what passes type checks but breaks later: NaN and infinities (every comparison with NaN is
    False, so range checks let it through) and texts past `max_chars`. Walks nested values without recursion."""
    todo: list[tuple[str, Any]] = list(arguments.items())
    seen = 0
    while todo:
        name, value = todo.pop()
        seen += 1
        if seen > 100_000:
            raise ToolFailure("the arguments hold more than 100000 values: send less at once")
        if isinstance(value, float) and not math.isfinite(value):
            raise ToolFailure(f"argument '{name}' is {value!r}: numbers must be finite; send an ordinary number")
        if isinstance(value, str) and len(value) > max_chars:
            raise ToolFailure(f"argument '{name}' is {len(value)} characters; the limit is {max_chars}: send less")
        if isinstance(value, dict):
            todo += [(f"{name}.{key}", item) for key, item in value.items()]
        elif isinstance(value, (list, tuple)):
            todo += [(f"{name}[{index}]", item) for index, item in enumerate(value)]


def call_operation(store: Store, op: Callable, /, **arguments: Any) -> Any:
    """Run an operation on the workspace's app state; a write that succeeds is saved with its history
    entries (history.py), dated by the app's own clock (its TODAY)."""
    check_arguments(arguments)
    if op.writes:
        with store.transaction() as tables:
            before = history.before_write(tables)
            result = op(tables, **arguments)
            history.after_write(tables, before, op.__name__, today_of(op))
            return result
    return op(store.read(), **arguments)


def today_of(op: Callable) -> str:
    """The app's own day, which dates its history: set on every operation by derived.app_operations, else the
    TODAY of the module that defines the operation."""
    return getattr(op, "today", None) or getattr(op, "__globals__", {}).get("TODAY", history.EPOCH)


def to_jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value):
        return dataclasses.asdict(value)
    if isinstance(value, list):
        return [to_jsonable(v) for v in value]
    return value


def public_signature(op: Callable) -> inspect.Signature:
    """The operation's signature without its leading `tables` parameter: what callers supply."""
    signature = evaluated_signature(op)
    return signature.replace(parameters=list(signature.parameters.values())[1:])
