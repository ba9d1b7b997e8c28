"""The MCP server's stdio reader: every line the SDK cannot read is answered, not dropped
(``docs/mcp.md``, "Errors")."""

from __future__ import annotations

import json
from typing import Any

import anyio
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError


class AnsweringReader:
    """The stdio transport's stream of incoming messages, answering what it cannot read.

    The SDK's stdio reader hands on a line it cannot read as JSON-RPC (a lone surrogate such
    as ``"\\ud800"`` in a string, which is no Unicode text; invalid JSON) as an exception,
    and its dispatcher drops that with a debug log: the client waits for ever for the
    answer. Here a request among them (a JSON object with a ``method`` and an ``id``, as
    Python's JSON reader, which takes lone surrogates, reads it) gets a JSON-RPC error with
    its id, saying what is wrong; any other unreadable line gets JSON-RPC's parse error
    with a null id. Notifications and responses get nothing, as JSON-RPC says."""

    def __init__(self, stream: Any, write: Any) -> None:
        self._stream = stream
        self._write = write

    @property
    def last_context(self) -> Any:
        """The sender's context of the last message (what the SDK's dispatcher reads)."""
        return getattr(self._stream, "last_context", None)

    async def receive(self) -> Any:
        while True:
            item = await self._stream.receive()
            if not isinstance(item, Exception):
                return item
            answer = unreadable_answer(item)
            if answer is not None:
                await self._write.send(SessionMessage(answer))

    def __aiter__(self) -> AnsweringReader:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> AnsweringReader:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def unreadable_answer(error: Exception) -> JSONRPCError | None:
    """The JSON-RPC error that answers a line the SDK could not read (``error``, which
    carries the line as pydantic's input), or ``None`` for a line that wants no answer."""
    line = ""
    if isinstance(error, ValidationError):
        line = next((str(e["input"]) for e in error.errors() if isinstance(e["input"], str)), "")
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return JSONRPCError(
            jsonrpc="2.0", id=None, error=ErrorData(code=PARSE_ERROR, message="Parse error")
        )
    if not isinstance(message, dict) or "method" not in message or "id" not in message:
        return None  # a notification or a response: JSON-RPC answers neither
    request_id = message["id"]
    if not (isinstance(request_id, int | str) and _is_unicode(request_id)):
        request_id = None  # an id we cannot write back (a lone surrogate in it)
    problem = (
        "is not a valid JSON-RPC request"
        if _is_unicode(message)
        else "holds a lone surrogate (a \\ud800-\\udfff escape without its pair), which is "
        "no Unicode text; send text as UTF-8"
    )
    return JSONRPCError(
        jsonrpc="2.0",
        id=request_id,
        error=ErrorData(code=INVALID_REQUEST, message=f"Invalid request: the request {problem}"),
    )


def _is_unicode(value: object) -> bool:
    """Whether ``value`` (read from JSON) holds only Unicode text: no lone surrogate, which
    UTF-8 cannot encode (a pair read from JSON is already one character)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, RecursionError):
        return False
    return True
