"""The operation socket: how CLI verbs run inside the sandbox reach the app state.

Under bwrap the app state (`.app/`) is mounted read-only; the CLI sends one JSON request per
connection to a Unix socket served by the trusted server, which runs the same checked operation
as the MCP tool.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import socket
import tempfile
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .failures import ToolFailure

SOCKET_ENV = "ENVCRAFT_OPS_SOCKET"
MAX_REQUEST_BYTES = 1_000_000

Handler = Callable[[str, dict[str, Any]], Any]  # (operation name, arguments) -> JSON-able result


def _refuse_constant(name: str) -> Any:
    raise ToolFailure(f"{name} is not a number an operation accepts: send a finite number")


class OperationSocket:
    """The server end of the CLI verbs inside the sandbox: one JSON request and reply per connection.

    The socket lives in a folder named after this process under <tmp>/envcraft (`run-<pid>-ops-*`),
    so a registry start reaps it if this process dies without cleaning up.
    """

    def __init__(self, handler: Handler):
        self.handler = handler
        base = Path(tempfile.gettempdir()) / "envcraft"
        base.mkdir(parents=True, exist_ok=True)
        self.folder = Path(tempfile.mkdtemp(prefix=f"run-{os.getpid()}-ops-", dir=base))
        self.path = self.folder / "ops.sock"
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(str(self.path))
        os.chmod(self.path, 0o666)
        self._listener.listen(16)
        self._cleanup = weakref.finalize(self, shutil.rmtree, self.folder, True)  # also at interpreter exit
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection: socket.socket) -> None:
        connection.settimeout(30)
        with connection, connection.makefile("rwb") as stream:
            try:
                request = json.loads(stream.readline(MAX_REQUEST_BYTES) or b"{}", parse_constant=_refuse_constant)
                reply = {"ok": self.handler(str(request.get("verb")), dict(request.get("args") or {}))}
            except ToolFailure as exc:
                reply = {"error": str(exc)}
            except Exception as exc:  # a bad request must not take the server down
                reply = {"error": f"{type(exc).__name__}: {exc}"}
            with contextlib.suppress(OSError):
                stream.write(json.dumps(reply).encode() + b"\n")

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._listener.close()
        self._cleanup()


def request_operation(path: str, verb: str, args: dict[str, Any]) -> Any:
    """The CLI end: ask the server to run one operation; a refusal comes back as ToolFailure."""
    for name, value in args.items():
        if isinstance(value, float) and not math.isfinite(value):
            raise ToolFailure(f"--{name.replace('_', '-')} is {value!r}: numbers must be finite")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(path)
        with client.makefile("rwb") as stream:
            stream.write(json.dumps({"verb": verb, "args": args}).encode() + b"\n")
            stream.flush()
            reply = json.loads(stream.readline() or b"{}")
    if "error" in reply:
        raise ToolFailure(reply["error"])
    return reply.get("ok")
