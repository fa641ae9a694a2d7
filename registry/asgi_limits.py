"""Small ASGI pieces the gateway's agent plane uses to bound a request: refuse it with a JSON
error, read its declared length, cap its streamed body, and see whether a response has started."""

from __future__ import annotations

from starlette.responses import JSONResponse
from starlette.types import Message, Receive, Scope, Send


async def refuse(send: Send, status: int, message: str) -> None:
    await JSONResponse({"error": message}, status_code=status)({"type": "http"}, _no_body, send)


async def _no_body() -> Message:
    return {"type": "http.disconnect"}


def declared_length(scope: Scope) -> int:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            return int(value) if value.isdigit() else 2**63
    return 0


class CappedReceive:
    """Hands the body through until it passes the cap, then tells the app the client has gone."""

    def __init__(self, receive: Receive, cap: int):
        self.receive, self.cap, self.seen, self.over = receive, cap, 0, False

    async def __call__(self) -> Message:
        if self.over:
            return {"type": "http.disconnect"}
        message = await self.receive()
        if message["type"] == "http.request":
            self.seen += len(message.get("body", b""))
            if self.seen > self.cap:
                self.over = True
                return {"type": "http.disconnect"}
        return message


class Tracked:
    def __init__(self, send: Send):
        self.send, self.started = send, False

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.started = True
        await self.send(message)
