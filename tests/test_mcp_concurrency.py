"""The MCP server under load and odd input: no slow call holds up another client, a query
over a search's bounds is a clear tool error, and a line the SDK cannot read (a lone
surrogate) still gets an answer.

The server is always a real ``python -m vaultmem mcp`` process; clients are the SDK's own,
over streamable HTTP, or raw bytes written to the server's stdin. Order is asserted by
events (which answer came first, whether a call was still running), never by durations.
"""

from __future__ import annotations

import json
import os
import queue
import random
import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import wait_for, write
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

from vaultmem import Vault
from vaultmem.search.query import MAX_QUERY_CHARS, MAX_QUERY_TERMS, query_problem

# A query just within the bounds: 32 words found in a quarter of the vault's lines each and
# 32 found in about one line of ten. Ranking it weighs all 10,000 lines by 64 terms, over
# their 40 words each: seconds of work for the server, a legitimate slow call.
COMMON = [f"com{chr(97 + i // 26)}{chr(97 + i % 26)}word" for i in range(32)]
RARE = [f"rar{chr(97 + i // 26)}{chr(97 + i % 26)}term" for i in range(32)]
FILLER = [f"fil{chr(97 + i // 26)}{chr(97 + i % 26)}ler" for i in range(400)]
SLOW_QUERY = " ".join(COMMON + RARE)


def server_env(home: Path) -> dict[str, str]:
    """The server's own HOME and git identity, never the developer's."""
    gitconfig = home / ".gitconfig"
    gitconfig.write_text("[user]\n\tname = Test User\n\temail = test@example.com\n")
    return os.environ | {
        "HOME": str(home),
        "GIT_CONFIG_GLOBAL": str(gitconfig),
        "GIT_CONFIG_NOSYSTEM": "1",
    }


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def busy_vault(root: Path) -> None:
    """A vault of 10,000 lines over which ``SLOW_QUERY`` takes the server seconds, in ten
    notes (a ``status`` reads each note's size and time: few notes, a quick status)."""
    Vault.init(root)
    chooser = random.Random(5)
    for note in range(10):
        lines = []
        for line in range(1000):
            words = chooser.sample(COMMON, 8) + chooser.sample(RARE, 3) + chooser.sample(FILLER, 40)
            chooser.shuffle(words)
            lines.append("- " + " ".join(words) + f" ^l{note}-{line}")
        write(root, f"memory/2024-01-{1 + note:02d}.md", "\n".join(lines) + "\n")
    with Vault(root) as vault:
        vault.index()


