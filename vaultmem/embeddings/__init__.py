"""Optional semantic search (the ``vaultmem[embeddings]`` extra): embedders
(``embedders.py``, ``openai_api.py``), the vector store (``store.py``), the search matrix
(``matrix.py``), ``vaultmem embed`` (``embed.py``) and semantic and hybrid search
(``semantic.py``). See docs/embeddings.md.

Nothing here is imported by the core or by keyword search: a vault without
``.vaultmem/vectors.db`` never loads numpy or a model.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import EmbeddingError

if TYPE_CHECKING:
    from ..config import EmbeddingsConfig
    from ..search import Hit

#: The vector store's file in ``.vaultmem/`` (``store.py``); named here so that keyword
#: search can tell whether a vault has vectors without importing the store.
VECTORS_FILE = "vectors.db"

VectorSearch = Callable[..., "list[Hit]"]  # the signature of ``semantic.search``


def _missing(exc: ImportError) -> str:
    return (
        f"semantic search needs {exc.name or 'numpy'}, which cannot be imported here;"
        " install it with `pip install 'vaultmem[embeddings]'`"
    )


def numpy_or_notice(notices: list[str]) -> bool:
    """Whether numpy imports. A vault can hold vectors made by another environment while
    this one is a core install; then ``notices`` says why they are ignored."""
    try:
        import numpy  # noqa: F401
    except ImportError as exc:
        notices.append(f"embeddings ignored: {_missing(exc)}")
        return False
    return True


def semantic_search(mode: str | None, notices: list[str], config: EmbeddingsConfig) -> VectorSearch:
    """``semantic.search``, with ``config``'s embedder already loading in a thread (while
    numpy imports here); without numpy, keyword search for the default mode (with a notice
    in ``notices``).

    Raises:
        EmbeddingError: numpy cannot be imported and ``mode`` asked for meaning.
    """
    from .embedders import preload

    preload(config)
    try:
        from .semantic import search
    except ImportError as exc:
        if mode not in (None, "keyword"):
            raise EmbeddingError(_missing(exc)) from exc
        notices.append(f"keyword search only: {_missing(exc)}")
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
    **filters: Any,
) -> list[Hit]:
    from ..search import search

    return search(conn, query, limit=limit, **filters)
