"""Semantic and hybrid search: the query's vector against the matrix, the nearest chunks
that clear the model's floor (``floor.py``: a query that means nothing has none), then
weighted reciprocal rank fusion with keyword search (docs/search.md). When no chunk clears
the floor, hybrid search returns the keyword search's hits as they are.

Every mode applies the same filters, with the same SQL (``search.filter_sql``): semantic
search takes the nearest rows, keeps those that pass the filters, and asks for more rows
(eight times as many each round) until it has enough or has seen them all, so a narrow
``--path`` still gets its hits.
"""

from __future__ import annotations

import copy
import json
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from vaultmem.config import EmbeddingsConfig
from vaultmem.embeddings import matrix as matrices
from vaultmem.embeddings.embedders import NO_EMBEDDER, cached_embedder, model_name
from vaultmem.embeddings.files import MatrixCache
from vaultmem.embeddings.floor import Gate, gate_for
from vaultmem.errors import EmbeddingError, VaultmemError
from vaultmem.notes.cjk import mostly_cjk
from vaultmem.search.keyword import Hit, Hits, filter_sql, hits_for_rows, note_name
from vaultmem.search.keyword import search as keyword_search
from vaultmem.search.query import parse_query

if TYPE_CHECKING:
    from vaultmem.embeddings.protocol import Embedder, Matrix

MODES = ("keyword", "semantic", "hybrid")
RRF_K = 60
SEATS_WITHIN = 5  # fuse's seats for semantic hits are within this top


def semantic_hits(
    conn: sqlite3.Connection,
    vectors: matrices.VectorMatrix,
    query: Matrix,
    k: int,
    gate: Gate | None = None,
    language: int = 0,
    **filters: Any,
) -> list[Hit]:
    """The ``k`` chunks nearest to ``query`` (a text of ``language``, 1: mostly CJK) that
    pass ``filters`` (the keyword arguments of ``search.search``), best first, scored by
    cosine similarity measured from their languages' means (``matrix.py``); with ``gate``,
    those of them that clear the model's floor (``floor.py``, on the plain cosine), so a
    query that means nothing gets none."""
    where, params = filter_sql(**filters)
    wanted = max(k * 4, 50)
    while True:
        positions, scores = vectors.nearest(query, wanted, language)
        # Gathered at once: indexing a memory-mapped array row by row costs 10 us a row.
        ids, keys = vectors.ids[positions].tolist(), vectors.keys[positions].tolist()
        candidates = {
            i: (k.decode(), s, at)
            for i, k, s, at in zip(ids, keys, scores.tolist(), positions.tolist(), strict=True)
        }
        sql = (
            "SELECT c.id, c.chunk_id FROM chunks c JOIN files f ON f.path = c.path"
            " WHERE c.id IN (SELECT value FROM json_each(?))"
            + "".join(f" AND {clause}" for clause in where)
        )
        rows = conn.execute(sql, [json.dumps(list(candidates)), *params]).fetchall()
        # A row whose chunk_id changed since the matrix was built holds other text now.
        passing = {r[0] for r in rows if candidates[r[0]][0] == r[1]}
        kept = [(i, s, at) for i, (_, s, at) in candidates.items() if i in passing]
        if len(kept) >= k or wanted >= len(vectors):
            break
        wanted *= 8
    kept = kept[:k]
    if gate is not None and kept:
        at = np.array([at for _, _, at in kept], dtype=np.intp)
        admitted = gate.admits(vectors, at)
        kept = [hit for hit, admit in zip(kept, admitted.tolist(), strict=True) if admit]
    return hits_for_rows(conn, [i for i, _, _ in kept], [s for _, s, _ in kept])


