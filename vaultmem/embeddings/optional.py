"""What needs the ``embeddings`` extra, asked without importing it: whether numpy imports,
the message that names the extra, and ``vaultmem embed``'s runner, imported only when
there is embedding to do."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from vaultmem.embeddings import INSTALL_EMBEDDINGS
from vaultmem.errors import EmbeddingError

if TYPE_CHECKING:
    from vaultmem.embeddings.embed import EmbedReport


def missing_extra(exc: ImportError, work: str = "semantic search") -> str:
    return (
        f"{work} needs {exc.name or 'numpy'}, which cannot be imported here;"
        f" install it with {INSTALL_EMBEDDINGS}"
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


def numpy_or_notice(notices: list[str]) -> bool:
    """Whether numpy imports. A vault can hold vectors made by another environment while
    this one is a core install; then ``notices`` says why they are ignored."""
    try:
        import numpy  # noqa: F401
    except ImportError as exc:
        notices.append(f"embeddings ignored: {missing_extra(exc)}")
        return False
    return True
