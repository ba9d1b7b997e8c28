"""Git figures on a vault from gen_vault.py: commit and sync of 50 changed notes, and a
whole-vault restore into another folder.

    python ../shared/bench/gen_vault.py /tmp/v10k --notes 10000
    python bench/git_bench.py /tmp/v10k --runs 3

Works on copies in a temp folder: device A (the vault, a git repository), a bare remote,
and device B (a clone). Each run changes 50 notes on B and pushes them, changes 50 other
notes on A, then times ``vaultmem commit`` on A (before that, a separate set of 50) and
``vaultmem sync`` on A (commit, fetch, merge B's 50, push, index what changed), each as a
process. Last, ``vaultmem restore --at HEAD~1 --to DIR`` of the whole vault (with indexing).
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(*args: str) -> float:
    beside = Path(sys.executable).parent / "vaultmem"
    exe = str(beside) if beside.exists() else "vaultmem"
    started = time.perf_counter()
    subprocess.run([exe, *args], check=True, capture_output=True)
    return time.perf_counter() - started


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def touch(root: Path, notes: list[str], tag: str) -> None:
    for note in notes:
        with (root / note).open("a", encoding="utf-8") as handle:
            handle.write(f"\n- {tag}\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vault", type=Path)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    rng = random.Random(3)
    commits, syncs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        a, bare, b = Path(tmp) / "a", Path(tmp) / "remote.git", Path(tmp) / "b"
        shutil.copytree(args.vault, a, ignore=shutil.ignore_patterns(".vaultmem", ".git"))
        timed("init", str(a))
        timed("index", "--vault", str(a))
        git(Path(tmp), "init", "--quiet", "--bare", "--initial-branch=main", str(bare))
        git(a, "remote", "add", "origin", str(bare))
        git(a, "push", "--quiet", "-u", "origin", "main")
        git(Path(tmp), "clone", "--quiet", str(bare), str(b))
        notes = sorted(p.relative_to(a).as_posix() for p in a.rglob("*.md"))
        for run in range(args.runs):
            picked = rng.sample(notes, 150)
            touch(b, picked[:50], f"from B run {run}")
            git(b, "commit", "--quiet", "-am", f"B run {run}")
            git(b, "push", "--quiet", "origin", "main")
            touch(a, picked[50:100], f"from A run {run}")
            commits.append(timed("commit", "--vault", str(a)))
            touch(a, picked[100:], f"from A again run {run}")
            syncs.append(timed("sync", "--vault", str(a)))
            git(b, "pull", "--quiet", "--no-rebase", "origin", "main")
        restore = timed(
            "restore", "--at", "HEAD~1", "--to", str(Path(tmp) / "snapshot"), "--vault", str(a)
        )
    print(f"vault: {args.vault} ({len(notes)} notes), {args.runs} runs")
    print(
        f"commit of 50 changed notes: median {statistics.median(commits):.2f} s "
        f"(max {max(commits):.2f})"
    )
    print(
        f"sync with 50 local and 50 remote changes (local bare remote): median "
        f"{statistics.median(syncs):.2f} s (max {max(syncs):.2f})"
    )
    print(f"restore --to of the whole vault, indexed: {restore:.2f} s")


if __name__ == "__main__":
    main()
