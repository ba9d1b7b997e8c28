"""``capture`` of a Claude Code transcript: first run, re-run (nothing new), grown file.

    python bench/capture_bench.py --messages 5000 --days 5 --runs 5

Writes a synthetic transcript (user and assistant messages, every assistant turn with a
tool call and its result, as Claude Code writes them) spread over ``--days`` days, into a
new vault under a temp folder. Prints the median of ``--runs`` fresh runs for each case,
indexing of the touched notes included, and the peak memory of the process.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import resource
import statistics
import tempfile
import time
from pathlib import Path

from vaultmem import Vault


def entries(count: int, days: int, start: int = 0) -> list[dict[str, object]]:
    first = dt.datetime(2026, 11, 1, 8, 0, tzinfo=dt.UTC)
    step = dt.timedelta(days=days) / max(count, 1)
    out: list[dict[str, object]] = []
    for n in range(start, start + count):
        at = (first + n * step).isoformat().replace("+00:00", "Z")
        base = {"sessionId": "bench", "uuid": f"u{n}", "timestamp": at, "isSidechain": False}
        if n % 2 == 0:
            text = f"message {n}: please check the budget review for project Atlas and Bob's notes"
            out.append({**base, "type": "user", "message": {"role": "user", "content": text}})
            continue
        content = [
            {"type": "thinking", "thinking": "planning the answer"},
            {"type": "text", "text": f"answer {n}: the review is due on Friday, 3 items open"},
            {"type": "tool_use", "id": f"t{n}", "name": "Read", "input": {"file": "a.md"}},
        ]
        out.append(
            {**base, "type": "assistant", "message": {"role": "assistant", "content": content}}
        )
        result = [{"type": "tool_result", "tool_use_id": f"t{n}", "content": "x" * 400}]
        out.append(
            {
                **base,
                "uuid": f"r{n}",
                "type": "user",
                "message": {"role": "user", "content": result},
            }
        )
    return out


def write(path: Path, items: list[dict[str, object]]) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.writelines(json.dumps(item) + "\n" for item in items)


def timed(vault: Vault, transcript: Path) -> tuple[float, int]:
    started = time.perf_counter()
    report = vault.capture(transcript)
    return (time.perf_counter() - started) * 1000, report.added


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=5000)
    ap.add_argument("--days", type=int, default=5)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    results: dict[str, list[float]] = {"first": [], "again": [], "grown by 2": []}
    size = 0
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "vault"
            Vault.init(root)
            transcript = Path(tmp) / "session.jsonl"
            write(transcript, entries(args.messages, args.days))
            size = transcript.stat().st_size
            with Vault(root) as vault:
                ms, added = timed(vault, transcript)
                assert added == args.messages, added
                results["first"].append(ms)
                ms, added = timed(vault, transcript)
                assert added == 0
                results["again"].append(ms)
                write(transcript, entries(2, args.days, start=args.messages))
                ms, added = timed(vault, transcript)
                assert added == 2, added
                results["grown by 2"].append(ms)
    print(f"capture of {args.messages} messages over {args.days} days ({args.runs} runs):")
    for case, times in results.items():
        print(f"  {case:>10}: median {statistics.median(times):.0f} ms")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  peak memory {peak:.0f} MB; transcript {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
