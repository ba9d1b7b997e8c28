"""The vectors' files in ``.vaultmem/`` and the search matrices an open vault mapped:
named apart from the store and the matrix so that keyword search can tell whether a vault
has vectors, and ``Vault`` can hold its matrices, without importing numpy or the store."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar, cast

Mapped = TypeVar("Mapped")  # a matrix (``matrix.VectorMatrix``), named here without numpy

#: The vector store's file in ``.vaultmem/`` (``store.py``).
VECTORS_FILE = "vectors.db"


class MatrixCache:
    """The search matrices (``matrix.py``) one open vault mapped, kept for its next search
    and let go by ``close`` (``Vault.close``).

    A vault that searches again (in the MCP server, the daemon, a Python caller) reuses the
    mapping while the file stays the same: mapping it anew faulted its pages in on every
    search. The file is replaced whole when the matrix is refreshed, so a new file is a new
    (device, inode, size, mtime) and is mapped anew. A mapping holds the file open until the
    last array of it is gone, so the cache belongs to the vault, never to the process: a
    process that opens many vaults (a test run, a host serving several) would otherwise
    keep every one of their files open, deleted ones included. numpy is never imported here.
    """

    def __init__(self) -> None:
        self._mapped: dict[Path, tuple[tuple[int, int, int, int], object]] = {}

    def get(self, path: Path, read: Callable[[Path], Mapped | None]) -> Mapped | None:
        """The matrix in ``path``: the one mapped before if the file is the same, else
        ``read(path)`` (kept for next time); ``None`` if there is none or it cannot be read."""
        try:
            stat = path.stat()
        except OSError:
            self._mapped.pop(path, None)
            return None
        identity = (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)
        known = self._mapped.get(path)
        if known is not None and known[0] == identity:
            return cast(Mapped, known[1])
        matrix = read(path)
        if matrix is None:
            self._mapped.pop(path, None)
        else:
            self._mapped[path] = (identity, matrix)
        return matrix

    def close(self) -> None:
        """Let go of every matrix mapped: each file closes once no array of it is left."""
        self._mapped.clear()
