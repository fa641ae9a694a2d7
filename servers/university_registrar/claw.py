"""Claw workspace runtime: the sandboxed workspace every environment in servers/ stands on.

Standard library only, so it also runs inside the shell sandbox, where the environment's CLI
verbs use it. It holds:

- `Workspace`: file access confined to one directory (no absolute paths, no `..`, no symlinks);
- `Store`: the app state, JSON tables under `.app/`, locked so MCP tools and CLI verbs can share it;
- `Shell`: shell commands run contained (bubblewrap namespaces, cgroup and rlimit bounds);
- `read` / `write` tags for domain operations, and the MCP and CLI adapters that expose them.

Trust boundary: this code is ours and trusted; every argument an agent sends (paths, text, shell
commands and whatever those commands run) is not, and is checked or contained here.
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import dataclasses
import fcntl
import fnmatch
import inspect
import json
import os
import re
import sys
import time
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

if __package__:
    from .sandbox import SOCKET_ENV, Limits, Shell, ToolFailure, request_operation
else:
    from sandbox import SOCKET_ENV, Limits, Shell, ToolFailure, request_operation

Tables = dict[str, list[dict[str, Any]]]

APP_DIR = ".app"  # app state; hidden from file listings, owned by the domain tools
STATE_FILE = "state.json"
ANSWER_FILE = "answer.json"
MAX_READ_CHARS = 100_000
MAX_WRITE_BYTES = 2_000_000
MAX_MATCHES = 200


# ---------------------------------------------------------------- workspace files


class Workspace:
    """A directory the agent may read and write, and nothing outside it."""

    def __init__(self, root: Path | str):
        self.root = Path(root).resolve()

    def resolve(self, path: str) -> Path:
        """Map an agent-supplied relative path to a real path inside the workspace."""
        if not isinstance(path, str) or not path.strip():
            raise ToolFailure("path is empty: give a path relative to the workspace, e.g. 'notes/todo.md'")
        if "\x00" in path:
            raise ToolFailure("path contains a NUL byte: give a plain relative path")
        if path.startswith(("/", "~")):
            raise ToolFailure(f"'{path}' is absolute: paths are relative to the workspace root, e.g. 'docs/plan.md'")
        parts = [p for p in Path(path).parts if p not in ("", ".")]
        if ".." in parts:
            raise ToolFailure(f"'{path}' leaves the workspace ('..' is not allowed): use a path inside it")
        current = self.root
        for part in parts:
            current = current / part
            if current.is_symlink():
                raise ToolFailure(f"'{path}' goes through a symlink, which file tools do not follow")
        return current

    def relative(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix() or "."

    def read(self, path: str, offset: int = 0, limit: int = 2000) -> str:
        target = self.resolve(path)
        if target.is_dir():
            raise ToolFailure(f"'{path}' is a directory: use list_dir to see what it holds")
        if not target.is_file():
            raise ToolFailure(f"'{path}' does not exist: use list_dir or find_files to locate the file")
        data = target.read_bytes()
        if b"\x00" in data[:4096]:
            raise ToolFailure(f"'{path}' is a binary file ({len(data)} bytes) and cannot be shown as text")
        lines = data.decode("utf-8", errors="replace").splitlines(keepends=True)
        chosen = "".join(lines[max(offset, 0) : max(offset, 0) + max(limit, 1)])
        if len(chosen) > MAX_READ_CHARS:
            chosen = chosen[:MAX_READ_CHARS] + f"\n[... cut at {MAX_READ_CHARS} characters: read less with offset/limit]"
        return chosen

    def write(self, path: str, content: str) -> int:
        target = self.resolve(path)
        data = content.encode("utf-8")
        if len(data) > MAX_WRITE_BYTES:
            raise ToolFailure(f"content is {len(data)} bytes; the limit is {MAX_WRITE_BYTES}: write a smaller file")
        if target.is_dir():
            raise ToolFailure(f"'{path}' is a directory: choose a file name inside it")
        self._guard_app_dir(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        return len(data)

    def edit(self, path: str, old: str, new: str, replace_all: bool = False) -> int:
        text = self.read(path, 0, 10**9)
        count = text.count(old) if old else 0
        if count == 0:
            raise ToolFailure(f"the text to replace was not found in '{path}': read the file and copy it exactly")
        if count > 1 and not replace_all:
            raise ToolFailure(f"the text occurs {count} times in '{path}': add context to make it unique, or set replace_all")
        self.write(path, text.replace(old, new) if replace_all else text.replace(old, new, 1))
        return count if replace_all else 1

    def list(self, path: str = ".") -> list[str]:
        target = self.resolve(path)
        if not target.is_dir():
            raise ToolFailure(f"'{path}' is not a directory: use list_dir on a folder, or read_file on a file")
        entries = []
        for child in sorted(target.iterdir()):
            if child.name == APP_DIR and target == self.root:
                continue
            entries.append(child.name + "/" if child.is_dir() and not child.is_symlink() else child.name)
        return entries

    def walk(self, path: str = ".") -> Iterator[Path]:
        """Files under path, sorted, skipping the app state and symlinks."""
        start = self.resolve(path)
        for folder, dirs, files in os.walk(start):
            dirs[:] = sorted(d for d in dirs if not (Path(folder) == self.root and d == APP_DIR))
            for name in sorted(files):
                candidate = Path(folder) / name
                if not candidate.is_symlink():
                    yield candidate

    def find(self, pattern: str, path: str = ".") -> list[str]:
        found = [self.relative(p) for p in self.walk(path) if fnmatch.fnmatch(self.relative(p), pattern) or fnmatch.fnmatch(p.name, pattern)]
        return found[:MAX_MATCHES]

    def grep(self, pattern: str, path: str = ".", glob: str = "*") -> list[str]:
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            raise ToolFailure(f"'{pattern}' is not a valid regular expression ({exc}): escape special characters")
        matches = []
        for file in self.walk(path):
            if not fnmatch.fnmatch(file.name, glob):
                continue
            try:
                text = file.read_text("utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            for number, line in enumerate(text.splitlines(), 1):
                if regex.search(line):
                    matches.append(f"{self.relative(file)}:{number}:{line[:300]}")
                    if len(matches) >= MAX_MATCHES:
                        return matches
        return matches

    def _guard_app_dir(self, target: Path) -> None:
        if (self.root / APP_DIR) in target.parents:
            raise ToolFailure("the app's own data under .app/ changes only through the domain tools or CLI verbs")


# ---------------------------------------------------------------- app state


class Store:
    """The app state of one workspace: named tables of JSON records, saved atomically."""

    def __init__(self, root: Path | str):
        self.dir = Path(root) / APP_DIR
        self.path = self.dir / STATE_FILE

    def read(self) -> Tables:
        try:
            return json.loads(self.path.read_text("utf-8"))
        except FileNotFoundError:
            raise ToolFailure("this workspace has no app state (.app/state.json): it was not initialised by the launcher")

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Tables]:
        """Load, let the caller change, and save only if no error escaped: a failed write changes nothing."""
        self.dir.mkdir(exist_ok=True)
        with open(self.dir / "lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            tables = self.read()
            yield tables
            tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(tables, indent=1, sort_keys=True), "utf-8")
            os.replace(tmp, self.path)

    def record_answer(self, answer: str) -> None:
        self.dir.mkdir(exist_ok=True)
        (self.dir / ANSWER_FILE).write_text(json.dumps({"answer": answer, "at": time.time()}), "utf-8")


def find_row(tables: Tables, table: str, key: str, value: Any, what: str, hint: str) -> dict[str, Any]:
    """The row whose `key` equals `value`, or a ToolFailure that tells the agent how to find one."""
    for row in tables.get(table, []):
        if row.get(key) == value:
            return row
    raise ToolFailure(f"no {what} with {key} '{value}': {hint}")


def next_id(tables: Tables, table: str, prefix: str) -> str:
    """Sequential ids (msg-0042) keep gold replays deterministic."""
    tail = [str(row.get("id", "")).removeprefix(prefix + "-") for row in tables.get(table, [])
            if str(row.get("id", "")).startswith(prefix + "-")]
    return f"{prefix}-{max((int(t) for t in tail if t.isdigit()), default=0) + 1:04d}"


# ---------------------------------------------------------------- domain operations


def read(fn: Callable) -> Callable:
    """Tag a domain operation that only reads the app state."""
    fn.writes = False
    return fn


def write(fn: Callable) -> Callable:
    """Tag a domain operation that changes the app state (saved only if it succeeds)."""
    fn.writes = True
    return fn


def call_operation(store: Store, op: Callable, /, **arguments: Any) -> Any:
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


def _public_signature(op: Callable) -> inspect.Signature:
    """The operation's signature without its leading `tables` parameter: what callers supply."""
    signature = inspect.signature(op, eval_str=True)
    return signature.replace(parameters=list(signature.parameters.values())[1:])