def fuse(
    keyword: list[Hit], semantic: list[Hit], *, weight: float, k: int = RRF_K, seats: int = 0
) -> list[Hit]:
    """Weighted reciprocal rank fusion: a hit scores ``(1 - weight) / (k + rank)`` from the
    keyword list plus ``weight / (k + rank)`` from the semantic list (ranks from 1), best
    first; a chunk in both lists appears once. Then the first ``seats`` semantic hits are
    moved up to the last ``seats`` places of the top ``SEATS_WITHIN`` if they are below:
    with a keyword-leaning weight, a memory that shares no word with the query (a
    paraphrase, another language) would otherwise rank below every keyword hit."""
    fused: dict[tuple[str, str], tuple[float, Hit]] = {}
    for share, hits in ((1 - weight, keyword), (weight, semantic)):
        for rank, hit in enumerate(hits, 1):
            key = (hit.path, hit.chunk_id)
            score, first = fused.get(key, (0.0, hit))
            fused[key] = (score + share / (k + rank), first)
    ranked = [_rescored(hit, score) for score, hit in sorted(fused.values(), key=_first)]
    keys = [(h.path, h.chunk_id) for h in ranked]
    for seat, hit in enumerate(semantic[:seats], SEATS_WITHIN - min(seats, SEATS_WITHIN)):
        at = keys.index((hit.path, hit.chunk_id))
        if at > seat:
            ranked.insert(seat, ranked.pop(at))
            keys.insert(seat, keys.pop(at))
    return ranked


def _first(pair: tuple[float, Hit]) -> float:
    return -pair[0]


def _rescored(hit: Hit, score: float) -> Hit:
    """A copy of ``hit`` with its fused score (the two lists keep theirs)."""
    fused = copy.copy(hit)
    fused.score = score
    return fused


@dataclass
class Vectors:
    """What semantic search needs: the embedder and the current matrix."""

    embedder: Embedder
    matrix: matrices.VectorMatrix


def open_matrix(
    conn: sqlite3.Connection,
    state_dir: Path,
    config: EmbeddingsConfig,
    notices: list[str],
    cache: MatrixCache | None = None,
) -> matrices.VectorMatrix | None:
    """The vault's matrix for the configured model, or ``None`` if it has no vectors;
    ``cache`` (the vault's) keeps it mapped for the next search."""
    name = model_name(config)
    matrix = None if name is None else matrices.of_vault(conn, state_dir, name, notices, cache)
    return matrix if matrix is not None and len(matrix) else None


def open_vectors(
    conn: sqlite3.Connection, state_dir: Path, config: EmbeddingsConfig, notices: list[str]
) -> Vectors | None:
    """The vault's vectors for the configured model, or ``None`` if there are none.

    Raises:
        EmbeddingError: the embedder cannot be loaded.
    """
    matrix = open_matrix(conn, state_dir, config, notices)
    embedder = None if matrix is None else cached_embedder(config)
    return None if matrix is None or embedder is None else Vectors(embedder, matrix)


def search(
    conn: sqlite3.Connection,
    state_dir: Path,
    config: EmbeddingsConfig,
    query: str,
    *,
    mode: str | None,
    limit: int,
    notices: list[str],
    cache: MatrixCache | None = None,
    ranked_for: int | None = None,
    **filters: Any,
) -> Hits:
    """Search in ``mode`` (``None``: hybrid when vectors exist, else keyword); notes in
    ``notices`` how much of the vault the vectors cover when it is not all of it. ``cache``
    is the vault's ``MatrixCache``: the matrix stays mapped between its searches. The
    keyword hits are ranked from the candidate pool of a search for ``ranked_for`` hits
    (default ``limit``), as a keyword search's are (``keyword.search``).

    Raises:
        VaultmemError: an unknown mode, or semantic search asked with no vectors.
        EmbeddingError: the embedder cannot be loaded or fails (an explicit mode only;
            without one, search falls back to keyword and says why in ``notices``).
    """
    if mode not in (None, *MODES):
        raise VaultmemError(f"unknown search mode {mode!r} (use {', '.join(MODES)})")
    matrix = open_matrix(conn, state_dir, config, notices, cache) if mode != "keyword" else None
    ranked_for = ranked_for or limit
    if matrix is None or not query.strip():
        found = _words_only(conn, config, query, mode, limit, notices, None, ranked_for, **filters)
        return Hits(found, "keyword")
    pool = limit if mode == "semantic" else max(limit * 3, 30)
    # The model loads and runs in C without the GIL: it embeds the query (loading first
    # in a new process) while keyword search runs here.
    with ThreadPoolExecutor(max_workers=1) as executor:
        embedding = executor.submit(_embedded, config, matrix, query, state_dir, notices)
        # The keyword list is longer than a keyword search's (fusion reads past its end),
        # but ranked from the same candidates: three times the pool cost 3x the time.
        keyword = (
            keyword_search(conn, query, limit=pool, ranked_for=ranked_for, **filters)
            if mode != "semantic"
            else []
        )
        try:
            embedded = embedding.result()
        except EmbeddingError as exc:
            if mode is not None:
                raise
            notices.append(f"keyword search only: {exc}")
            return Hits(keyword[:limit], "keyword")
    if embedded is None:  # no embedder configured or installed
        found = _words_only(
            conn, config, query, mode, limit, notices, keyword, ranked_for, **filters
        )
        return Hits(found, "keyword")
    if len(matrix) < matrix.total:
        notices.append(
            f"{len(matrix)} of {matrix.total} chunks are embedded; "
            "run `vaultmem embed` for the rest"
        )
    language = int(mostly_cjk(query))
    vector, gate = embedded
    semantic = semantic_hits(conn, matrix, vector, pool, gate, language, **filters)
    if mode == "semantic":
        return Hits(semantic, "semantic")
    if not semantic:  # nothing cleared the floor: hybrid search is keyword search, as is
        return Hits(keyword[:limit], "hybrid")
    seats = config.seats
    if words_missed(query, keyword):
        seats = max(seats, config.seats_apart)
    return Hits(fuse(keyword, semantic, weight=config.weight, seats=seats)[:limit], "hybrid")


