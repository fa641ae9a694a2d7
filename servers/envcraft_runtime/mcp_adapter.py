"""The MCP adapter: scaffold tools (files, shell, finish) and an app's domain operations as MCP tools.

`mcp` is imported only when tools are registered, so the CLI inside the sandbox never loads it.
"""

from __future__ import annotations

import atexit
import contextlib
import contextvars
import functools
import inspect
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .failures import ToolFailure
from .limits import Limits
from .operations import MAX_ARGUMENT_CHARS, call_operation, check_arguments, public_signature, to_jsonable
from .sandboxes import open_shell
from .store import ANSWER_LIMIT, Store
from .tool_cache import evaluated_signature
from .workspace import MAX_WRITE_BYTES, Workspace

EPISODE_CALLS = 4  # tool calls of one episode running at once; more wait their turn without holding a thread

SCAFFOLDS = {
    "full": ("read_file", "write_file", "edit_file", "list_dir", "find_files", "grep", "run_shell", "finish"),
    "files": ("read_file", "write_file", "edit_file", "list_dir", "find_files", "grep", "finish"),
    "none": ("finish",),
}


WORKSPACE: contextvars.ContextVar[Path] = contextvars.ContextVar("envcraft_workspace")
"""The workspace of the current connection, for a server that serves many (set by the registry)."""

_SERVED: list[dict[Path, _Episode]] = []  # the episodes of every server this process built, by workspace
_SERVED_LOCK = threading.Lock()


def end_episode(workspace: Path) -> None:
    """End the episode acting on `workspace`, in every server of this process: its processes are killed and found
    gone, its uid released, and the next connection on that folder (a pooled workspace handed on) starts afresh.
    Raises shell.EpisodeNotEnded if a process outlived the kill: the workspace must not be handed on."""
    with _SERVED_LOCK:
        ended = [found for episodes in _SERVED if (found := episodes.pop(Path(workspace), None)) is not None]
    for episode in ended:
        episode.shell.close()


def end_all() -> None:
    """End every episode of this process (at exit: a stdio server's sandboxes go with it, not after it)."""
    with _SERVED_LOCK:
        paths = {path for episodes in _SERVED for path in episodes}
    for path in paths:
        with contextlib.suppress(Exception):
            end_episode(path)