@contextmanager
def http_server(root: Path, home: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``vaultmem mcp --http PORT`` on ``root``: its URL and its process."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "vaultmem", "mcp", "--http", str(port), "--vault", str(root)],
        env=server_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:

        def listening() -> bool:
            assert server.poll() is None, server.communicate()[1].decode()
            with socket.socket() as sock:
                return sock.connect_ex(("127.0.0.1", port)) == 0

        wait_for(listening)
        yield f"http://127.0.0.1:{port}/mcp", server
    finally:
        server.terminate()
        _, err = server.communicate(timeout=30)
        assert b"Traceback" not in err, err.decode()


@asynccontextmanager
async def session(url: str) -> AsyncIterator[ClientSession]:
    """One MCP client of its own (its own HTTP session) with the server at ``url``."""
    async with (
        streamable_http_client(url) as streams,
        ClientSession(streams[0], streams[1]) as opened,
    ):
        await opened.initialize()
        yield opened


def cpu_ticks(pid: int) -> int:
    """The CPU time a process has used, in clock ticks (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def text_of(result: CallToolResult) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_slow_call_does_not_hold_up_another_clients_status(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = tmp_path / "vault"
    busy_vault(root)
    assert query_problem(SLOW_QUERY) is None  # within the bounds: a query anyone may ask
    ticks_per_second = os.sysconf("SC_CLK_TCK")
    with http_server(root, tmp_path_factory.mktemp("home")) as (url, server):

        async def main() -> list[str]:
            events: list[str] = []
            async with session(url) as slow_client, session(url) as other:
                for client in (slow_client, other):  # both sessions ready, the index settled
                    assert not (await client.call_tool("status", {})).is_error
                before = cpu_ticks(server.pid)

                async def slow_search() -> None:
                    found = await slow_client.call_tool(
                        "search", {"query": SLOW_QUERY, "mode": "keyword"}
                    )
                    assert not found.is_error, text_of(found)
                    assert found.structured_content and found.structured_content["hits"]
                    events.append("search answered")

                async with anyio.create_task_group() as group:
                    group.start_soon(slow_search)
                    # The server is working on the search: it has spent a third of a second
                    # of CPU on it (an event, not a duration: however slow the machine).
                    while cpu_ticks(server.pid) - before < ticks_per_second // 3:
                        assert not events, "the search ended before it could be overlapped"
                        await anyio.sleep(0.01)
                    assert not events, "the search ended before it could be overlapped"
                    events.append("status asked")
                    status = await other.call_tool("status", {})
                    assert not status.is_error, text_of(status)
                    events.append("status answered")
            return events

        events = anyio.run(main)
    assert events == ["status asked", "status answered", "search answered"]


def test_many_clients_at_once_each_get_their_own_answers(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Calls of several clients run side by side (each on a vault of its own, from a
    pool): every search, remember and status is answered, and each search finds what its
    own client remembered."""
    root = tmp_path / "vault"
    Vault.init(root, example=True)
    words = ["aardvark", "bonobo", "caracal", "dugong", "echidna", "fossa"]
    with http_server(root, tmp_path_factory.mktemp("home")) as (url, _):

        async def one_client(word: str, answers: dict[str, list[str]]) -> None:
            async with session(url) as client:
                stored = await client.call_tool("remember", {"text": f"The {word} sleeps here"})
                assert not stored.is_error, text_of(stored)
                assert stored.structured_content is not None
                block_id = stored.structured_content["block_id"]
                async with anyio.create_task_group() as group:
                    for _ in range(3):

                        async def look() -> None:
                            found = await client.call_tool("search", {"query": word})
                            assert not found.is_error, text_of(found)
                            assert found.structured_content is not None
                            hits = found.structured_content["hits"]
                            answers[word].append(hits[0]["block_id"] if hits else "")
                            assert block_id in [h["block_id"] for h in hits]

                        group.start_soon(look)
                        group.start_soon(client.call_tool, "status", {})

        async def main() -> dict[str, list[str]]:
            answers: dict[str, list[str]] = {w: [] for w in words}
            async with anyio.create_task_group() as group:
                for word in words:
                    group.start_soon(one_client, word, answers)
            return answers

        answers = anyio.run(main)
    assert all(len(found) == 3 for found in answers.values()), answers


@pytest.fixture(scope="module")
def bounded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """One HTTP server on an example vault, for the query bounds: its URL and vault."""
    root = tmp_path_factory.mktemp("bounds") / "vault"
    Vault.init(root, example=True)
    with http_server(root, tmp_path_factory.mktemp("home")) as (url, _):
        yield url, root


def _call(url: str, name: str, arguments: dict[str, Any]) -> CallToolResult:
    async def main() -> CallToolResult:
        async with session(url) as client:
            result = await client.call_tool(name, arguments)
            status = await client.call_tool("status", {})
            assert not status.is_error  # the server lives on
            return result

    return anyio.run(main)


OVER_THE_BOUNDS = [
    pytest.param("x" * (MAX_QUERY_CHARS + 1), "characters", id="one-long-word"),
    pytest.param("x" * 60_000, "characters", id="60k"),
    pytest.param("ab " * 1000, "characters", id="short-words"),
    pytest.param("中" * (MAX_QUERY_CHARS + 1), "characters", id="cjk"),
    pytest.param(" " * (MAX_QUERY_CHARS + 1), "characters", id="spaces"),
    pytest.param("n't" * 1000, "characters", id="negations"),
    pytest.param(" ".join(f"w{i}x" for i in range(MAX_QUERY_TERMS + 1)), "terms", id="terms"),
    pytest.param(
        " ".join(f'"p{i} q{i}"' for i in range(MAX_QUERY_TERMS + 1)), "terms", id="phrases"
    ),
]


@pytest.mark.parametrize("query, bound", OVER_THE_BOUNDS)
@pytest.mark.parametrize("tool", ["search", "context"])
def test_a_query_over_the_bounds_is_a_clear_tool_error(
    bounded: tuple[str, Path], tool: str, query: str, bound: str
) -> None:
    url, _ = bounded
    result = _call(url, tool, {"query": query})
    assert result.is_error
    message = text_of(result)
    assert "a query holds at most" in message and bound in message, message
    assert query not in message  # the caller's words are not echoed back


@pytest.mark.parametrize(
    "query",
    [
        "x" * MAX_QUERY_CHARS,
        " ".join(f"w{i}x" for i in range(MAX_QUERY_TERMS)),
        " ".join(["the", "pottery"] * 300)[:MAX_QUERY_CHARS],  # repeated words count once
    ],
    ids=["chars", "terms", "repeats"],
)
def test_a_query_at_the_bounds_is_searched(bounded: tuple[str, Path], query: str) -> None:
    url, _ = bounded
    for tool in ("search", "context"):
        result = _call(url, tool, {"query": query})
        assert not result.is_error, text_of(result)


# -- a line the SDK cannot read, over stdio ------------------------------------------------


class StdioServer:
    """``vaultmem mcp`` over stdio, spoken to in raw bytes, its answers read by a thread."""

    def __init__(self, root: Path, home: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "vaultmem", "mcp", "--vault", str(root)],
            env=server_env(home),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.answers: queue.Queue[bytes] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.send(
            {
                "jsonrpc": "2.0",
                "id": "init",
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
        )
        assert self.answer()["id"] == "init"
        self.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.answers.put(line)

    def write(self, raw: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(raw + b"\n")
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.write(json.dumps(message).encode())

    def answer(self) -> dict[str, Any]:
        """The next line the server wrote (a hang guard of 60 s, not a speed bound)."""
        line = self.answers.get(timeout=60)
        parsed: dict[str, Any] = json.loads(line)
        return parsed

    def call(self, request_id: int, name: str, arguments: dict[str, Any]) -> None:
        self.send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
        )

    def close(self) -> str:
        """End the server as a host does (closing its stdin); what it wrote on stderr."""
        process = self.process
        assert process.stdin and process.stdout and process.stderr
        process.stdin.close()
        process.wait(timeout=60)
        self._reader.join(timeout=60)
        process.stdout.close()
        with process.stderr:
            return process.stderr.read().decode("utf-8", "replace")


@pytest.fixture(scope="module")
def stdio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[StdioServer, Path]]:
    root = tmp_path_factory.mktemp("stdio") / "vault"
    Vault.init(root, example=True)
    server = StdioServer(root, tmp_path_factory.mktemp("home"))
    yield server, root
    err = server.close()
    assert "Traceback" not in err, err


def _tool_call(request_id: str, name: str, arguments: str) -> bytes:
    """A tools/call line, written by hand so it may hold what json.dumps never writes."""
    return (
        f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call",'
        f'"params":{{"name":"{name}","arguments":{arguments}}}}}'
    ).encode()


# Requests the SDK's reader cannot read: each must be answered with an error for its id.
UNREADABLE_REQUESTS = [
    pytest.param(_tool_call("2", "search", r'{"query":"a\ud800b"}'), 2, id="high-surrogate"),
    pytest.param(_tool_call("2", "search", r'{"query":"\udc80"}'), 2, id="low-surrogate"),
    pytest.param(_tool_call("2", "search", r'{"query":"\udc00\ud800"}'), 2, id="reversed-pair"),
    pytest.param(_tool_call("2", "search", r'{"query":"end\uD83D"}'), 2, id="cut-pair"),
    pytest.param(
        _tool_call("2", "remember", r'{"text":"keep \ud800 these words"}'), 2, id="remember"
    ),
    pytest.param(_tool_call("2", r"sea\ud800rch", "{}"), 2, id="in-the-tool-name"),
    pytest.param(_tool_call("2", "search", r'{"qu\ud800ery":"x"}'), 2, id="in-a-key"),
    pytest.param(_tool_call(r'"id-\ud800"', "search", '{"query":"x"}'), None, id="in-the-id"),
    pytest.param(rb'{"jsonrpc":"2.0","id":2,"method":"tools/l\ud800ist"}', 2, id="in-the-method"),
    pytest.param(b'{"jsonrpc":"2.0","id":2,"method":"tools/call",', None, id="cut-json"),
    pytest.param(b"\x00\x01 not json", None, id="garbage"),
]


@pytest.mark.parametrize("line, answer_id", UNREADABLE_REQUESTS)
def test_a_request_the_sdk_cannot_read_gets_an_error_answer(
    stdio: tuple[StdioServer, Path], line: bytes, answer_id: int | None
) -> None:
    server, root = stdio
    notes = {p: p.read_bytes() for p in root.rglob("*.md")}
    server.write(line)
    server.call(3, "status", {})  # answered after the line above, which comes first
    first = server.answer()
    assert first["id"] == answer_id and "error" in first, first
    assert first["error"]["code"] in (-32600, -32700)
    if b"\\u" in line:
        assert "lone surrogate" in first["error"]["message"]
    second = server.answer()
    assert second["id"] == 3 and not second["result"]["isError"]  # the server lives on
    assert {p: p.read_bytes() for p in root.rglob("*.md")} == notes  # nothing stored


@pytest.mark.parametrize(
    "line",
    [
        rb'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"\ud800"}}',
        rb'{"jsonrpc":"2.0","id":99,"result":{"x":"\ud800"}}',  # a "response" nobody asked for
    ],
    ids=["notification", "response"],
)
def test_a_notification_or_response_it_cannot_read_gets_no_answer(
    stdio: tuple[StdioServer, Path], line: bytes
) -> None:
    server, _ = stdio
    server.write(line)
    server.call(4, "status", {})
    assert server.answer()["id"] == 4  # the very next line: nothing answered the other


@pytest.mark.parametrize(
    "raw, stored",
    [
        (b"caf\xc3\xa9 \xff\xfe bytes", "café \ufffd\ufffd bytes"),
        (b"surrogate \xed\xa0\x80 bytes", "surrogate \ufffd\ufffd\ufffd bytes"),
    ],
    ids=["invalid-utf8", "encoded-surrogate"],
)
def test_bytes_that_are_not_utf8_are_read_as_the_sdk_reads_them(
    stdio: tuple[StdioServer, Path], raw: bytes, stored: str
) -> None:
    """Raw bytes that are not UTF-8 are replaced by U+FFFD when the SDK reads the line
    (its stdin is UTF-8 with ``errors="replace"``): the call is answered, as asked."""
    server, root = stdio
    server.write(_tool_call("5", "remember", '{"text":"RAW"}').replace(b"RAW", raw))
    answer = server.answer()
    assert answer["id"] == 5 and not answer["result"]["isError"], answer
    note = root / answer["result"]["structuredContent"]["path"]
    assert stored in note.read_text(encoding="utf-8")


def test_each_unreadable_request_is_answered_once_and_in_order(
    stdio: tuple[StdioServer, Path],
) -> None:
    server, _ = stdio
    for request_id in range(10, 13):
        server.write(_tool_call(str(request_id), "search", r'{"query":"\ud800"}'))
    server.call(13, "status", {})
    assert [server.answer()["id"] for _ in range(4)] == [10, 11, 12, 13]
