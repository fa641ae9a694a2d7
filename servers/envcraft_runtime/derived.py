"""The tools an app gets from its data rather than its code: `read_policies`, `<entity>_report`,
`<transition>_many` and `list_changes`, and the description of every tool parameter.

An app.py ends with `OPERATIONS = app_operations(globals(), [its own operations])`. That reads
`tools.json` beside it (written from the same blueprint by generator/compiler.py, or by hand for
office): which derived tools the app has, and what each parameter takes (format, unit, allowed
values), which the MCP adapter puts in the tools' input schemas. The derived tools are made here,
once, for every app: their signatures name the app's own record and enum types, so their schemas
are what a hand-written function would give.
"""

from __future__ import annotations

import inspect
import json
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from .arguments import check_choice
from .failures import ToolFailure
from .history import ChangePage, change_page
from .operations import read, write
from .records import Report, report_on, run_batch
from .rules import PolicyRule, load_policies
from .store import Tables
from .tool_cache import evaluate, evaluated_signature, union

TOOLS_FILE = "tools.json"
TOOLS_FORMAT = "envcraft.tools/1"
KINDS = ("policies", "report", "batch", "history")


def read_policies(tables: Tables, tool: str | None = None) -> list[PolicyRule]:
    """The rules of this app: id, category, text, the tools each guards, and whether the tools
    enforce it (a refused call cites the id). Give `tool` to see only the rules of one tool.
    """
    raise NotImplementedError  # a template: each app gets its own (policies_tool), with this docstring


def list_changes(
    tables: Tables, table: str | None = None, row_id: str | None = None, limit: int = 20, offset: int = 0
) -> ChangePage:
    """List the change history, newest first: when, by whom, which field of which record changed, from what to
    what; optionally of one table or one record.

    Each entry is one field of one record (field "*": the record
    was created or deleted); changes made through these tools are by "assistant".
    """
    return change_page(tables, table, row_id, limit, offset)


def _tool(name: str, doc: str | None, run: Callable[..., Any], parameters: list[inspect.Parameter],
          returns: Any) -> Callable[..., Any]:
    """A function named `name` that runs `run`, with the signature (after `tables`) its schema is made from."""

    first = inspect.Parameter("tables", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Tables)
    signature = inspect.Signature([first, *parameters], return_annotation=returns)

    def tool(*args: Any, **kwargs: Any) -> Any:
        """Called as the signature says, positionally or by name, like an app's own operation."""
        given = signature.bind(*args, **kwargs)
        given.apply_defaults()
        tables = given.arguments.pop("tables")
        return run(tables, **given.arguments)

    tool.__name__ = tool.__qualname__ = name
    tool.__doc__ = doc
    tool.__signature__ = signature  # type: ignore[attr-defined]
    return tool


def _parameter(name: str, kind: Any, default: Any = inspect.Parameter.empty) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default, annotation=kind)


def policies_tool(app_file: str, names: set[str]) -> Callable[..., Any]:
    policies = load_policies(app_file)  # policies.json beside app.py, generated from the same blueprint

    def run(tables: Tables, tool: str | None = None) -> list[PolicyRule]:
        if tool is not None and not any(tool in p.tools for p in policies) and tool not in names:
            raise ToolFailure(f"unknown tool {tool!r}: give the name of one of this app's tools")
        return [p for p in policies if tool is None or tool in p.tools]

    return read(_tool("read_policies", read_policies.__doc__, run, [_parameter("tool", union(str, None), None)],
                      list[PolicyRule]))


