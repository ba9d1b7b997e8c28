"""One search, start to end: ``Vault.search``'s work once the index is there.

``retrieve`` chooses the engine (keyword search, ``keyword.py``; semantic or hybrid search,
``semantic.py``, only for a vault that has vectors or when asked), asks it for
enough candidates, makes sure "nothing found" is not a damaged index talking, marks each
hit's tier and whether it is superseded (``memory/pipeline/tiers.py``), and refines the list into
what an agent reads (``results.py``: one memory once, superseded below their replacement,
context lines). numpy, a model and the memory pipeline load only when a search needs them.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from vaultmem.config import Config, EmbeddingsConfig
from vaultmem.embeddings.files import VECTORS_FILE, MatrixCache
from vaultmem.embeddings.optional import missing_extra
from vaultmem.errors import EmbeddingError
from vaultmem.index.database import Index
from vaultmem.notes.state import STATE_DIR
from vaultmem.search.keyword import MAX_LIMIT, Hits
from vaultmem.search.keyword import search as keyword_search


class Filters(NamedTuple):
    """What ``Vault.search`` narrows a search to (see its docstring)."""

    path: str | None = None
    tag: str | None = None
    since: str | None = None
    until: str | None = None
    url: str | None = None
    include_archive: bool = False
    agent: str | None = None


def has_vectors(root: Path) -> bool:
    """Whether the vault at ``root`` holds vectors (``vaultmem embed`` ran)."""
    return (root / STATE_DIR / VECTORS_FILE).exists()


def retrieve(
    db: Index,
    root: Path,
    config: Config,
    query: str,
    filters: Filters,
    *,
    mode: str | None,
    limit: int,
    context_lines: int,
    today: dt.date,
    notices: list[str],
    matrices: MatrixCache | None = None,
) -> Hits:
    """The hits ``Vault.search`` returns, from an index that was built, with the mode that
    found them.

    Args:
        db: the open index.
        root: the vault folder.
        config: the vault's settings.
        query: what a person or an agent typed.
        filters: paths, tag, dates, URL, archive and agent to narrow to.
        mode: ``"keyword"``, ``"semantic"``, ``"hybrid"`` or ``None`` (hybrid when the
            vault has vectors and the embedder loads, else keyword).
        limit: the most hits to return.
        context_lines: lines of context each side of a hit.
        today: the day tiers are computed for.
        notices: where to say what happened on its own (a missing extra, a model).
        matrices: the vault's search matrix, mapped by its first semantic search and kept.

    Raises:
        EmbeddingError: meaning was asked for and cannot be searched here.
        sqlite3.DatabaseError: the index is damaged (the caller rebuilds it).
    """
    from vaultmem.search.results import candidates, mark_hits, refine

    # More hits than asked (one memory's places fold into one), ranked from the candidate
    # pool of a search for the hits asked (``ranking.pool_size``).
    wanted: dict[str, Any] = {
        "limit": candidates(limit, MAX_LIMIT),
        "ranked_for": limit,
        "path_glob": filters.path,
        "tag": filters.tag,
        "since": filters.since,
        "until": filters.until,
        "url": filters.url,
        "exclude_glob": None if filters.include_archive else "archive/*",
        "agent": filters.agent,
    }
    if mode == "keyword" or (mode is None and not has_vectors(root)):
        hits = Hits(keyword_search(db.conn, query, **wanted), "keyword")
    else:  # numpy and a model load only for a vault that has vectors
        state, embeddings = root / STATE_DIR, config.embeddings
        vector_search = semantic_search(mode, notices, embeddings)
        hits = vector_search(
            db.conn, state, embeddings, query, mode=mode, notices=notices, cache=matrices, **wanted
        )
    if not hits:
        db.probe()  # make sure "nothing found" is not a damaged index talking
    mark_hits(hits, config.memory, today)
    daily = config.vault.daily_folder
    found = refine(db.conn, hits, limit, context_lines, agent=filters.agent, daily_folder=daily)
    return Hits(found, hits.mode)


VectorSearch = Callable[..., Hits]  # the signature of ``semantic.search``


def semantic_search(mode: str | None, notices: list[str], config: EmbeddingsConfig) -> VectorSearch:
    """``semantic.search``, with ``config``'s embedder already loading in a thread (while
    numpy imports here); without numpy, keyword search for the default mode (with a notice
    in ``notices``).

    Raises:
        EmbeddingError: numpy cannot be imported and ``mode`` asked for meaning.
    """
    from vaultmem.embeddings.embedders import preload

    preload(config)
    try:
        from vaultmem.search.semantic import search
    except ImportError as exc:
        if mode not in (None, "keyword"):
            raise EmbeddingError(missing_extra(exc)) from exc
        notices.append(f"keyword search only: {missing_extra(exc)}")
        return _keyword_search
    return search


def _keyword_search(
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

    return Hits(keyword_search(conn, query, limit=limit, ranked_for=ranked_for, **filters))
