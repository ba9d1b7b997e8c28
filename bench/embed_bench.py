"""Embedding and hybrid-search figures for a vault made by ``../shared/bench/gen_vault.py``.

    python ../shared/bench/gen_vault.py /tmp/v1k --notes 1000
    python bench/embed_bench.py /tmp/v1k --queries 40 --scale 266000

Prints: ``vaultmem embed`` as a process (chunks/s, peak RSS), a second run (the no-op),
``vectors.db`` and ``vectors.matrix`` sizes; search p50/p95 over the vault's
``queries.txt`` in-process (keyword, then hybrid) and as CLI processes (hybrid); and with
``--scale N``, the nearest-neighbour pass on a matrix of N rows made from the vault's
vectors plus noise (embedding a 266k-chunk vault takes about an hour): its p50/p95 and how
many of the exact top 10 (float32 over every row) it returns.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from vaultmem import Vault
from vaultmem.embeddings import matrix as matrices
from vaultmem.search.semantic import open_vectors


def vaultmem(*args: str) -> tuple[float, str]:
    """Run the installed ``vaultmem`` once: wall seconds and stdout."""
    beside = Path(sys.executable).parent / "vaultmem"
    exe = str(beside) if beside.exists() else shutil.which("vaultmem") or "vaultmem"
    started = time.perf_counter()
    done = subprocess.run([exe, *args], check=True, capture_output=True, text=True)
    return time.perf_counter() - started, done.stdout


def percentiles(seconds: list[float]) -> str:
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"p50 {statistics.median(ordered) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms"


def timed(calls: list[str], run: object) -> list[float]:
    out = []
    for query in calls:
        started = time.perf_counter()
        run(query)  # type: ignore[operator]
        out.append(time.perf_counter() - started)
    return out


def scaled(vectors: matrices.VectorMatrix, rows: int, seed: int = 1) -> np.ndarray:
    """``rows`` unit vectors near the vault's own (so they cluster like real text)."""
    rng = np.random.default_rng(seed)
    base = np.asarray(vectors.rows, np.float32) * np.asarray(vectors.scale)[:, None]
    picks = base[rng.integers(0, len(base), rows)]
    noisy = picks + rng.normal(0, 0.02, picks.shape).astype(np.float32)
    return noisy / np.linalg.norm(noisy, axis=1, keepdims=True)  # type: ignore[no-any-return]


def scale_test(vectors: matrices.VectorMatrix, queries: list[np.ndarray], rows: int) -> None:
    full = scaled(vectors, rows)
    quantised, scale = matrices._quantise(full)
    mean = full.mean(axis=0).astype(np.float32)
    big = matrices.VectorMatrix(
        vectors.model,
        vectors.dim,
        ("", ""),
        rows,
        np.arange(1, rows + 1, dtype=np.int64),
        np.array([b"x"] * rows, dtype="S24"),
        scale,
        quantised,
        matrices._sign_bits(full - mean),
        mean,
        rows,
        np.zeros(rows, np.uint8),  # one language: ranked from the mean of all rows
        np.stack([mean, mean]),
        np.linalg.norm(full - mean, axis=1).astype(np.float32),
        (rows, 0),
    )
    seconds, overlap = [], []
    everything = np.arange(rows)
    for q in queries:
        started = time.perf_counter()
        positions, _ = big.nearest(q, 40)
        seconds.append(time.perf_counter() - started)
        exact = set(np.argsort(-big.centred(everything, q, 0))[:10].tolist())
        overlap.append(len(exact & set(positions[:10].tolist())) / 10)
    print(
        f"nearest on {rows} x {vectors.dim}: {percentiles(seconds)};"
        f" exact top 10 found {statistics.mean(overlap):.3f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("vault", type=Path)
    ap.add_argument("--queries", type=int, default=40, help="queries timed (in-process and CLI)")
    ap.add_argument("--scale", type=int, default=0, help="rows of the synthetic matrix (0: off)")
    a = ap.parse_args()
    root = a.vault
    if not (root / ".vaultmem").is_dir():
        vaultmem("init", str(root))
    vaultmem("index", "--vault", str(root))
    seconds, out = vaultmem("embed", "--json", "--vault", str(root))
    report = json.loads(out)
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    rate = report["embedded"] / report["seconds"] if report["embedded"] else 0.0
    print(
        f"embed: {report['chunks']} chunks, {report['embedded']} texts embedded in"
        f" {seconds:.1f} s ({rate:.1f} texts/s), peak RSS {rss:.0f} MB"
    )
    again, _ = vaultmem("embed", "--json", "--vault", str(root))
    print(f"embed again (nothing new): {again:.2f} s")
    state = root / ".vaultmem"
    for name in ("index.db", "vectors.db", matrices.MATRIX_FILE):
        print(f"{name}: {(state / name).stat().st_size / 1e6:.1f} MB")
    lines = (root / "queries.txt").read_text(encoding="utf-8").splitlines()
    queries = [line.split("\t")[0] for line in lines if line.strip()][: a.queries]
    with Vault(root) as vault:
        vault.search(queries[0], mode="hybrid", track=False)  # load the model and matrix
        keyword = timed(queries, lambda q: vault.search(q, mode="keyword", track=False))
        hybrid = timed(queries, lambda q: vault.search(q, mode="hybrid", track=False))
        print(f"in-process keyword: {percentiles(keyword)}")
        print(f"in-process hybrid:  {percentiles(hybrid)}")
        vectors = open_vectors(vault.db.conn, state, vault.config.embeddings, [])
        assert vectors is not None
        embedded = [vectors.embedder.embed_query(q) for q in queries]
    cli = [vaultmem("search", q, "--json", "--vault", str(root))[0] for q in queries]
    print(f"CLI hybrid: {percentiles(cli)}")
    if a.scale:
        scale_test(vectors.matrix, embedded, a.scale)


if __name__ == "__main__":
    main()
