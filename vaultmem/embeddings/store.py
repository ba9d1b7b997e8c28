"""The vector store, ``.vaultmem/vectors.db``: one vector per (text, model).

Table ``vectors (hash, model, vec)``: ``hash`` is a digest of the exact text embedded (a
chunk's heading path and its text, see ``embedded_text``), so a rename, a reindex or the
same line in two notes never embeds anything again; ``model`` is the embedder's name, so
a model change embeds again (vectors of other models are ignored, and pruned by the next
``vaultmem embed``). ``vec`` is float16 (half the size of float32, and far finer than the
int8 rows search scores). Table ``models`` records each model's dimension; ``meta.generation``
is a random token renewed by every write of vectors, which tells the matrix (``matrix.py``)
to refresh. Table ``backgrounds`` keeps what a model makes of meaningless text, per set of
probes (``floor.py``): it changes no vector, so writing it renews no token.

The file lives apart from ``index.db`` so ``reindex`` never loses it. Like the index it
is derived: deleting it loses nothing but the time to embed again. Writes commit in
batches, so a killed ``vaultmem embed`` keeps what it finished.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from vaultmem.embeddings.files import VECTORS_FILE
from vaultmem.index.database import is_corrupt, remove_database
from vaultmem.notes.state import create_private

if TYPE_CHECKING:
    from vaultmem.embeddings.protocol import Matrix

T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS models (model TEXT PRIMARY KEY, dim INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS vectors (
    hash TEXT NOT NULL, model TEXT NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (hash, model)
) WITHOUT ROWID;
"""
# Added after the tables above: a read-only store made before it opens without it.
_BACKGROUNDS = """
CREATE TABLE IF NOT EXISTS backgrounds (
    model TEXT NOT NULL, probes TEXT NOT NULL, data BLOB NOT NULL, PRIMARY KEY (model, probes)
);
"""


def embedded_text(heading: str, text: str) -> str:
    """What is embedded for a chunk: its heading path gives a short line its context."""
    return f"{heading}\n{text}" if heading else text


# The chunks that get a vector: not front matter (never a hit), not a heading line (every
# chunk below it is embedded with its heading path, so the heading's meaning is there; on
# its own, "# 2026-11-23" or "# Memory" sits near every query), and not a line that is only
# an HTML comment (MEMORY.md's block markers), for the same reason. A line that starts with
# "<!--" is an HTML block (CommonMark): asking the kind first spares reading every other
# chunk's text, which the index stores compressed (2 us a row, 0.5 s for the 266,000 rows
# the vector matrix checks).
EMBEDDABLE = (
    "kind NOT IN ('frontmatter', 'heading')"
    " AND NOT (kind = 'html' AND text LIKE '<!--%' AND text LIKE '%-->')"
)


def text_hash(text: str) -> str:
    """The store's key for a text."""
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def with_store(state_dir: Path, work: Callable[[VectorStore], T], notices: list[str]) -> T:
    """Run ``work`` on the open store. A damaged ``vectors.db`` is deleted (it is derived)
    and ``work`` runs again on an empty one; ``notices`` says so."""
    path = state_dir / VECTORS_FILE
    for attempt in (1, 2):
        store: VectorStore | None = None
        try:
            store = VectorStore(path)
            return work(store)
        except sqlite3.DatabaseError as exc:
            if attempt == 2 or not is_corrupt(exc):
                raise
            notices.append(f"{path} was damaged ({exc}); deleted: run `vaultmem embed` again")
        finally:
            if store is not None:
                store.close()
        remove_database(path)
    raise AssertionError("unreachable")


