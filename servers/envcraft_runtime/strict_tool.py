"""Tools that refuse arguments they do not declare.

The SDK's argument model (`func_metadata`) ignores unknown keys, so `scooter_search(name="X")` ran with no
filter and returned every row: an agent reads that as "X matches everything". Here each tool's argument model
is the SDK's own with `extra="forbid"` (so the input schema says `additionalProperties: false`), and a call
whose arguments do not fit is refused before anything runs, with a message that names each wrong argument and
lists the accepted ones. The refusal is an ordinary tool error: the agent reads it and the call is logged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools.base import Tool
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from pydantic import BaseModel, ConfigDict, ValidationError

SHOWN_PROBLEMS = 5  # problems (and unknown names) named in one refusal; the rest are counted
SHOWN_VALUE_CHARS = 40  # of a refused value or name, echoed so the agent sees what it sent


def strict_model(model: type[BaseModel]) -> type[BaseModel]:
    """`model` (the SDK's argument model) refusing keys it does not declare, at the top level and in nested
    TypedDicts (they take the model's config); its JSON schema then says `additionalProperties: false`."""
    return type(model.__name__, (model,), {"model_config": ConfigDict(extra="forbid"), "__module__": model.__module__})


def strict_metadata(metadata: FuncMetadata) -> FuncMetadata:
    """The SDK's metadata of a tool with its argument model made strict; outputs as the SDK has them."""
    return FuncMetadata(arg_model=strict_model(metadata.arg_model), output_schema=metadata.output_schema,
                        output_model=metadata.output_model, wrap_output=metadata.wrap_output)


def accepted(model: type[BaseModel]) -> list[str]:
    """The argument names a caller sends (an alias where the SDK renamed a field that shadows BaseModel)."""
    return [field.alias or name for name, field in model.model_fields.items()]


def refusal(tool: str, model: type[BaseModel], error: ValidationError, hint: str) -> str:
    """What the agent reads: each wrong argument by name and what was wrong with it, the accepted names, that
    nothing ran, and where to read more (`hint`)."""
    errors = error.errors(include_url=False)
    unknown = [_path(e["loc"]) for e in errors if e["type"] in UNKNOWN and len(e["loc"]) == 1]
    problems = [_problem(e) for e in errors if not (e["type"] in UNKNOWN and len(e["loc"]) == 1)]
    if unknown:
        problems.insert(0, f"has no argument{'s' if len(unknown) > 1 else ''} {_some(unknown, ', ')}")
    shown = _some(problems, "; ")
    names = accepted(model)
    takes = f"it takes: {', '.join(names)}" if names else "it takes no arguments"
    return f"{tool}{' ' if unknown else ': '}{shown}; {takes}. The call was not run: nothing changed. {hint}"


UNKNOWN = ("extra_forbidden", "unexpected_keyword_argument")  # a key nobody declared (a dataclass says the latter)


def _problem(error: Any) -> str:
    where = _path(error["loc"])
    if error["type"] in UNKNOWN:
        return f"{where} is not a key it takes"
    if error["type"] == "missing":
        return f"argument {where} is required"
    sent = "null" if error.get("input") is None else _cut(repr(error.get("input")))
    return f"argument {where} is {sent}: {error['msg'][0].lower()}{error['msg'][1:]}"


def _path(loc: Sequence[Any]) -> str:
    """('items', 0, 'name') -> 'items[0].name', quoted (a long key cut: the agent chose its length)."""
    text = str(loc[0]) if loc else "arguments"
    for part in loc[1:]:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return f"'{_cut(text)}'"


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN_VALUE_CHARS else text[:SHOWN_VALUE_CHARS] + "..."


def _some(items: list[str], separator: str) -> str:
    """The first SHOWN_PROBLEMS items, then how many more: a refusal stays short whatever was sent."""
    more = len(items) - SHOWN_PROBLEMS
    return separator.join(items[:SHOWN_PROBLEMS]) + (f"{separator}and {more} more" if more > 0 else "")


class StrictTool(Tool):
    """An SDK `Tool` whose argument model forbids unknown keys, refusing a bad call with `refusal`."""

    @classmethod
    def from_function(cls, fn: Callable[..., Any], **kwargs: Any) -> StrictTool:
        tool = super().from_function(fn, **kwargs)
        metadata = strict_metadata(tool.fn_metadata)
        return tool.model_copy(update={"fn_metadata": metadata,
                                       "parameters": metadata.arg_model.model_json_schema(by_alias=True)})

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        try:
            return await super().run(arguments, context, convert_result)
        except ToolError as exc:
            # The SDK's argument check failed (the one ToolError it raises from a ValidationError; the SDK's own
            # logging tells them apart the same way): say it in words, in place of pydantic's report.
            if isinstance(exc.__cause__, ValidationError) and not isinstance(exc, UnexpectedToolError):
                raise ToolError(refusal(self.name, self.fn_metadata.arg_model, exc.__cause__,
                                        "Its input schema (tools/list) says what each argument takes.")) from exc.__cause__
            raise


__all__ = ["StrictTool", "accepted", "refusal", "strict_metadata", "strict_model"]
