"""``vaultmem embed``: give every chunk of the index a vector, resumably.

Texts already in the store for this model are skipped (a second run does nothing). The
rest go to the embedder shortest first (a batch of similar lengths pads less) and are
committed batch by batch, so a run killed midway keeps what it finished and the next run
continues from there. A complete run then prunes vectors of other models and of texts no
longer in the vault, and builds the search matrix, so the first search after it is fast.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..config import EmbeddingsConfig
from ..errors import EmbeddingError, Interrupted
from . import matrix as matrices
from .embedders import Embedder, load_embedder
from .store import EMBEDDABLE, VECTORS_FILE, VectorStore, embedded_text, text_hash, with_store

Progress = Callable[[int, int], None]


@dataclass
class EmbedReport:
    """The outcome of ``vaultmem embed`` (the fields of its ``--json``)."""

    model: str
    chunks: int = 0  # chunks that can be embedded (all but frontmatter)
    embedded: int = 0  # texts embedded by this run
    reused: int = 0  # texts that already had a vector
    pruned: int = 0  # vectors deleted: other models, texts gone
    seconds: float = 0.0
    notices: list[str] = field(default_factory=list)  # e.g. a damaged vectors.db deleted

    def summary(self) -> str:
        """One line for people."""
        return (
            f"{self.chunks} chunks: {self.embedded} texts embedded, {self.reused} already were"
            f" ({self.model}) in {self.seconds:.1f} s"
        )


def embed_vault(
    conn: sqlite3.Connection,
    state_dir: Path,
    config: EmbeddingsConfig,
    *,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
    embedder: Embedder | None = None,
) -> EmbedReport:
    """Embed every chunk of the index ``conn`` that has no vector of the model yet.

    Raises:
        EmbeddingError: no embedder is configured or installed, or it failed.
        Interrupted: ``should_stop`` returned true; the batches done so far are kept.
    """
    started = time.monotonic()
    embedder = embedder or load_embedder(config)
    if embedder is None:
        raise EmbeddingError(
            "no embedder: install one with `pip install 'vaultmem[embeddings]'`, or set"
            " [embeddings] backend in .vaultmem/config.toml (docs/embeddings.md)"
        )
    rows = conn.execute(f"SELECT heading, text FROM chunks WHERE {EMBEDDABLE}").fetchall()
    texts = {text_hash(t): t for t in (embedded_text(h, x) for h, x in rows)}
    report = EmbedReport(embedder.name, chunks=len(rows))

    def fill(store: VectorStore) -> None:
        assert embedder is not None
        dropped = store.set_dim(embedder.name, embedder.dim)
        if dropped:
            report.notices.append(
                f"{embedder.name} now returns vectors of dimension {embedder.dim}: its"
                f" {dropped} vectors of another dimension were deleted and are embedded again"
            )
            report.pruned += dropped
        have = store.hashes(embedder.name)
        todo = sorted((h for h in texts if h not in have), key=lambda h: len(texts[h]))
        report.reused = len(texts) - len(todo)
        for start in range(0, len(todo), config.batch):
            if should_stop is not None and should_stop():
                raise Interrupted("embedding stopped; the next run continues where it stopped")
            part = todo[start : start + config.batch]
            vectors = embedder.embed_passages([texts[h] for h in part])
            if vectors.shape != (len(part), embedder.dim):
                raise EmbeddingError(
                    f"{embedder.name} returned vectors of shape {vectors.shape} for"
                    f" {len(part)} texts of dimension {embedder.dim}"
                )
            store.put(embedder.name, embedder.dim, zip(part, vectors, strict=True))
            report.embedded += len(part)
            if progress is not None:
                progress(report.embedded, len(todo))
        report.pruned += store.prune(embedder.name, set(texts))
        matrices.current(state_dir / matrices.MATRIX_FILE, conn, store, embedder.name)

    with_store(state_dir, fill, report.notices)
    report.seconds = time.monotonic() - started
    return report


def coverage(
    conn: sqlite3.Connection, state_dir: Path, config: EmbeddingsConfig
) -> tuple[str, int, int] | None:
    """``(model, chunks embedded, chunks in all)`` for ``vaultmem status``; ``None`` when the
    vault has no vectors (then nothing heavy is imported)."""
    from .embedders import model_name

    name = model_name(config)
    if name is None or not (state_dir / VECTORS_FILE).exists():
        return None
    vectors = matrices.of_vault(conn, state_dir, name, [])
    if vectors is None:
        total = conn.execute(f"SELECT count(*) FROM chunks WHERE {EMBEDDABLE}")
        return name, 0, int(total.fetchone()[0])
    return name, len(vectors), vectors.total
