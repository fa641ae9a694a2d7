"""Tool schemas computed once per machine, not once per server build.

The SDK derives each tool's input and output JSON schemas by building pydantic models from its
signature (`Tool.from_function`): ~5-10 ms a tool, ~0.1-0.4 s per environment, so a run over the
whole catalog spent most of its time there. The schemas depend only on source code, so they are
derived by the SDK itself once and kept, like bytecode in __pycache__, in a cache folder keyed by a
hash of every source they come from (the environment's .py files, this runtime, the SDK and
pydantic versions, each tool's name and docstring). A server built from the cache lists exactly
what the SDK would; each tool's argument and output models are made on its first call (in the SDK's own way,
`func_metadata`), and results are converted by the SDK's own `FuncMetadata.convert_result` with them.

Every tool is registered strict (strict_tool.py: the SDK's argument model refusing unknown arguments).
ENVCRAFT_TOOL_CACHE=0 derives every tool's schemas by the SDK at each build (`Tool.from_function`, no cache);
ENVCRAFT_CACHE_DIR moves the cache (default: $XDG_CACHE_HOME/envcraft or ~/.cache/envcraft).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import json
import operator
import os
import tempfile
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import settings

FORMAT = 1
RUNTIME = Path(__file__).resolve().parent


@dataclass
class ToolSpec:
    """One tool as the adapter defines it: an async function whose signature is the tool's schema."""

    fn: Callable[..., Any]
    read_only: bool


def evaluated_signature(fn: Callable[..., Any]) -> inspect.Signature:
    """`inspect.signature(fn, eval_str=True)`, but every `A | B` of typing forms is a union made for it.

    typing caches unions by their members, and `Literal`s with the same values in another order compare
    equal, so `Channel | None` could come back holding another environment's `Literal["phone", "chat"]`
    and its schema would list that order: which one depended on what this process had built before.
    """
    signature = inspect.signature(fn)
    namespace = getattr(inspect.unwrap(fn), "__globals__", {})
    return signature.replace(
        parameters=[p.replace(annotation=evaluate(p.annotation, namespace)) for p in signature.parameters.values()],
        return_annotation=evaluate(signature.return_annotation, namespace))


def evaluate(annotation: Any, namespace: dict[str, Any]) -> Any:
    """An annotation's text evaluated in `namespace` (an app's module), each `A | B` of typing forms a union made
    for it (see evaluated_signature); anything but text as it is."""
    if not isinstance(annotation, str):
        return annotation
    members = [eval(code, namespace) for code in _compiled(annotation)]  # the app's own source
    return union(*members)


def union(*members: Any) -> Any:
    """`A | B | ...` made for these members, never one typing cached for members that only compare equal."""
    if len(members) == 1:
        return members[0]
    if all(isinstance(m, type) or m is None for m in members):  # plain classes: `int | None`, never cached
        return functools.reduce(operator.or_, members)
    flat = [a for m in members for a in (typing.get_args(m) if typing.get_origin(m) is typing.Union else (m,))]
    uncached = getattr(typing.Union, "_getitem", None)  # what Union[...] runs under its cache (3.11-3.13)
    return uncached(typing.Union, tuple(flat)) if uncached else functools.reduce(operator.or_, flat)


@functools.cache
def _compiled(annotation: str) -> tuple[Any, ...]:
    """The members of a top-level `A | B | ...` annotation, compiled (annotation texts repeat across apps)."""
    members: list[ast.expr] = []

    def split(node: ast.expr) -> None:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            split(node.left)
            split(node.right)
        else:
            members.append(node)

    split(ast.parse(annotation, mode="eval").body)
    return tuple(compile(ast.Expression(m), "<annotation>", "eval") for m in members)


def cache_dir() -> Path:
    if settings.current().cache_dir:
        return Path(settings.current().cache_dir)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "envcraft"