# ---------------------------------------------------------------- CLI adapter


def run_cli(prog: str, operations: list[Callable], argv: list[str] | None = None) -> int:
    """`<prog> <verb> --param value ...` inside the workspace; prints JSON; exit 2 on a usage error."""
    parser = argparse.ArgumentParser(prog=prog, description=f"{prog} domain verbs; every verb prints JSON.")
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    by_name = {}
    for op in operations:
        name = op.__name__.replace("_", "-")
        by_name[name] = op
        sub = verbs.add_parser(name, help=(op.__doc__ or "").strip().splitlines()[0])
        for param in _public_signature(op).parameters.values():
            flag = "--" + param.name.replace("_", "-")
            kind, required = param.annotation, param.default is inspect.Parameter.empty
            base = [a for a in typing.get_args(kind) if a is not type(None)][0] if typing.get_origin(kind) in (typing.Union, getattr(__import__("types"), "UnionType", None)) else kind
            if base is bool:
                sub.add_argument(flag, action=argparse.BooleanOptionalAction, default=param.default if not required else False)
            elif typing.get_origin(base) is list:
                sub.add_argument(flag, nargs="*", required=required, default=None if required else param.default)
            else:
                sub.add_argument(flag, type=base if base in (int, float) else str, required=required,
                                 default=None if required else param.default)
    args = vars(parser.parse_args(argv))
    op = by_name[args.pop("verb")]
    try:
        if os.environ.get(SOCKET_ENV):  # inside the sandbox: the app state is read-only, the server acts
            result = request_operation(os.environ[SOCKET_ENV], op.__name__, args)
        else:
            result = to_jsonable(call_operation(Store(os.environ.get("ENVCRAFT_WORKSPACE", ".")), op, **args))
    except ToolFailure as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(result, indent=1))
    return 0