def words_missed(query: str, keyword: list[Hit]) -> bool:
    """Whether none of the first five keyword hits holds half of what the query asks (its
    units that count, in the hit's text, heading and note name: ``Query.share``). Then the
    words it shares with them are not what it asks (a question in other words than its
    memory's, or in another language), and meaning gets more seats."""
    parsed = parse_query(query)
    return all(
        parsed.share(f"{hit.text}\n{hit.heading}\n{note_name(hit.path)}") < 0.5
        for hit in keyword[:SEATS_WITHIN]
    )


def _words_only(
    conn: sqlite3.Connection,
    config: EmbeddingsConfig,
    query: str,
    mode: str | None,
    limit: int,
    notices: list[str],
    keyword: list[Hit] | None,
    ranked_for: int,
    **filters: Any,
) -> list[Hit]:
    """Keyword hits when there is nothing to search by meaning with (``keyword``: the ones
    already found, else searched now from the pool ranked for ``ranked_for`` hits).

    Raises:
        EmbeddingError: meaning was asked for, and no embedder is configured or installed.
        VaultmemError: semantic search was asked for, and the vault has no vectors.
    """
    if mode in ("semantic", "hybrid") and query.strip() and model_name(config) is None:
        raise EmbeddingError(NO_EMBEDDER)
    if mode == "semantic" and query.strip():
        raise VaultmemError("no embeddings in this vault yet; run `vaultmem embed` first")
    if mode == "hybrid" and query.strip():
        # An agent that asked for meaning must know it got words only.
        notices.append(
            f"keyword search only: no vectors of {model_name(config)} in this vault yet;"
            " run `vaultmem embed`"
        )
    if keyword is not None:
        return keyword[:limit]
    return keyword_search(conn, query, limit=limit, ranked_for=ranked_for, **filters)


def _embedded(
    config: EmbeddingsConfig,
    matrix: matrices.VectorMatrix,
    query: str,
    state_dir: Path,
    notices: list[str],
) -> tuple[Matrix, Gate] | None:
    """The query's vector and the floor its hits must clear; ``None`` when no embedder
    is configured or installed.

    Raises:
        EmbeddingError: the embedder cannot be loaded or failed, or its vectors no longer
            match the matrix's dimension (a model changed under the same name).
    """
    embedder = cached_embedder(config)
    if embedder is None:
        return None
    vector = embedder.embed_query(query)
    if vector.shape != (matrix.dim,):
        raise EmbeddingError(
            f"{embedder.name} now returns vectors of dimension {vector.shape[-1]}, but"
            f" the vault's are of dimension {matrix.dim}; run `vaultmem embed` again"
        )
    return vector, gate_for(state_dir, embedder, vector, matrix, notices)
