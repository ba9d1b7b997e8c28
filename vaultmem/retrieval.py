"""One search, start to end: ``Vault.search``'s work once the index is there.

``retrieve`` chooses the engine (keyword search, ``search.py``; semantic or hybrid search,
``embeddings/semantic.py``, only for a vault that has vectors or when asked), asks it for
enough candidates, makes sure "nothing found" is not a damaged index talking, marks each
hit's tier and whether it is superseded (``memory/tiers.py``), and refines the list into
what an agent reads (``results.py``: one memory once, superseded below their replacement,
context lines). numpy, a model and the memory pipeline load only when a search needs them.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any, NamedTuple

from .config import Config
from .embeddings import VECTORS_FILE, semantic_search
from .index import Index
from .search import MAX_LIMIT, Hit
from .search import search as keyword_search
from .state import STATE_DIR


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
) -> list[Hit]:
    """The hits ``Vault.search`` returns, from an index that was built.

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

    Raises:
        EmbeddingError: meaning was asked for and cannot be searched here.
        sqlite3.DatabaseError: the index is damaged (the caller rebuilds it).
    """
    from .memory.tiers import mark_hits  # the memory pipeline loads only when asked
    from .results import candidates, refine

    wanted: dict[str, Any] = {
        "limit": candidates(limit, MAX_LIMIT),
        "path_glob": filters.path,
        "tag": filters.tag,
        "since": filters.since,
        "until": filters.until,
        "url": filters.url,
        "exclude_glob": None if filters.include_archive else "archive/*",
        "agent": filters.agent,
    }
    if mode == "keyword" or (mode is None and not has_vectors(root)):
        hits = keyword_search(db.conn, query, **wanted)
    else:  # numpy and a model load only for a vault that has vectors
        state, embeddings = root / STATE_DIR, config.embeddings
        vector_search = semantic_search(mode, notices, embeddings)
        hits = vector_search(
            db.conn, state, embeddings, query, mode=mode, notices=notices, **wanted
        )
    if not hits:
        db.probe()  # make sure "nothing found" is not a damaged index talking
    mark_hits(hits, config.memory, today)
    daily = config.vault.daily_folder
    return refine(db.conn, hits, limit, context_lines, agent=filters.agent, daily_folder=daily)
