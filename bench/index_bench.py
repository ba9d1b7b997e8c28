"""Index and search figures for a vault made by ``../shared/bench/gen_vault.py``.

    python ../shared/bench/gen_vault.py /tmp/v10k --notes 10000
    python bench/index_bench.py /tmp/v10k --runs 5
    python bench/index_bench.py /tmp/v100k --runs 1 --index-only


Prints medians over ``--runs`` runs of: the raw limit (read + markdown-it-pyrs parse + one
FTS5 insert per line, see ``raw_limit.py``), a full ``vaultmem reindex`` (as a process:
seconds, MB/s, ratio to the raw limit, peak RSS), a no-op ``vaultmem index``, search
latency over the vault's ``queries.txt`` in-process and as CLI processes (p50/p95), the
index size, and recall against a plain scan of the chunks: every chunk holding a Chinese
query as a substring, every file holding an English query word, must be found.

``--index-only`` keeps the index figures (reindex, no-op index, size) and skips the raw
limit, search and recall: at 100,000 notes those take most of an hour.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from raw_limit import raw_index
from search_bench import worst_recall

from vaultmem import Vault


def cli(*args: str) -> float:
    """Run the installed ``vaultmem`` once; return wall seconds."""
    beside = Path(sys.executable).parent / "vaultmem"
    exe = str(beside) if beside.exists() else shutil.which("vaultmem") or "vaultmem"
    started = time.perf_counter()
    subprocess.run([exe, *args], check=True, capture_output=True)
    return time.perf_counter() - started


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vault", type=Path)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cli-queries", type=int, default=40, help="queries timed as CLI processes")
    ap.add_argument(
        "--index-only",
        action="store_true",
        help="only reindex, no-op index and index size (no raw limit, search or recall)",
    )
    args = ap.parse_args()
    root: Path = args.vault
    (root / ".vaultmem").mkdir(exist_ok=True)
    notes = list(root.rglob("*.md"))
    megabytes = sum(p.stat().st_size for p in notes) / 1e6
    queries = [
        tuple(line.split("\t"))
        for line in (root / "queries.txt").read_text(encoding="utf-8").splitlines()
        if "\t" in line
    ]
    print(f"vault: {root}, {len(notes)} notes, {megabytes:.1f} MB, {len(queries)} queries")

    raw_s = None
    if not args.index_only:
        raw = []
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory() as tmp:
                raw.append(raw_index(root, Path(tmp) / "raw.db"))
        raw_s = statistics.median(raw)

    reindex = [cli("reindex", "--vault", str(root)) for _ in range(args.runs)]
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    noop = [cli("index", "--vault", str(root)) for _ in range(max(args.runs, 3))]

    vault = Vault(root)
    inproc_noop = []
    for _ in range(max(args.runs, 3)):
        started = time.perf_counter()
        vault.index()
        inproc_noop.append(time.perf_counter() - started)
    size_mb = vault.db.size_bytes() / 1e6
    reindex_s = statistics.median(reindex)
    if raw_s is not None:
        print(f"raw limit (read + parse + FTS5 insert per line): {raw_s:.2f} s")
    print(
        f"reindex: {reindex_s:.2f} s ({megabytes / reindex_s:.1f} MB/s)"
        + (f", {reindex_s / raw_s:.2f}x the raw limit" if raw_s is not None else "")
        + f", peak RSS {peak_mb:.0f} MB"
    )
    print(
        f"no-op index: {statistics.median(noop) * 1000:.0f} ms as a process, "
        f"{statistics.median(inproc_noop) * 1000:.0f} ms in-process"
    )
    print(f"index size: {size_mb:.1f} MB ({size_mb / megabytes:.2f}x the notes)")
    if args.index_only:
        return

    vault.search("warmup")
    latencies = []
    for _ in range(args.runs):
        for query, _kind in queries:
            started = time.perf_counter()
            vault.search(query, limit=10)
            latencies.append(time.perf_counter() - started)
    cli_latencies = [
        cli("search", query, "--json", "--vault", str(root))
        for query, _ in queries[: args.cli_queries]
        for _ in range(2)
    ]
    worst = worst_recall(vault, queries)
    print(
        f"search in-process: p50 {percentile(latencies, 0.5) * 1000:.1f} ms, "
        f"p95 {percentile(latencies, 0.95) * 1000:.1f} ms ({len(latencies)} searches)"
    )
    print(
        f"search as a CLI process: p50 {percentile(cli_latencies, 0.5) * 1000:.0f} ms, "
        f"p95 {percentile(cli_latencies, 0.95) * 1000:.0f} ms ({len(cli_latencies)} runs)"
    )
    print(
        "recall against a plain scan (worst query of each kind): "
        + ", ".join(f"{kind} {value:.3f}" for kind, value in sorted(worst.items()))
    )


if __name__ == "__main__":
    main()
