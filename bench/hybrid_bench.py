"""Hybrid search at full size without waiting an hour for the model: latency, matrix
refresh after an edit, and sizes on a copy of a gen_vault vault whose every chunk has a vector.

    python ../shared/bench/gen_vault.py /tmp/v10k --notes 10000
    vaultmem embed --vault /tmp/v10k     # as far as you like: kill it when you have enough
    python bench/hybrid_bench.py /tmp/v10k /tmp/h10k --queries 100

Copies the vault's notes and index to the second folder, then fills its ``vectors.db``: the
real vectors ``vaultmem embed`` made, and for every other chunk a real vector plus noise
(so the rows cluster like text). Query vectors come from the real model, so every cost is
the real one; only the order of semantic hits means nothing for the filled rows. Prints
sizes, the first search (it builds ``vectors.matrix``), in-process keyword and hybrid
p50/p95 over the vault's ``queries.txt`` (all kinds, sampled), CLI hybrid p50/p95, and the
first hybrid search after a one-line edit is indexed (the matrix refresh).
"""

from __future__ import annotations

import argparse
import random
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from embed_bench import percentiles, timed, vaultmem

from vaultmem import Vault
from vaultmem.embeddings.embedders import cached_embedder, model_name
from vaultmem.embeddings.matrix import MATRIX_FILE
from vaultmem.embeddings.store import EMBEDDABLE, VectorStore, embedded_text, text_hash


def copy_vault(source: Path, target: Path) -> None:
    """Notes as files, the index and the vectors with SQLite's backup (they may be open)."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(".vaultmem", ".git"))
    (target / ".vaultmem").mkdir(mode=0o700)
    for name in ("config.toml", ".gitignore"):
        if (source / ".vaultmem" / name).exists():
            shutil.copy2(source / ".vaultmem" / name, target / ".vaultmem" / name)
    for name in ("index.db", "vectors.db"):
        if (source / ".vaultmem" / name).exists():
            with (
                sqlite3.connect(source / ".vaultmem" / name) as src,
                sqlite3.connect(target / ".vaultmem" / name) as dst,
            ):
                src.backup(dst)


def fill(root: Path, seed: int = 1) -> tuple[int, int]:
    """Give every embeddable chunk without a vector one near a real vector: (real, filled)."""
    with Vault(root) as vault:
        name = model_name(vault.config.embeddings)
        assert name is not None, "no embedder configured"
        texts = {
            text_hash(embedded_text(heading, text))
            for heading, text in vault.db.conn.execute(
                f"SELECT heading, text FROM chunks WHERE {EMBEDDABLE}"
            )
        }
    store = VectorStore(root / ".vaultmem" / "vectors.db")
    try:
        have = store.hashes(name)
        real = list(have & texts)
        dim = store.dim(name)
        assert real and dim, "embed part of the vault first (vaultmem embed, then kill it)"
        rng = np.random.default_rng(seed)
        base = np.stack(list(store.get(name, real[:5000]).values()))
        missing = sorted(texts - have)
        for start in range(0, len(missing), 20_000):
            part = missing[start : start + 20_000]
            rows = base[rng.integers(0, len(base), len(part))]
            rows = rows + rng.normal(0, 0.02, rows.shape).astype(np.float32)
            rows /= np.linalg.norm(rows, axis=1, keepdims=True)
            store.put(name, dim, zip(part, rows, strict=True))
        return len(real), len(missing)
    finally:
        store.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("source", type=Path, help="a gen_vault vault, indexed and partly embedded")
    ap.add_argument("copy", type=Path, help="where to make the full copy (replaced)")
    ap.add_argument("--queries", type=int, default=100, help="queries sampled from queries.txt")
    ap.add_argument("--cli", type=int, default=20, help="of which run as CLI processes")
    a = ap.parse_args()
    root = a.copy
    copy_vault(a.source, root)
    real, filled = fill(root)
    notes = sum(f.stat().st_size for f in root.rglob("*.md") if ".vaultmem" not in f.parts)
    print(f"vectors: {real} real, {filled} filled; notes {notes / 1e6:.1f} MB")
    lines = (root / "queries.txt").read_text(encoding="utf-8").splitlines()
    pool = [line.split("\t")[0] for line in lines if line.strip()]
    queries = random.Random(7).sample(pool, min(a.queries, len(pool)))
    with Vault(root) as vault:
        started = time.perf_counter()
        vault.search(queries[0], mode="hybrid", track=False)
        print(
            f"first hybrid search (builds the matrix, loads the model): "
            f"{time.perf_counter() - started:.2f} s"
        )
        state = root / ".vaultmem"
        for name in ("index.db", "vectors.db", MATRIX_FILE):
            print(f"{name}: {(state / name).stat().st_size / 1e6:.1f} MB")
        embedder = cached_embedder(vault.config.embeddings)
        assert embedder is not None
        alone = timed(queries, embedder.embed_query)
        keyword = timed(queries, lambda q: vault.search(q, mode="keyword", track=False))
        hybrid = timed(queries, lambda q: vault.search(q, mode="hybrid", track=False))
        print(f"in-process query embedding alone: {percentiles(alone)}")
        print(f"in-process keyword: {percentiles(keyword)}")
        print(f"in-process hybrid:  {percentiles(hybrid)}")
        day = sorted((root / "memory").glob("*.md"))[-1]
        with day.open("a", encoding="utf-8") as f:
            f.write("\n- a new line about the hybrid bench\n")
        vault.index()
        started = time.perf_counter()
        vault.search(queries[1], mode="hybrid", track=False)
        print(f"first hybrid search after a one-line edit: {time.perf_counter() - started:.2f} s")
    cli = [
        vaultmem("search", q, "--json", "--mode", "hybrid", "--vault", str(root))[0]
        for q in queries[: a.cli]
    ]
    bare = [vaultmem_bare() for _ in range(a.cli)]
    print(f"CLI hybrid: {percentiles(cli)}; bare python start: {percentiles(bare)}")


def vaultmem_bare() -> float:
    """Seconds for a bare ``python -c "import sqlite3, json"``, the floor of any CLI."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import sqlite3, json"], check=True)
    return time.perf_counter() - started


if __name__ == "__main__":
    main()
