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
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .failures import ToolFailure

SOCKET_ENV = "ENVCRAFT_OPS_SOCKET"
MAX_REQUEST_BYTES = 1_000_000
SERVED_AT_ONCE = 4  # connections answered at once per socket; more wait in the kernel's backlog, costing no thread
REQUEST_SECONDS = 10.0  # to send the whole request: a slow sender cannot hold a slot longer

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
        self._slots = threading.BoundedSemaphore(SERVED_AT_ONCE)
        self._cleanup = weakref.finalize(self, shutil.rmtree, self.folder, True)  # also at interpreter exit
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        """Accept only while a slot is free: a flood of connections (thousands from one sandbox) waits in
        the backlog instead of becoming thousands of threads in the server that other episodes share."""
        while True:
            self._slots.acquire()
            try:
                connection, _ = self._listener.accept()
            except OSError:
                self._slots.release()
                return
            try:
                threading.Thread(target=self._answer, args=(connection,), daemon=True).start()
            except RuntimeError:  # no thread to be had: refuse this one, keep serving
                connection.close()
                self._slots.release()

    @staticmethod
    def _read_request(connection: socket.socket) -> bytes:
        """One line, within one overall deadline (a per-read timeout lets a byte every few seconds hold on)."""
        deadline = time.monotonic() + REQUEST_SECONDS
        data = bytearray()
        while b"\n" not in data and len(data) < MAX_REQUEST_BYTES:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ToolFailure(f"the request took longer than {REQUEST_SECONDS:.0f}s to arrive: send it in one go")
            connection.settimeout(left)
            chunk = connection.recv(65536)
            if not chunk:
                break
            data += chunk
        return bytes(data[:MAX_REQUEST_BYTES]).split(b"\n", 1)[0]

    def _answer(self, connection: socket.socket) -> None:
        try:
            with connection:
                try:
                    request = json.loads(self._read_request(connection) or b"{}", parse_constant=_refuse_constant)
                    reply = {"ok": self.handler(str(request.get("verb")), dict(request.get("args") or {}))}
                except ToolFailure as exc:
                    reply = {"error": str(exc)}
                except Exception as exc:  # noqa: BLE001 - a bad request must not take the server down
                    reply = {"error": f"{type(exc).__name__}: {exc}"}
                with contextlib.suppress(OSError):  # the sender may be gone (killed with its command)
                    connection.settimeout(REQUEST_SECONDS)
                    connection.sendall(json.dumps(reply).encode() + b"\n")
        finally:
            self._slots.release()

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