# ---------------------------------------------------------------- MCP adapter


SCAFFOLDS = {
    "full": ("read_file", "write_file", "edit_file", "list_dir", "find_files", "grep", "run_shell", "finish"),
    "files": ("read_file", "write_file", "edit_file", "list_dir", "find_files", "grep", "finish"),
    "none": ("finish",),
}


WORKSPACE: contextvars.ContextVar[Path] = contextvars.ContextVar("envcraft_workspace")
"""The workspace of the current connection, for a server that serves many (set by the registry)."""


class _Episode:
    """What the tools of one workspace act through; made once per workspace path, then reused."""

    def __init__(self, root: Path, env_dir: Path, cli_name: str | None, operations: list[Callable], limits: Limits):
        self.workspace, self.store = Workspace(root), Store(root)
        self.by_name = {op.__name__: op for op in operations}
        self.cli_name = cli_name
        self.shell = Shell(root, env_dir, cli_name, limits, operations=self.operation)

    def operation(self, verb: str, arguments: dict[str, Any]) -> Any:
        """A CLI verb sent from inside the sandbox, run with the same checks as the MCP tool."""
        if verb not in self.by_name:
            raise ToolFailure(f"unknown verb {verb!r}: run `{self.cli_name} --help`")
        try:
            return to_jsonable(call_operation(self.store, self.by_name[verb], **arguments))
        except TypeError as exc:
            raise ToolFailure(f"bad arguments for {verb}: {exc}") from None


def add_claw_tools(server: Any, root: Path | None, env_dir: Path, cli_name: str | None, operations: list[Callable],
                   limits: Limits = Limits(), scaffold: str = "full") -> None:
    """Register scaffold tools and the domain verbs on an MCPServer.

    root: the one workspace this server acts on, or None for a server shared by many episodes,
    where each connection's workspace is WORKSPACE (a context variable the registry sets before
    it connects; every task serving that connection inherits it).
    scaffold: "full" (files + shell + finish: claw workspace), "files" (no shell: claw tool),
    "none" (finish only: general tool-use over app state).
    """
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations

    episodes: dict[Path, _Episode] = {}

    def current() -> _Episode:
        path = root if root is not None else WORKSPACE.get(None)
        if path is None:  # fail closed: a shared server never guesses a workspace
            raise ToolFailure("no workspace is bound to this connection: connect through the registry")
        episode = episodes.get(path)
        if episode is None:
            if len(episodes) >= 4096:
                for stale in [p for p in episodes if not p.exists()] or list(episodes)[:1]:
                    episodes.pop(stale).shell.close()
            episode = episodes[path] = _Episode(Path(path), env_dir, cli_name, operations, limits)
        return episode

    def tool(fn: Callable, read_only: bool, name: str | None = None) -> None:
        def guarded(**kwargs: Any) -> Any:
            try:
                return fn(**kwargs)
            except ToolFailure as exc:
                raise ToolError(str(exc)) from None

        guarded.__name__ = name or fn.__name__
        guarded.__doc__ = fn.__doc__
        guarded.__signature__ = inspect.signature(fn, eval_str=True)
        server.add_tool(guarded, name=guarded.__name__, annotations=ToolAnnotations(readOnlyHint=read_only), structured_output=True)

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
        """Declare the task done; put the answer here when the task asks a question."""
        current().store.record_answer(answer)
        return "recorded: the episode is complete"

    for fn, read_only in ((read_file, True), (write_file, False), (edit_file, False), (list_dir, True),
                          (find_files, True), (grep, True), (run_shell, False), (finish, False)):
        if fn.__name__ in SCAFFOLDS[scaffold]:
            tool(fn, read_only)

    for op in operations:
        def bound(_op: Callable = op, **kwargs: Any) -> Any:
            return call_operation(current().store, _op, **kwargs)

        bound.__name__, bound.__doc__ = op.__name__, op.__doc__
        bound.__signature__ = _public_signature(op)
        tool(bound, not op.writes)
