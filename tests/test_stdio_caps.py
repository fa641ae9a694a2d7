"""Over stdio a message past the cap is refused while it is read: the server's memory stays flat, the agent is told
what to do, and the server keeps serving. Real server processes over real pipes, generated and hand-written."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time

import httpx
import pytest
from envcraft.registry.catalog import get
from envcraft_runtime.capped_stdio import MAX_MESSAGE_BYTES, refusal

from tests.helpers import free_port, wait_for_port

HUGE = 120 * 2**20  # the content of one write_file call, 15 times the cap


def _status_kb(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError(f"no {field} for {pid}")


class _Wire:
    """A server process spoken to in raw JSON-RPC lines, so a line can be larger than any client would send."""

    def __init__(self, argv: list[str]):
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def send(self, message: dict) -> None:
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def reply(self, request: int | None, seconds: float = 120.0) -> dict:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                raise AssertionError(f"the server closed without answering request {request}")
            message = json.loads(line)
            if message.get("id") == request:
                return message
        raise AssertionError(f"no answer to request {request} within {seconds} s")

    def call(self, request: int, tool: str, arguments: dict) -> dict:
        self.send({"jsonrpc": "2.0", "id": request, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
        return self.reply(request)


@pytest.mark.parametrize("env_name", ["office", "vet_clinic"])
def test_an_oversized_stdio_call_is_refused_while_read_and_the_server_keeps_serving(tmp_path, env_name):
    env = get(env_name)
    workspace = tmp_path / "ws"
    shutil.copytree(env.seed, workspace)
    wire = _Wire([sys.executable, str(env.entrypoint), "--workspace", str(workspace)])
    try:
        wire.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
        wire.reply(1)
        wire.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert not wire.call(2, "list_dir", {"path": "."})["result"]["isError"]
        idle_kb = _status_kb(wire.process.pid, "VmRSS")

        start = b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "write_file", "arguments": ' \
                b'{"path": "big.txt", "content": "'
        wire.process.stdin.write(start)
        for _ in range(HUGE // 2**20):
            wire.process.stdin.write(b"x" * 2**20)
        wire.process.stdin.write(b'"}}}\n')
        wire.process.stdin.flush()
        refused = wire.reply(3)
        peak_kb = _status_kb(wire.process.pid, "VmHWM")
        print(f"{env_name}: idle RSS {idle_kb / 1024:.0f} MB, peak {peak_kb / 1024:.0f} MB "
              f"after a {HUGE / 2**20:.0f} MB line")
        assert peak_kb - idle_kb < 64 * 1024, f"the server grew by {(peak_kb - idle_kb) / 1024:.0f} MB"
        assert refused["result"]["isError"], refused  # a tool result the agent reads, not a broken server
        told = refused["result"]["content"][0]["text"]
        assert f"over the {MAX_MESSAGE_BYTES // 2**20} MB" in told and "in parts" in told
        assert not (workspace / "big.txt").exists()

        # The id after the payload: nothing to answer but a parse error with id null; memory as flat.
        wire.process.stdin.write(b'{"jsonrpc": "2.0", "params": {"name": "write_file", "arguments": {"path": "b.txt", '
                                 b'"content": "' + b"x" * (MAX_MESSAGE_BYTES + 2**20) + b'"}}, "id": 9, "method": "tools/call"}\n')
        wire.process.stdin.flush()
        unknown = wire.reply(None)
        assert unknown["error"]["code"] == -32700 and "in parts" in unknown["error"]["message"]
        assert _status_kb(wire.process.pid, "VmHWM") - idle_kb < 64 * 1024

        written = wire.call(4, "write_file", {"path": "small.txt", "content": "fits\n"})
        assert not written["result"]["isError"]
        assert (workspace / "small.txt").read_text() == "fits\n"
    finally:
        wire.process.kill()
        wire.process.wait()


def test_the_refusal_answers_the_request_the_line_began():
    def answer(head: bytes) -> dict:
        return refusal(head, 9 * 2**20).model_dump(by_alias=True, exclude_unset=True, mode="json")

    call = answer(b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "write_file", "arguments": {"x')
    assert call["id"] == 7 and call["result"]["isError"] and "9.0 MB" in call["result"]["content"][0]["text"]
    other = answer(b' {"id":"r-1","method":"resources/read","params":{"x')
    assert other["id"] == "r-1" and other["error"]["code"] == -32600
    for unread in (b'{"jsonrpc": "2.0", "params": {"id": 9, "content": "xxxx',  # an id inside params is not the request's
                   b'{"jsonrpc": "2.0", "id": true, "method": "tools/call", "params": {"',
                   b'not json at all'):
        assert answer(unread)["id"] is None and answer(unread)["error"]["code"] == -32700


def _stream_chunked(port: int, size: int) -> bytes:
    """POST `size` bytes to /mcp in chunks with no declared length, so only a cap that counts while it reads can
    stop it; returns the status line the server answered with."""

    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"%x\r\n%s\r\n" % (2**20, b"x" * 2**20)
        try:
            for _ in range(size // 2**20):
                sock.sendall(chunk)
            sock.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed before the body ended
        return sock.makefile("rb").readline()


@pytest.mark.parametrize("how", ["envcraft serve", "server.py --http"])
def test_an_oversized_http_body_is_refused_while_read(tmp_path, how):
    env, port = get("office" if how == "envcraft serve" else "vet_clinic"), free_port()
    workspace = tmp_path / "ws"
    shutil.copytree(env.seed, workspace)
    argv = ([sys.executable, "-m", "envcraft.cli", "serve", "office"] if how == "envcraft serve"
            else [sys.executable, str(env.entrypoint), "--http"])
    process = subprocess.Popen(argv + ["--workspace", str(workspace), "--port", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port)
        idle_kb = _status_kb(process.pid, "VmRSS")
        status = _stream_chunked(port, HUGE)
        peak_kb = _status_kb(process.pid, "VmHWM")
        print(f"{how}: idle RSS {idle_kb / 1024:.0f} MB, peak {peak_kb / 1024:.0f} MB after a {HUGE / 2**20:.0f} MB body")
        assert b" 413 " in status
        assert peak_kb - idle_kb < 64 * 1024, f"the server grew by {(peak_kb - idle_kb) / 1024:.0f} MB"
        hello = httpx.post(f"http://127.0.0.1:{port}/mcp", headers={"Accept": "application/json, text/event-stream"},
                           json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                               "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
        assert hello.status_code == 200
    finally:
        process.terminate()
        process.wait(timeout=30)
