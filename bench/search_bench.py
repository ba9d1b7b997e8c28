"""Keyword search latency in-process, on a vault made by ``../shared/bench/gen_vault.py``.

    python ../shared/bench/gen_vault.py /tmp/v100k --notes 100000 --seed 7
    vaultmem init /tmp/v100k && vaultmem index --vault /tmp/v100k
    python bench/search_bench.py /tmp/v100k --queries 100 --runs 3 [--recall]

Samples ``--queries`` queries (seed ``--seed``) from the vault's ``queries.txt``, every kind
alike (rare and common English words, English phrases, two- and four-character Chinese
runs), runs the whole sample once to warm the page cache, then ``--runs`` more times, and
takes each query's median. Prints p50/p95/max over the queries, p50 per kind, the slowest
queries, and the search process's peak RSS. Searches ask for 10 hits, as an agent does.
CPU time is printed beside wall time: on a machine shared with other work, wall time
counts the waits for a core, CPU time does not.

``--recall`` also checks that nothing is missed: every chunk holding a Chinese query as a
substring, and every note holding an English query word, must be among the hits at a limit
of 1,000,000, against a plain scan of the chunks (a slow pass: it reads every chunk).
CLI start-up is ``cli_bench.py``'s; hybrid search is ``hybrid_bench.py``'s.
"""

from __future__ import annotations

import argparse
import random
import re
import resource
import statistics
import time
from pathlib import Path
from typing import TypeVar

from vaultmem import Vault

T = TypeVar("T")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def read_queries(root: Path) -> list[tuple[str, str]]:
    lines = (root / "queries.txt").read_text(encoding="utf-8").splitlines()
    return [(q, kind) for q, kind in (line.split("\t", 1) for line in lines if "\t" in line)]


def recall(truth: set[T], got: set[T]) -> float:
    return len(truth & got) / len(truth) if truth else 1.0


def worst_recall(vault: Vault, queries: list[tuple[str, str]]) -> dict[str, float]:
    """The worst recall of each query kind against a plain scan of every chunk's text and
    heading path: every chunk holding a Chinese query as a substring, every note holding an
    English query word, must be among the hits at a limit of 1,000,000. The scan reads the
    chunks once for all queries (a scan per query took over 50 minutes at 100,000 notes)."""
    zh = sorted({q for q, kind in queries if kind.startswith("zh")})
    en = sorted({q for q, kind in queries if kind == "en-word"})
    words = {q: re.compile(rf"(?<![^\W_]){re.escape(q)}(?![^\W_])", re.I) for q in en}
    # One alternation of every query finds the few chunks worth checking query by query.
    any_zh = re.compile("|".join(map(re.escape, zh))) if zh else None
    any_en = re.compile("|".join(map(re.escape, en)), re.I) if en else None
    chunks: dict[str, set[tuple[str, str]]] = {q: set() for q in zh}
    notes: dict[str, set[str]] = {q: set() for q in en}
    rows = vault.db.conn.execute("SELECT path, chunk_id, text, heading FROM chunks WHERE searched")
    for path, chunk_id, text, heading in rows:
        for field in (text, heading or ""):
            if any_zh and any_zh.search(field):
                for q in zh:
                    if q in field:
                        chunks[q].add((path, chunk_id))
            if any_en and any_en.search(field):
                for q, word in words.items():
                    if word.search(field):
                        notes[q].add(path)
    found: dict[str, list[float]] = {}
    for query, kind in queries:
        if kind.startswith("zh"):
            hits = vault.search(query, limit=1_000_000, mode="keyword")
            share = recall(chunks[query], {(h.path, h.chunk_id) for h in hits})
        elif kind == "en-word":
            hits = vault.search(query, limit=1_000_000, mode="keyword")
            share = recall(notes[query], {h.path for h in hits})
        else:
            continue
        found.setdefault(kind, []).append(share)
    return {kind: min(values) for kind, values in found.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vault", type=Path)
    ap.add_argument("--queries", type=int, default=100, help="queries sampled from queries.txt")
    ap.add_argument("--runs", type=int, default=3, help="timed runs of the sample")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--recall", action="store_true", help="check recall against a scan")
    args = ap.parse_args()
    root: Path = args.vault
    every = read_queries(root)
    sample = random.Random(args.seed).sample(every, min(args.queries, len(every)))

    vault = Vault(root)
    vault.index()  # builds or catches up the index first (not timed)
    chunks = vault.db.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    notes = vault.db.conn.execute("SELECT COUNT(*) FROM files").fetchone()[0]
    print(f"vault: {root}, {notes} notes, {chunks} chunks; {len(sample)} queries sampled")

    timings: dict[tuple[str, str], list[float]] = {q: [] for q in sample}
    cpu: dict[tuple[str, str], list[float]] = {q: [] for q in sample}
    for run in range(args.runs + 1):
        for query, kind in sample:
            started, started_cpu = time.perf_counter(), time.process_time()
            vault.search(query, limit=10, mode="keyword", track=False)
            if run:  # the first pass warms the page cache
                timings[(query, kind)].append(time.perf_counter() - started)
                cpu[(query, kind)].append(time.process_time() - started_cpu)
    medians = {q: statistics.median(ts) * 1000 for q, ts in timings.items()}
    values = list(medians.values())
    cpu_values = [statistics.median(ts) * 1000 for ts in cpu.values()]
    print(
        f"search in-process: p50 {percentile(values, 0.5):.1f} ms, "
        f"p95 {percentile(values, 0.95):.1f} ms, max {max(values):.1f} ms "
        f"(median of {args.runs} runs per query); CPU time p50 "
        f"{percentile(cpu_values, 0.5):.1f} ms, p95 {percentile(cpu_values, 0.95):.1f} ms"
    )
    kinds = sorted({kind for _, kind in sample})
    print(
        "p50 by kind: "
        + ", ".join(
            f"{kind} {statistics.median(v for (_, k), v in medians.items() if k == kind):.1f} ms"
            for kind in kinds
        )
    )
    slowest = sorted(medians.items(), key=lambda item: -item[1])[:5]
    print("slowest: " + ", ".join(f"{q!r} ({k}) {ms:.0f} ms" for (q, k), ms in slowest))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of this process: {peak_mb:.0f} MB")
    if args.recall:
        worst = worst_recall(vault, every)
        print(
            "recall against a plain scan (worst query of each kind): "
            + ", ".join(f"{kind} {value:.3f}" for kind, value in sorted(worst.items()))
        )
    vault.close()


if __name__ == "__main__":
    main()
