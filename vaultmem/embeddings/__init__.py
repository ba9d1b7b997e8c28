"""Optional semantic search (the ``vaultmem[embeddings]`` extra): embedders
(``embedders.py``, ``openai_api.py``), the vector store (``store.py``), the search matrix
(``matrix.py``), ``vaultmem embed`` (``embed.py``) and the floor a semantic hit must clear
(``floor.py``). Semantic and hybrid search use them from ``search/semantic.py``. See
docs/embeddings.md.

Nothing here is imported by the core or by keyword search: a vault without
``.vaultmem/vectors.db`` never loads numpy or a model.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from vaultmem.errors import EmbeddingError

if TYPE_CHECKING:
    from vaultmem.embeddings.embed import EmbedReport

#: The vector store's file in ``.vaultmem/`` (``store.py``); named here so that keyword
#: search can tell whether a vault has vectors without importing the store.
VECTORS_FILE = "vectors.db"


def missing_extra(exc: ImportError, work: str = "semantic search") -> str:
    return (
        f"{work} needs {exc.name or 'numpy'}, which cannot be imported here;"
        " install it with `pip install 'vaultmem[embeddings]'`"
    )


def embed_runner() -> Callable[..., EmbedReport]:
    """``embed.embed_vault`` (``vaultmem embed``, the watch daemon's runs), imported only
    when there is embedding to do: it needs numpy, which a core install lacks.

    Raises:
        EmbeddingError: numpy cannot be imported; the message names the extra to install.
    """
    try:
        from vaultmem.embeddings.embed import embed_vault
    except ImportError as exc:
        raise EmbeddingError(missing_extra(exc, "embedding")) from exc
    return embed_vault


def release_matrix(state_dir: Path) -> None:
    """Unmap the search matrix of the vault whose state is in ``state_dir``, if this
    process mapped it (``Vault.close``): a mapping holds the file open, and a process that
    opens many vaults (a test run, a host serving several) would keep every one of them
    open, deleted files included. numpy is never imported for it."""
    matrix = sys.modules.get(f"{__name__}.matrix")
    if matrix is not None:
        matrix.forget(state_dir)


def numpy_or_notice(notices: list[str]) -> bool:
    """Whether numpy imports. A vault can hold vectors made by another environment while
    this one is a core install; then ``notices`` says why they are ignored."""
    try:
        import numpy  # noqa: F401
    except ImportError as exc:
        notices.append(f"embeddings ignored: {missing_extra(exc)}")
        return False
    return True