@functools.cache
def _shared_digest() -> bytes:
    """The versions and the runtime's sources: read and hashed once per process, not once per server built."""
    import mcp
    import pydantic

    digest = hashlib.sha256(f"{FORMAT}|{getattr(mcp, '__version__', '')}|{pydantic.VERSION}".encode())
    for path in sorted(RUNTIME.rglob("*.py")):  # sandboxes/ too: named by their path in the package
        digest.update(str(path.relative_to(RUNTIME)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.digest()


def fingerprint(env_dir: Path, specs: list[ToolSpec]) -> str:
    """A hash of everything the schemas are derived from."""
    digest = hashlib.sha256(_shared_digest())
    for path in sorted([*Path(env_dir).glob("*.py"), *Path(env_dir).glob("*.json")]):  # tools.json: descriptions
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    for spec in specs:
        digest.update(f"{spec.fn.__name__}\0{spec.fn.__doc__}\0{spec.read_only}\0".encode())
    return digest.hexdigest()[:24]


def _load(path: Path, specs: list[ToolSpec]) -> list[dict[str, Any]] | None:
    try:
        entries = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(entries, list) or [e.get("name") for e in entries] != [s.fn.__name__ for s in specs]:
        return None  # a torn or foreign file: derive again
    return entries


def _store(path: Path, entries: list[dict[str, Any]]) -> None:
    """Atomically (another process may be writing the same entry); an unwritable cache is only slower."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp", encoding="utf-8") as handle:
            json.dump(entries, handle)
        os.replace(handle.name, path)
    except OSError:
        pass


_METADATA: dict[tuple[str, str, Any], Any] = {}  # (name, signature, returned type) -> the SDK's FuncMetadata


def _sdk_metadata(fn: Callable[..., Any]) -> Any:
    """The SDK's own argument and output models for `fn`, the argument model strict (strict_tool.py): the output
    model is what converts a result (an int in a float field is dumped as 2.0), so a cached tool answers byte for
    byte as an uncached one."""
    from mcp.server.mcpserver.utilities.func_metadata import func_metadata

    from .strict_tool import strict_metadata

    signature = inspect.signature(fn)
    # The returned type itself, not its name: a server built again from a reloaded module returns its own class
    # of the same name, which the other class's output model refuses (classes compare by identity).
    key = (fn.__name__, repr(signature), signature.return_annotation)
    try:
        return _METADATA[key]
    except KeyError:
        _METADATA[key] = strict_metadata(func_metadata(fn, structured_output=True))
        return _METADATA[key]
    except TypeError:  # an unhashable annotation: made for this tool alone
        return strict_metadata(func_metadata(fn, structured_output=True))


def _precomputed_tool_class() -> type:
    """A strict SDK `Tool` whose schemas were read from the cache and whose argument model is made on first use."""
    from typing import Any as AnyType

    from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
    from pydantic import Field

    from .strict_tool import StrictTool

    class PrecomputedTool(StrictTool):
        published_output: dict[str, AnyType] | None = Field(default=None, exclude=True)
        wrap_output: bool = Field(default=False, exclude=True)

        @property
        def output_schema(self) -> dict[str, AnyType] | None:  # the SDK's is derived from fn_metadata
            return self.published_output

        async def run(self, arguments: dict[str, AnyType], context: AnyType, convert_result: bool = False) -> AnyType:
            if self.fn_metadata is None:  # made on first call, by the SDK, and published as the cache says
                sdk = _sdk_metadata(self.fn)
                self.fn_metadata = FuncMetadata(arg_model=sdk.arg_model, output_schema=self.published_output,
                                                output_model=sdk.output_model if self.published_output else None,
                                                wrap_output=self.wrap_output)
            return await super().run(arguments, context, convert_result)

    return PrecomputedTool


_TOOL_CLASS: list[type] = []


def register(server: Any, env_dir: Path, specs: list[ToolSpec]) -> str:
    """Register `specs` on an MCPServer as strict tools (strict_tool.py: an unknown argument is refused); returns
    how: "sdk" (derived by the SDK now, no cache), "derived" (derived now and cached) or "cached" (read from the
    cache)."""
    from mcp.types import ToolAnnotations

    from .strict_tool import StrictTool

    tools = getattr(getattr(server, "_tool_manager", None), "_tools", None)
    if not isinstance(tools, dict):  # MCPServer.add_tool would register tools that ignore unknown arguments
        raise RuntimeError("this MCP SDK keeps no MCPServer._tool_manager._tools table: install the mcp version "
                           "pyproject.toml pins")

    def derive() -> list[Any]:
        built = [StrictTool.from_function(spec.fn, name=spec.fn.__name__, structured_output=True,
                                          annotations=ToolAnnotations(readOnlyHint=spec.read_only)) for spec in specs]
        for tool in built:
            tools[tool.name] = tool
        return built

    if not settings.current().tool_cache:
        derive()
        return "sdk"
    path = cache_dir() / "tool-schemas" / f"{Path(env_dir).name}-{fingerprint(env_dir, specs)}.json"
    entries = _load(path, specs)
    if entries is None:
        built = derive()
        _store(path, [{"name": t.name, "description": t.description, "input": t.parameters, "output": t.output_schema,
                       "wrap": t.fn_metadata.wrap_output} for t in built])
        return "derived"
    if not _TOOL_CLASS:
        _TOOL_CLASS.append(_precomputed_tool_class())
    for spec, entry in zip(specs, entries, strict=True):
        tools[entry["name"]] = _TOOL_CLASS[0].model_construct(
            fn=spec.fn, name=entry["name"], title=None, description=entry["description"], parameters=entry["input"],
            fn_metadata=None, is_async=True, context_kwarg=None, resolved_params={}, resolver_plans={},
            annotations=ToolAnnotations(readOnlyHint=spec.read_only), icons=None, meta=None,
            published_output=entry["output"], wrap_output=entry["wrap"])
    return "cached"