class _Episode:
    """What the tools of one workspace act through; made once per workspace path, then reused."""

    def __init__(self, root: Path, env_dir: Path, cli_name: str | None, operations: list[Callable], limits: Limits):
        self.workspace, self.store = Workspace(root), Store(root)
        self.by_name = {op.__name__: op for op in operations}
        self._schemas: dict[str, Any] = {}
        self.cli_name = cli_name
        self.shell = open_shell(root, env_dir, cli_name, limits, operations=self.operation)
        self.limiter: Any = None  # an anyio.CapacityLimiter, made on first use inside the event loop

    def operation(self, verb: str, arguments: dict[str, Any]) -> Any:
        """A CLI verb sent from inside the sandbox, run with the same checks as the MCP tool."""
        if verb not in self.by_name:
            raise ToolFailure(f"unknown verb {verb!r}: run `{self.cli_name} --help`")
        try:
            arguments = self._checked(verb, arguments)
            return to_jsonable(call_operation(self.store, self.by_name[verb], **arguments))
        except TypeError as exc:
            raise ToolFailure(f"bad arguments for {verb}: {exc}") from None

    def _checked(self, verb: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The arguments validated against the operation's signature, as the MCP tool does (strict_tool.py): a
        request written straight to the socket cannot store an object where the tool takes text."""
        import pydantic  # the server side only (mcp depends on it); the CLI in the sandbox never gets here

        from .strict_tool import refusal

        model = self._schemas.get(verb)
        if model is None:
            fields = {p.name: (p.annotation, ... if p.default is inspect.Parameter.empty else p.default)
                      for p in public_signature(self.by_name[verb]).parameters.values()}
            model = self._schemas[verb] = pydantic.create_model(
                f"{verb}_arguments", __config__=pydantic.ConfigDict(extra="forbid"), **fields)
        try:
            validated = model.model_validate(arguments)
        except pydantic.ValidationError as exc:
            raise ToolFailure(refusal(verb, model, exc, f"Run `{self.cli_name} {verb.replace('_', '-')} --help`.")) from None
        return {name: getattr(validated, name) for name in model.model_fields}


# What each parameter of the scaffold tools takes: the input schemas carry it, as the domain tools' do.
SCAFFOLD_PARAMETERS = {
    "read_file": {"path": "a file's path inside the workspace, like docs/notes.md",
                  "offset": "the first line to show, counted from 0 (default 0)",
                  "limit": "how many lines to show at most (default 2000)"},
    "write_file": {"path": "a file's path inside the workspace; missing parent folders are created",
                   "content": f"the file's whole new text, at most {MAX_WRITE_BYTES} bytes (replaces what was there)"},
    "edit_file": {"path": "a file's path inside the workspace",
                  "old_text": "the exact text to replace, as the file holds it (spaces and line breaks too)",
                  "new_text": "the text to put in its place",
                  "replace_all": "true: replace every occurrence; false (default): old_text must occur exactly once"},
    "list_dir": {"path": "a folder inside the workspace (default '.': the workspace itself)"},
    "find_files": {"pattern": "a glob matched against each path and name, like '*.csv' or 'docs/*'",
                   "path": "the folder to search under (default '.': the whole workspace)"},
    "grep": {"pattern": "a regular expression matched on each line, like 'invoice|receipt' (no backreferences)",
             "path": "a file, or a folder to search under (default '.': the whole workspace)",
             "glob": "only files whose name matches this glob, like '*.md' (default '*': every file)"},
    "run_shell": {"command": "a bash command line, run in the workspace",
                  "timeout_seconds": "seconds before the command is stopped (default 20; never more than the server "
                                     "allows)"},
    "finish": {"answer": f"your report: what you did, what you left undone and why, and the answer to any question "
                         f"asked; at most {ANSWER_LIMIT} characters"},
}


def described_signature(op: Callable, notes: dict[str, str] | None = None) -> inspect.Signature:
    """The operation's public signature, each parameter carrying its description (format, unit, allowed values;
    `op.parameters`, from the app's tools.json: derived.py, or `notes`), so the tool's input schema shows it: agents
    read the schema, not the docstring. Types stay as the signature has them. A scaffold tool (no `tables`) is
    described from SCAFFOLD_PARAMETERS."""
    signature = public_signature(op) if notes is None else evaluated_signature(op)
    notes = getattr(op, "parameters", {}) if notes is None else notes
    if not notes:
        return signature
    from typing import Annotated

    from pydantic import Field

    return signature.replace(parameters=[
        p.replace(annotation=Annotated[p.annotation, Field(description=notes[p.name])]) if p.name in notes else p
        for p in signature.parameters.values()])


def add_claw_tools(server: Any, root: Path | None, env_dir: Path, cli_name: str | None, operations: list[Callable],
                   limits: Limits = Limits(), scaffold: str = "full") -> None:
    """Register scaffold tools and the domain verbs on an MCPServer.

    root: the one workspace this server acts on, or None for a server shared by many episodes,
    where each connection's workspace is WORKSPACE (a context variable the registry sets before
    it connects; every task serving that connection inherits it).
    scaffold: "full" (files + shell + finish: claw workspace), "files" (no shell: claw tool),
    "none" (finish only: general tool-use over app state).
    """
    import anyio.to_thread
    from mcp.server.mcpserver.exceptions import ToolError

    from .capped_stdio import IN_PARTS, cap_stdio
    from .tool_cache import ToolSpec, register

    episodes: dict[Path, _Episode] = {}
    specs: list[ToolSpec] = []
    with _SERVED_LOCK:
        if not _SERVED:
            atexit.register(end_all)
        _SERVED.append(episodes)

    def current() -> _Episode:
        path = root if root is not None else WORKSPACE.get(None)
        if path is None:  # fail closed: a shared server never guesses a workspace
            raise ToolFailure("no workspace is bound to this connection: connect through the registry")
        stale: list[_Episode] = []
        with _SERVED_LOCK:
            episode = episodes.get(Path(path))
            if episode is None:
                if len(episodes) >= 4096:
                    stale = [episodes.pop(p) for p in [p for p in episodes if not p.exists()] or list(episodes)[:1]]
                episode = episodes[Path(path)] = _Episode(Path(path), env_dir, cli_name, operations, limits)
        for old in stale:
            with contextlib.suppress(Exception):
                old.shell.close()
        return episode

    def tool(fn: Callable, read_only: bool, max_chars: int, name: str | None = None) -> None:
        async def guarded(**kwargs: Any) -> Any:
            """Off the event loop, in the episode's own bounded pool: one episode's slow calls queue
            behind each other, never in front of another episode's."""
            try:
                check_arguments(kwargs, max_chars)
                episode = current()
                if episode.limiter is None:
                    episode.limiter = anyio.CapacityLimiter(EPISODE_CALLS)
                return await anyio.to_thread.run_sync(functools.partial(fn, **kwargs), limiter=episode.limiter)
            except ToolFailure as exc:
                raise ToolError(str(exc)) from None

        guarded.__name__ = name or fn.__name__
        guarded.__doc__ = fn.__doc__
        guarded.__signature__ = evaluated_signature(fn)
        specs.append(ToolSpec(guarded, read_only))

    def read_file(path: str, offset: int = 0, limit: int = 2000) -> str:
        """Read a text file in the workspace; offset/limit select lines (0-based)."""
        return current().workspace.read(path, offset, limit)

    def write_file(path: str, content: str) -> str:
        """Create or overwrite a text file in the workspace (parent folders are created)."""
        return f"wrote {current().workspace.write(path, content)} bytes to {path}"

    def edit_file(path: str, old_text: str, new_text: str, replace_all: bool = False) -> str:
        """Replace exact text in a file; old_text must occur once unless replace_all is set."""
        return f"replaced {current().workspace.edit(path, old_text, new_text, replace_all)} occurrence(s) in {path}"

    def list_dir(path: str = ".") -> list[str]:
        """List a folder of the workspace; folders end with '/'."""
        return current().workspace.list(path)

    def find_files(pattern: str, path: str = ".") -> list[str]:
        """Find files whose path or name matches a glob pattern such as '*.csv' or 'docs/*'."""
        return current().workspace.find(pattern, path)

    def grep(pattern: str, path: str = ".", glob: str = "*") -> list[str]:
        """Search file contents with a regular expression; returns 'path:line:text' matches."""
        return current().workspace.grep(pattern, path, glob)

    def run_shell(command: str, timeout_seconds: float = 20.0) -> str:
        """Run a shell command in the workspace (no network; writes only inside the workspace).
        The app's verbs are a CLI here: run `%s --help`."""
        return current().shell.run(command, timeout_seconds).render()

    run_shell.__doc__ = run_shell.__doc__ % (cli_name or "ls")

    def finish(answer: str = "") -> str:
        """Declare the task done with your report: what you did, what you left undone and why, and the answer to
        any question asked, in any common format, at most %d characters. A value counts when it is stated
        about the record asked; offering several candidates for it is not credited."""
        current().store.record_answer(answer)
        return "recorded: the episode is complete"

    finish.__doc__ = finish.__doc__ % ANSWER_LIMIT

    for fn, read_only in ((read_file, True), (write_file, False), (edit_file, False), (list_dir, True),
                          (find_files, True), (grep, True), (run_shell, False), (finish, False)):
        if fn.__name__ in SCAFFOLDS[scaffold]:
            fn.__signature__ = described_signature(fn, SCAFFOLD_PARAMETERS[fn.__name__])  # type: ignore[attr-defined]
            tool(fn, read_only, MAX_WRITE_BYTES)

    for op in operations:
        def bound(_op: Callable = op, **kwargs: Any) -> Any:
            return call_operation(current().store, _op, **kwargs)

        bound.__name__, bound.__doc__ = op.__name__, op.__doc__
        bound.__signature__ = described_signature(op)
        tool(bound, not op.writes, MAX_ARGUMENT_CHARS)

    cap_stdio(server, IN_PARTS if "run_shell" in SCAFFOLDS[scaffold] else "")  # refused while read, not after
    register(server, env_dir, specs)  # schemas derived by the SDK once per machine (tool_cache.py)
