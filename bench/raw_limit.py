"""The raw limit of indexing a vault: read every note, parse it with markdown-it-pyrs, and
insert every non-empty line into one FTS5 table. Nothing else. ``reindex`` is reported as a
ratio to this.

    python bench/raw_limit.py VAULT [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

import markdown_it_pyrs


def raw_index(vault: Path, db_path: Path) -> float:
    started = time.perf_counter()
    parser = markdown_it_pyrs.MarkdownIt("commonmark").enable("table")
    conn = sqlite3.connect(db_path)
    conn.execute("CREATE VIRTUAL TABLE lines USING fts5(text)")
    with conn:
        for path in sorted(vault.rglob("*.md")):
            text = path.read_text(encoding="utf-8")
            parser.tree(text)
            conn.executemany(
                "INSERT INTO lines (text) VALUES (?)",
                [(line,) for line in text.splitlines() if line.strip()],
            )
    conn.close()
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vault", type=Path)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    times = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            times.append(raw_index(args.vault, Path(tmp) / "raw.db"))
    print(
        f"raw limit: median {statistics.median(times):.2f} s over {args.runs} runs "
        f"(min {min(times):.2f}, max {max(times):.2f}), pid {os.getpid()}"
    )


if __name__ == "__main__":
    main()
