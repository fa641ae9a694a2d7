"""The CLI adapter: an environment's domain verbs as a command line, for the shell in its workspace.

    python3 -m envcraft_runtime.cli <prog> <env-dir> <verb> --param value ...

Each environment's `bin/<prog>` shim runs this; it loads <env-dir>/app.py by path and prints JSON.
Inside the sandbox the app state is read-only, so the verb is sent to the server (opsocket.py).
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import math
import os
import sys
import types
import typing
from collections.abc import Callable
from pathlib import Path

from .failures import ToolFailure
from .operations import call_operation, public_signature, to_jsonable
from .opsocket import SOCKET_ENV, request_operation
from .store import Store


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def _base_type(kind: typing.Any) -> typing.Any:
    """`int | None` -> int; other annotations as they are."""
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        return next(a for a in typing.get_args(kind) if a is not type(None))
    return kind


def run_cli(prog: str, operations: list[Callable], argv: list[str] | None = None) -> int:
    """`<prog> <verb> --param value ...` inside the workspace; prints JSON; exit 2 on a usage error."""
    parser = argparse.ArgumentParser(prog=prog, description=f"{prog} domain verbs; every verb prints JSON.")
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    by_name = {}
    for op in operations:
        name = op.__name__.replace("_", "-")
        by_name[name] = op
        sub = verbs.add_parser(name, help=(op.__doc__ or "").strip().splitlines()[0])
        for param in public_signature(op).parameters.values():
            flag = "--" + param.name.replace("_", "-")
            required = param.default is inspect.Parameter.empty
            base = _base_type(param.annotation)
            if base is bool:
                sub.add_argument(flag, action=argparse.BooleanOptionalAction, default=param.default if not required else False)
            elif typing.get_origin(base) is list:
                sub.add_argument(flag, nargs="*", required=required, default=None if required else param.default)
            else:
                convert = int if base is int else _finite_float if base is float else str
                sub.add_argument(flag, type=convert, required=required, default=None if required else param.default)
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


def load_app(env_dir: Path) -> types.ModuleType:
    """<env-dir>/app.py, imported by path (it imports only the standard library and this runtime)."""
    spec = importlib.util.spec_from_file_location("envcraft_cli_app", Path(env_dir) / "app.py")
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"{env_dir}/app.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2:
        print("usage: python3 -m envcraft_runtime.cli <prog> <env-dir> <verb> [--param value ...]", file=sys.stderr)
        return 2
    prog, env_dir, rest = argv[0], argv[1], argv[2:]
    return run_cli(prog, load_app(Path(env_dir)).OPERATIONS, rest)


if __name__ == "__main__":
    sys.exit(main())
