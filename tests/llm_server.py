"""A tiny OpenAI-compatible ``/v1/chat/completions`` server on 127.0.0.1 for the tests.

Its "model" is a script: a function from the request's facts (the JSON object the LLM pass
puts in its user message) to the reply text, so each test says exactly what the model
answers. It records every request, can demand an API key, and can answer with an HTTP
error instead (``status``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Script = Callable[[dict[str, Any]], str]


def pair_answers(verdicts: dict[tuple[str, str], str]) -> Script:
    """A model that answers the verdict given for each (earlier, new) pair, and
    "compatible" for any other pair."""

    def answer(facts: dict[str, Any]) -> str:
        verdict = verdicts.get((facts["earlier fact"], facts["new fact"]), "compatible")
        return json.dumps({"same_slot": verdict != "compatible", "verdict": verdict})

    return answer


def place_answers(categories: dict[str, str]) -> Script:
    """A model that files each fact given under its category, any other under general."""

    def answer(facts: dict[str, Any]) -> str:
        return json.dumps({"category": categories.get(facts["fact"], "facts/general.md")})

    return answer


class LLMServer(ThreadingHTTPServer):
    script: Script
    requests: list[dict[str, Any]]  # the request bodies, in order
    status: int  # 200, or the HTTP error to answer every request with
    key: str

    def facts(self, number: int = -1) -> dict[str, Any]:
        """The facts object of one request (the last by default)."""
        return dict(json.loads(self.requests[number]["messages"][-1]["content"]))


class _Handler(BaseHTTPRequestHandler):
    server: LLMServer

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:
        server = self.server
        if self.path != "/v1/chat/completions":
            self.send_error(404)
            return
        if server.key and self.headers.get("Authorization") != f"Bearer {server.key}":
            self.send_error(401, "bad key")
            return
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        server.requests.append(body)
        if server.status != 200:
            self.send_error(server.status)
            return
        content = server.script(json.loads(body["messages"][-1]["content"]))
        reply = {
            "id": f"chatcmpl-{len(server.requests)}",
            "object": "chat.completion",
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
        }
        answer = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


@contextmanager
def llm_server(script: Script, key: str = "") -> Iterator[LLMServer]:
    """Serve ``script`` on a free port of 127.0.0.1 until the block ends."""
    server = LLMServer(("127.0.0.1", 0), _Handler)
    server.script = script
    server.requests = []
    server.status = 200
    server.key = key
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def base_url(server: LLMServer) -> str:
    """The ``[llm] url`` of a running server."""
    host, port = server.server_address[:2]
    return f"http://{host!s}:{port}/v1"