def report_tool(name: str, doc: str, table: str, groups: dict[str, str], sums: list[str],
                namespace: dict[str, Any]) -> Callable[..., Any]:
    """Counts of `table`'s rows per value of one of `groups` (field -> its type, as app.py spells it), with the
    sums of `sums`; each group field is also an optional filter."""
    kinds = {field: evaluate(annotation, namespace) for field, annotation in groups.items()}
    choices = {field: typing.get_args(kind) for field, kind in kinds.items() if typing.get_origin(kind) is Literal}
    numeric = tuple(sums)

    def run(tables: Tables, group_by: str, **filters: Any) -> Report:
        for field, allowed in choices.items():
            check_choice(filters.get(field), field, allowed)
        return report_on(tables[table], group_by, {field: filters.get(field) for field in kinds}, numeric)

    filters = [_parameter(field, union(kind, None), None) for field, kind in kinds.items()]
    return read(_tool(name, doc, run, [_parameter("group_by", Literal[tuple(kinds)]), *filters], Report))


def batch_tool(name: str, doc: str, operation: Callable[..., Any], ids: str) -> Callable[..., Any]:
    """`operation` (a transition that takes only the record's id) on several records: all of them or none."""
    record = evaluated_signature(operation).return_annotation

    def run(tables: Tables, **arguments: Any) -> list[Any]:
        return run_batch(tables, operation, arguments[ids], ids)

    return write(_tool(name, doc, run, [_parameter(ids, list[str])], list[record]))


def history_tool(tables: list[str]) -> Callable[..., Any]:
    """`list_changes` of an app whose tables are `tables`."""
    parameters = list(inspect.signature(list_changes).parameters.values())[1:]
    named = union(Literal[tuple(tables)], None)
    parameters = [p.replace(annotation=named if p.name == "table" else evaluate(p.annotation, globals()))
                  for p in parameters]
    return read(_tool("list_changes", list_changes.__doc__, list_changes, parameters, ChangePage))


def load_tools(app_file: str) -> dict[str, Any]:
    """tools.json beside `app_file`, checked: a hand-edited or torn file fails at import, never mid-episode."""
    path = Path(app_file).with_name(TOOLS_FILE)
    try:
        data = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"{path} is missing: app.py reads its derived tools and parameter descriptions "
                                f"from it; run `envcraft generate` for this environment") from None
    if not isinstance(data, dict) or data.get("format") != TOOLS_FORMAT or not isinstance(data.get("derived"), list) \
            or not isinstance(data.get("parameters"), dict):
        raise ValueError(f"{path}: not a {TOOLS_FORMAT} file ({{format, derived: [...], parameters: {{...}}}})")
    for entry in data["derived"]:
        if not isinstance(entry, dict) or entry.get("kind") not in KINDS:
            raise ValueError(f"{path}: a derived tool's kind is one of {', '.join(KINDS)}: {str(entry)[:200]}")
    return data


def app_operations(namespace: dict[str, Any], operations: list[Callable[..., Any]]) -> list[Callable[..., Any]]:
    """An app's tools: its own `operations`, then the derived ones tools.json names (also set in the app's
    `namespace`, so a caller finds them on the module as it finds the others), each carrying its parameters'
    descriptions (`parameters`) and the app's clock (`today`) for the change history."""
    data = load_tools(namespace["__file__"])
    own = {op.__name__: op for op in operations}
    names = set(own) | {entry["name"] for entry in data["derived"]}
    derived = []
    for entry in data["derived"]:
        if entry["kind"] == "policies":
            derived.append(policies_tool(namespace["__file__"], names))
        elif entry["kind"] == "report":
            derived.append(report_tool(entry["name"], entry["doc"], entry["table"], entry["groups"], entry["sums"],
                                       namespace))
        elif entry["kind"] == "batch":
            derived.append(batch_tool(entry["name"], entry["doc"], own[entry["operation"]], entry["ids"]))
        else:
            derived.append(history_tool(entry["tables"]))
    namespace.update({tool.__name__: tool for tool in derived})  # app.read_policies(...) works as for its own
    everything = [*operations, *derived]
    for op in everything:
        op.parameters = data["parameters"].get(op.__name__, {})  # type: ignore[attr-defined]
        op.today = namespace.get("TODAY")  # type: ignore[attr-defined]
    return everything


__all__ = ["TOOLS_FILE", "TOOLS_FORMAT", "app_operations", "batch_tool", "history_tool", "load_tools",
           "policies_tool", "report_tool"]
