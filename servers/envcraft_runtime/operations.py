"""Domain operations: the `read` / `write` tags an app puts on them, and how one is called with
arguments from outside (an MCP tool call or a CLI verb), which are checked here first."""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import Callable
from typing import Any

from .failures import ToolFailure
from .store import Store


def read(fn: Callable) -> Callable:
    """Tag a domain operation that only reads the app state."""
    fn.writes = False
    return fn


def write(fn: Callable) -> Callable:
    """Tag a domain operation that changes the app state (saved only if it succeeds)."""
    fn.writes = True
    return fn


def refuse_non_finite(arguments: dict[str, Any], where: str = "") -> None:
    """NaN and infinities pass range checks (every comparison with NaN is False): refuse them at the door."""
    todo: list[tuple[str, Any]] = [(f"{where}{name}", value) for name, value in arguments.items()]
    while todo:
        name, value = todo.pop()
        if isinstance(value, float) and not math.isfinite(value):
            raise ToolFailure(f"argument '{name}' is {value!r}: numbers must be finite; send an ordinary number")
        if isinstance(value, dict):
            todo += [(f"{name}.{key}", item) for key, item in value.items()]
        elif isinstance(value, (list, tuple)):
            todo += [(f"{name}[{index}]", item) for index, item in enumerate(value)]


def call_operation(store: Store, op: Callable, /, **arguments: Any) -> Any:
    refuse_non_finite(arguments)
    if op.writes:
        with store.transaction() as tables:
            return op(tables, **arguments)
    return op(store.read(), **arguments)


def to_jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value):
        return dataclasses.asdict(value)
    if isinstance(value, list):
        return [to_jsonable(v) for v in value]
    return value


def public_signature(op: Callable) -> inspect.Signature:
    """The operation's signature without its leading `tables` parameter: what callers supply."""
    signature = inspect.signature(op, eval_str=True)
    return signature.replace(parameters=list(signature.parameters.values())[1:])
