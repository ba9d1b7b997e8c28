"""Round trips of the MCP server, as an agent's host sees them: a real SDK client over
stdio to ``vaultmem mcp`` on a vault from gen_vault.py.

    python ../shared/bench/gen_vault.py --notes 10000 /tmp/v10k
    python bench/mcp_bench.py /tmp/v10k --runs 200

Works on a copy (its index too, when the vault has one). Times ``search`` over the
vault's queries.txt, ``remember`` and ``context`` (when the server has it), each call
from the client's send to its parsed answer; prints p50 and p95, the same searches made
in-process (what the protocol and the server add is the difference), and the server
process's peak resident memory (VmHWM).
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from vaultmem import Vault


def queries(root: Path) -> list[str]:
    lines = (root / "queries.txt").read_text(encoding="utf-8").splitlines()
    return [line.split("\t")[0] for line in lines if line.strip()]


def server_pid() -> int:
    """Our child running ``vaultmem mcp`` (the stdio client does not expose it)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == os.getpid() and b"mcp" in cmdline:
            return int(entry.name)
    raise RuntimeError("the server process was not found")


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def timed(call: Callable[[], Awaitable[Any]], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        result = await call()
        times.append((time.perf_counter() - started) * 1000)
        if getattr(result, "is_error", False):
            raise RuntimeError(f"the call failed: {result.content}")
    return sorted(times)


def line(name: str, times: list[float]) -> str:
    p50, p95 = statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.95))]
    return f"{name:17} p50 {p50:6.2f} ms   p95 {p95:6.2f} ms   ({len(times)} calls)"


async def measure(session: ClientSession, words: Iterator[str], runs: int) -> list[str]:
    counter = itertools.count()

    def search() -> Awaitable[Any]:
        return session.call_tool("search", {"query": next(words)})

    def remember() -> Awaitable[Any]:
        return session.call_tool("remember", {"text": f"bench {next(counter)} budget review"})

    def context() -> Awaitable[Any]:
        return session.call_tool("context", {"query": next(words), "budget_tokens": 2000})

    tools = {t.name for t in (await session.list_tools()).tools}
    await session.call_tool("search", {"query": "warm up"})
    results = [line("search", await timed(search, runs))]
    results.append(line("remember", await timed(remember, runs)))
    if "context" in tools:
        results.append(line("context", await timed(context, runs)))
    return results


async def bench(root: Path, runs: int) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "vaultmem", "mcp", "--vault", str(root)]
    )
    words = itertools.cycle(queries(root))
    with open(os.devnull, "w") as quiet:
        async with (
            stdio_client(params, errlog=quiet) as (read, write),
            ClientSession(read, write) as session,
        ):
            started = time.perf_counter()
            await session.initialize()
            print(f"initialize {(time.perf_counter() - started) * 1000:.0f} ms")
            print("\n".join(await measure(session, words, runs)))
            print(f"server peak RSS {peak_rss_mb(server_pid()):.0f} MB")


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("vault", type=Path, help="a folder made by gen_vault.py")
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        shutil.copytree(args.vault, root)
        (root / ".vaultmem").mkdir(exist_ok=True)
        with Vault(root) as vault:
            report = vault.index()
            print(f"{args.vault}: {report.summary()}")
            asked = list(itertools.islice(itertools.cycle(queries(root)), args.runs))
            times = []
            for query in asked:
                started = time.perf_counter()
                vault.search(query, track=False)
                times.append((time.perf_counter() - started) * 1000)
            print(line("in-process search", sorted(times)))
        anyio.run(bench, root, args.runs)


if __name__ == "__main__":
    main()
