"""``remember`` latency on a vault from gen_vault.py (in-process, index included).

    python bench/remember_bench.py /tmp/v10k --runs 200

Works on a copy. Each call appends one line to today's note and re-indexes that note;
prints the median, p95 and max.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from vaultmem import Vault


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vault", type=Path)
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        shutil.copytree(args.vault, root, ignore=shutil.ignore_patterns(".vaultmem"))
        (root / ".vaultmem").mkdir()
        with Vault(root) as vault:
            vault.index()
            times = []
            for i in range(args.runs):
                started = time.perf_counter()
                vault.remember(f"benchmark message {i} about the budget review", session="bench")
                times.append((time.perf_counter() - started) * 1000)
    times.sort()
    print(
        f"remember on {args.vault}: median {statistics.median(times):.1f} ms, "
        f"p95 {times[int(len(times) * 0.95)]:.1f} ms, max {times[-1]:.1f} ms ({args.runs} calls)"
    )


if __name__ == "__main__":
    main()
