"""``vaultmem embed``: give every chunk of the index a vector, resumably.

Texts already in the store for this model are skipped (a second run does nothing). The
rest go to the embedder what matters first (``MEMORY.md``, facts, the daily notes newest
first, then the rest; within each, shortest first, as a batch of similar lengths pads
less), each batch by every member of an ensemble that lacks it, and are committed batch
by batch, so a run killed midway keeps what it finished and the next run continues from
there. A complete run then prunes vectors of other models
and of texts no longer in the vault, and builds the search matrix, so the first search
after it is fast.

A run with a ``scope`` (the watch daemon's, after a batch) reads only the chunks of the
given paths and folders, as they are in the index now, and asks the store only about their
texts: its cost follows the edit, not the vault. It prunes nothing (that needs every text)
and leaves the search matrix alone (refreshing it reads every row): the daemon refreshes
it once edits pause, and a search before that refreshes it itself.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vaultmem.config import EmbeddingsConfig
from vaultmem.embeddings import matrix as matrices
from vaultmem.embeddings.embedders import NO_EMBEDDER, load_embedder, members
from vaultmem.embeddings.files import VECTORS_FILE
from vaultmem.embeddings.protocol import Embedder
from vaultmem.embeddings.store import EMBEDDABLE, VectorStore, embedded_text, text_hash, with_store
from vaultmem.errors import EmbeddingError, Interrupted
from vaultmem.index.sql import path_filters
from vaultmem.notes.files import printable

Progress = Callable[[int, int], None]
#: Vault-relative paths and folders whose chunks a run embeds (as ``Vault.index_paths``).
Scope = tuple[Collection[str], Collection[str]]


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


@dataclass
class Changes:
    """What a run of the watch daemon embeds: the chunks of ``scope`` (``None``: every
    chunk), provided the store is as the daemon's last run left it. Had another process
    written it since (deleted a damaged store, pruned this model's vectors, embedded), or
    does the model now return another dimension, the run takes every chunk instead.
    ``generation`` is the store's token after the daemon's last run; each run updates it."""

    scope: Scope | None
    generation: str | None = None  # None: no run yet


def embed_vault(
    conn: sqlite3.Connection,
    state_dir: Path,
    config: EmbeddingsConfig,
    *,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
    embedder: Embedder | None = None,
    changes: Changes | None = None,
) -> EmbedReport:
    """Embed every chunk of the index ``conn`` that has no vector of the model yet; with
    ``changes``, only those chunks (see ``Changes``; a run of part of the vault prunes
    nothing).

    Raises:
        EmbeddingError: no embedder is configured or installed, or it failed.
        Interrupted: ``should_stop`` returned true; the batches done so far are kept.
    """
    started = time.monotonic()
    embedder = embedder or load_embedder(config)
    if embedder is None:
        raise EmbeddingError(NO_EMBEDDER)
    report = EmbedReport(embedder.name)

    def fill(store: VectorStore) -> None:
        assert embedder is not None
        scope = None
        if changes is not None and store.generation() == changes.generation:
            scope = changes.scope
        models = members(embedder)
        if _dimensions_changed(store, models, report):
            scope = None
        rows = _embeddable(conn, scope)
        texts: dict[str, str] = {}
        first: dict[str, tuple[int, str]] = {}  # each text's place: its first chunk's
        for rank, day, heading, text in sorted(rows):
            digest = text_hash(embedded := embedded_text(heading, text))
            texts.setdefault(digest, embedded)
            first.setdefault(digest, (rank, day))
        report.chunks = len(rows)
        missing = {model.name: _missing(store, model.name, texts, scope) for model in models}
        total = sum(len(hashes) for hashes in missing.values())
        # What matters first (each text's rank and day), then shortest first, as a batch
        # of similar lengths pads less. One order for every member of an ensemble, each
        # embedding the batch's texts it lacks: a text is searchable (it needs a vector of
        # each) in this order, not after the first member has embedded the whole vault.
        order = sorted(set().union(*missing.values()), key=lambda h: (first[h], len(texts[h])))
        report.reused = len(texts) - len(order)
        done = 0
        for start in range(0, len(order), config.batch):
            if should_stop is not None and should_stop():
                raise Interrupted("embedding stopped; the next run continues where it stopped")
            for model in models:
                part = [h for h in order[start : start + config.batch] if h in missing[model.name]]
                if part:
                    _embed_part(store, model, part, texts)
                    done += len(part)
                    if progress is not None:
                        progress(done, total)
        report.embedded = len(order)
        if scope is None:
            report.pruned += store.prune({model.name for model in models}, set(texts))
        if changes is not None:
            changes.generation = store.generation()
        if scope is None:
            matrices.current(state_dir / matrices.MATRIX_FILE, conn, store, embedder.name)

    with_store(state_dir, fill, report.notices)
    report.seconds = time.monotonic() - started
    return report


def _dimensions_changed(store: VectorStore, models: list[Embedder], report: EmbedReport) -> bool:
    """Record each model's dimension; whether one changed under its name (its old vectors
    are deleted, and ``report`` says so)."""
    changed = False
    for model in models:
        dropped = store.set_dim(model.name, model.dim)
        if dropped:
            report.notices.append(
                f"{model.name} now returns vectors of dimension {model.dim}: its"
                f" {dropped} vectors of another dimension were deleted and are embedded again"
            )
            report.pruned += dropped
            changed = True
    return changed


def _missing(
    store: VectorStore, model: str, texts: dict[str, str], scope: Scope | None
) -> set[str]:
    """The hashes of ``texts`` without a vector of ``model``."""
    have = store.hashes(model) if scope is None else store.having(model, texts)
    return {h for h in texts if h not in have}


def _embed_part(
    store: VectorStore, model: Embedder, part: list[str], texts: dict[str, str]
) -> None:
    """Embed the texts of hashes ``part`` with ``model`` and store their vectors.

    Raises:
        EmbeddingError: the model failed, or returned vectors of another shape.
    """
    vectors = model.embed_passages([texts[h] for h in part])
    if vectors.shape != (len(part), model.dim):
        raise EmbeddingError(
            f"{model.name} returned vectors of shape {vectors.shape} for"
            f" {len(part)} texts of dimension {model.dim}"
        )
    store.put(model.name, model.dim, zip(part, vectors, strict=True))


def _embeddable(conn: sqlite3.Connection, scope: Scope | None) -> list[tuple[int, str, str, str]]:
    """``(rank, date, heading, text)`` of the embeddable chunks of the index, or of
    ``scope`` only; sorted, what matters first: ``MEMORY.md``, then facts, then dated notes
    (daily notes), newest first, then the rest."""
    day = "COALESCE(date, (SELECT f.date FROM files f WHERE f.id = file))"
    sql = f"""SELECT id, CASE WHEN path = 'MEMORY.md' THEN 0 WHEN path LIKE 'facts/%' THEN 1
        WHEN {day} IS NOT NULL THEN 2 ELSE 3 END, {day}, heading, text
        FROM chunks WHERE {EMBEDDABLE}"""
    if scope is None:
        return [_ranked(r) for r in conn.execute(sql)]
    # The index records a file name that is not UTF-8 under its escaped form.
    paths = sorted({printable(path) for path in scope[0]})
    folders = sorted({printable(folder) for folder in scope[1]})
    found: dict[int, tuple[int, str, str, str]] = {}  # by row id: a path may be in a folder too
    for where, params in path_filters(conn, paths, folders):
        found.update((r[0], _ranked(r)) for r in conn.execute(f"{sql} AND {where}", params))
    return list(found.values())


def _ranked(row: tuple[Any, ...]) -> tuple[int, str, str, str]:
    """A chunk's sort key and texts: its rank, its date turned so that newer sorts first."""
    date = str(row[2] or "")
    newest_first = date.translate(_TURNED)
    return int(row[1]), newest_first, str(row[3]), str(row[4])


_TURNED = str.maketrans("0123456789", "9876543210")


def coverage(
    conn: sqlite3.Connection, state_dir: Path, config: EmbeddingsConfig
) -> tuple[str, int, int] | None:
    """``(model, chunks embedded, chunks in all)`` for ``vaultmem status``; ``None`` when the
    vault has no vectors (then nothing heavy is imported)."""
    from vaultmem.embeddings.embedders import model_name

    name = model_name(config)
    if name is None or not (state_dir / VECTORS_FILE).exists():
        return None
    vectors = matrices.of_vault(conn, state_dir, name, [])
    if vectors is None:
        total = conn.execute(f"SELECT count(*) FROM chunks WHERE {EMBEDDABLE}")
        return name, 0, int(total.fetchone()[0])
    return name, len(vectors), vectors.total
