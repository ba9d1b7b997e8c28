"""A tiny OpenAI-compatible ``/v1/embeddings`` server on 127.0.0.1 for the tests.

Its "model" is deterministic: each word of a text adds to one of 64 dimensions chosen by
the word's hash, so texts sharing words are near and the rest are far. It counts requests,
can demand an API key, and can hold every request until released (to kill a client
midway through a run).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DIM = 64


def word_vector(text: str, dim: int = DIM) -> list[float]:
    """The server's embedding of ``text``."""
    vector = [0.0] * dim
    for word in re.findall(r"\w+", text.lower()):
        vector[hashlib.md5(word.encode()).digest()[0] % dim] += 1.0
    return vector


class EmbedServer(ThreadingHTTPServer):
    requests: int
    texts: int
    key: str
    gate: threading.Semaphore | None
    models: list[str]
    inputs: list[str]  # every text asked for, in order
    dim: int  # change it to play a model whose dimension changed under the same name
    garbage: bool  # answer numbers that are not numbers, to fail a client on purpose


class _Handler(BaseHTTPRequestHandler):
    server: EmbedServer

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:
        server = self.server
        if server.gate is not None:
            server.gate.acquire()
        if self.path != "/v1/embeddings":
            self.send_error(404)
            return
        if server.key and self.headers.get("Authorization") != f"Bearer {server.key}":
            self.send_error(401, "bad key")
            return
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        server.requests += 1
        server.texts += len(body["input"])
        server.models.append(body["model"])
        server.inputs += body["input"]
        data = [
            {
                "object": "embedding",
                "index": i,
                "embedding": ["nan?"] * server.dim
                if server.garbage
                else word_vector(t, server.dim),
            }
            for i, t in enumerate(body["input"])
        ]
        answer = json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


@contextmanager
def embed_server(key: str = "", gated: bool = False) -> Iterator[EmbedServer]:
    """Serve on a free port of 127.0.0.1 until the block ends."""
    server = EmbedServer(("127.0.0.1", 0), _Handler)
    server.requests = server.texts = 0
    server.key = key
    server.gate = threading.Semaphore(0) if gated else None
    server.models = []
    server.inputs = []
    server.dim = DIM
    server.garbage = False
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        if server.gate is not None:
            server.gate.release(1000)
        server.shutdown()
        server.server_close()