class VectorStore:
    """An open ``vectors.db``."""

    def __init__(self, path: Path, busy_timeout_ms: int = 5000) -> None:
        create_private(path)
        self.path = path
        self.conn = sqlite3.connect(
            path, timeout=busy_timeout_ms / 1000, isolation_level=None, check_same_thread=False
        )
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = NORMAL")
        self.conn.executescript(_SCHEMA)
        with contextlib.suppress(sqlite3.OperationalError):
            self.conn.executescript(_BACKGROUNDS)

    def close(self) -> None:
        self.conn.close()

    def generation(self) -> str:
        """The token of the last write ("" before any)."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return "" if row is None else str(row[0])

    def dim(self, model: str) -> int | None:
        """The dimension recorded for ``model``, if it has vectors here."""
        row = self.conn.execute("SELECT dim FROM models WHERE model = ?", (model,)).fetchone()
        return None if row is None else int(row[0])

    def set_dim(self, model: str, dim: int) -> int:
        """Record ``dim`` as ``model``'s dimension. A model whose dimension changed under the
        same name (a server now serving another model) makes its old vectors useless: they
        are deleted, so the next ``vaultmem embed`` embeds everything again.

        Returns:
            How many vectors were deleted.
        """
        if self.dim(model) == dim:
            return 0  # (no write: a new generation would make search rebuild its matrix)
        with self._transaction():
            return self._set_dim(model, dim)

    def _set_dim(self, model: str, dim: int) -> int:
        old = self.dim(model)
        if old == dim:
            return 0
        self.conn.execute("INSERT OR REPLACE INTO models VALUES (?, ?)", (model, dim))
        if old is None:
            return 0
        self.conn.execute("DELETE FROM backgrounds WHERE model = ?", (model,))
        return int(self.conn.execute("DELETE FROM vectors WHERE model = ?", (model,)).rowcount)

    def hashes(self, model: str) -> set[str]:
        """The hashes of every text embedded with ``model``."""
        rows = self.conn.execute("SELECT hash FROM vectors WHERE model = ?", (model,))
        return {r[0] for r in rows}

    def having(self, model: str, hashes: Collection[str]) -> set[str]:
        """Those of ``hashes`` that have a vector of ``model`` (by key: a few lookups for
        a few texts, whatever the size of the store)."""
        wanted = list(hashes)
        found: set[str] = set()
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = self.conn.execute(
                f"SELECT hash FROM vectors WHERE model = ? AND hash IN ({marks})", [model, *part]
            )
            found.update(r[0] for r in rows)
        return found

    def get(self, model: str, hashes: list[str]) -> dict[str, Matrix]:
        """The vectors of ``model`` for those of ``hashes`` that have one, as float32."""
        import numpy as np

        found: dict[str, Matrix] = {}
        for start in range(0, len(hashes), 500):
            part = hashes[start : start + 500]
            marks = ",".join("?" * len(part))
            for digest, blob in self.conn.execute(
                f"SELECT hash, vec FROM vectors WHERE model = ? AND hash IN ({marks})",
                [model, *part],
            ):
                found[digest] = np.frombuffer(blob, dtype=np.float16).astype(np.float32)
        return found

    def put(self, model: str, dim: int, items: Iterable[tuple[str, Matrix]]) -> None:
        """Store vectors of ``model`` in one transaction (a batch of ``vaultmem embed``)."""
        import numpy as np

        rows = [(h, model, np.asarray(v, dtype=np.float16).tobytes()) for h, v in items]
        with self._transaction():
            self._set_dim(model, dim)
            self.conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows)

    def prune(self, models: set[str], keep: set[str]) -> int:
        """Delete vectors of other models than ``models``, and of theirs for texts not in
        ``keep``.

        Returns:
            How many vectors were deleted.
        """
        stale = [(m, h) for m in sorted(models) for h in self.hashes(m) - keep]
        others = f"model NOT IN ({','.join('?' * len(models))})"
        with self._transaction():
            for table in ("models", "backgrounds"):
                self.conn.execute(f"DELETE FROM {table} WHERE {others}", sorted(models))
            dropped = self.conn.execute(f"DELETE FROM vectors WHERE {others}", sorted(models))
            self.conn.executemany("DELETE FROM vectors WHERE model = ? AND hash = ?", stale)
        return int(dropped.rowcount) + len(stale)

    def background(self, model: str, probes: str) -> bytes | None:
        """The background of ``model`` kept for the probe set ``probes`` (``floor.py``)."""
        try:
            row = self.conn.execute(
                "SELECT data FROM backgrounds WHERE model = ? AND probes = ?", (model, probes)
            ).fetchone()
        except sqlite3.OperationalError:  # a read-only store made before the table
            return None
        return None if row is None else bytes(row[0])

    def set_background(self, model: str, probes: str, data: bytes) -> None:
        """Keep ``model``'s background; quietly not in a store this process cannot write
        (a read-only vault measures it again next time)."""
        with contextlib.suppress(sqlite3.OperationalError):
            self.conn.execute(
                "INSERT OR REPLACE INTO backgrounds VALUES (?, ?, ?)", (model, probes, data)
            )

    def _transaction(self) -> _Transaction:
        return _Transaction(self.conn)


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` with a new generation token (rollback on error)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *rest: object) -> None:
        if kind is not None:
            self.conn.rollback()
            return
        self.conn.execute(
            "INSERT OR REPLACE INTO meta VALUES ('generation', ?)", (os.urandom(8).hex(),)
        )
        self.conn.commit()
