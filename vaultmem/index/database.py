"""The SQLite shadow index at ``.vaultmem/index.db``: opening it, its write transactions, reads.

Every row here is derived from the vault's Markdown files, so deleting ``index.db`` is
always safe: ``vaultmem reindex`` (or the next command that needs it) builds it again.

Tables (sizes: the 10,000-note generated vault, 24.9 MB of notes, index 61 MB; the
100,000-note one: ``docs/benchmarks.md``):

* ``meta``: ``schema_version`` and ``app``. An index of another version, a database that is
  not ours, or a corrupt file is deleted and rebuilt from the files, never migrated.
* ``files`` (2 MB): one row per note, with an ``id`` the other tables refer to, so a path is
  stored once: ``path``, ``size`` and ``mtime_ns`` (the cheap stat check), ``hash`` (the
  content check), ``indexed_ns`` (when we read it), ``date`` (from a daily note's name or
  the ``date``/``created`` property), parse ``warnings`` as JSON, ``chunks`` (how many),
  ``names`` (file name, title, aliases: ``terms.note_names``). A skipped file (binary, too
  large, symlink) has a row with its warning and no chunks. The front matter's values are
  not kept here a second time: the front matter chunk holds its text.
* ``chunk_rows`` (23 MB, half of it the text): one row per chunk: ``file``, ``chunk_id``
  (stable, see ``chunk.py``; 16 hex digits are stored as the 64-bit integer they spell),
  ``kind`` (a number: ``schema.KINDS``), ``line_start`` and ``lines`` (1-based; the
  view's ``line_end`` is their sum, inclusive), ``heading`` (a number in ``headings``),
  the raw ``text``, compressed (``text.py``; 24.5 MB in 12.8 MB), ``block_id``
  (``^id``), ``date`` (a ``[created:: ]`` or ``[date:: ]`` field) and ``searched``
  (whether the chunk has a ``chunks_fts`` row, see ``writer.is_searched``). Search
  dates a chunk by that, else the file's ``date``, else the day of its ``mtime_ns``
  (computed at query time, so it follows the file's stat without a re-read).
* ``headings`` (1 MB): each heading path of a note once, numbered within the note; a
  heading path repeated on every chunk under it was 7 MB. ``kinds``: the kind names.
* ``chunks`` (a view): ``chunk_rows`` with ``path``, ``kind``, ``heading``, the hex
  ``chunk_id``, ``line_end`` and the ``text`` spelled out, the shape every reader queries;
  ``file`` is there too. Its ``text`` calls ``chunk_text()``, an SQL function each
  connection registers (``text.TextStore.register``).
* ``text_dicts``: the dictionary the texts are compressed with (``text.py``).
* ``chunks_fts`` (29 MB: 26 MB of postings, 3 MB of column sizes for bm25): FTS5 over
  ``body`` (with the CJK grams), ``heading`` and ``name`` (see ``terms.py``), rowid = chunk id,
  ``unicode61`` tokenizer (no stemmer; see ``search/keyword.py``), full detail (positions: phrases
  and CJK bigram phrases need them). It is *contentless*: the text lives once, in
  ``chunk_rows`` (and the note's names in ``files.names``), and a row is deleted by handing
  FTS5 its column values again, recomputed by ``terms.fts_columns``, for exactly the
  chunks marked ``searched`` when they were inserted. The front matter chunk has no row:
  it is never a hit, its values are reached as fields (names, tags, date). The
  ``heading`` and ``name`` columns repeat a note's heading and names on each of its
  chunks (10 of the 29 MB): that is what lets a line be found by words split between it
  and its heading or note name. A block id is found through this table too
  (``with_block_id``): an index of its own was 3 MB.
* ``tag_rows`` (``chunk`` NULL for frontmatter tags; ``tag_key`` is the case-folded tag,
  since SQLite's ``lower()`` folds only ASCII) with the view ``tags`` (its ``path``
  spelled out), ``links`` and ``fields`` (keyed by chunk): the Obsidian syntax of each
  chunk, for filters and later graph features.
* Secondary indexes (4 MB with the tables' own keys): chunks by file, tags, links and
  fields by chunk and by key.
* ``meta.settings``: the config values that shape chunks; when they change, ``index``
  rebuilds. ``meta.generation``: a random token renewed by every write transaction.

The file is in ``auto_vacuum = INCREMENTAL`` mode: after a run that freed many pages
(deleted notes, a rebuild of a larger index), ``vacuum.release_free_pages`` hands them
back to the file system, so the file does not keep the largest size it ever had.

Writes happen in one transaction per ``Index.batch()``, so a reader in another process
(WAL mode) sees a file's old rows or its new rows, never a mix.

The database is this module (``Index``: open, check, transactions, the reads the rest of
vaultmem asks for), ``schema.py`` (the statements above, the version, the check that a
database is ours), ``writer.py`` (one note's rows in, moved, or out), ``text.py`` (the
compressed texts), ``faults.py`` (corruption, locks, deleting a damaged file) and
``vacuum.py`` (giving freed pages back). The names the rest of vaultmem imports from the
index (``is_corrupt``, ``index_error``, ...) are importable from here; ``writer`` loads
with the first write (a search never needs it).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from vaultmem.errors import IndexLockedError, VaultNotFoundError
from vaultmem.index.faults import (
    CorruptIndexError,
    database_files,
    index_error,
    is_corrupt,
    raise_if_locked,
    remove_database,
)
from vaultmem.index.schema import (
    SCHEMA_VERSION,
    connect,
    create_indexes,
    drop_indexes,
    recreate,
    unusable,
)
from vaultmem.index.sql import in_parts, path_filters
from vaultmem.index.text import TextStore
from vaultmem.index.vacuum import convert_to_incremental_vacuum

if TYPE_CHECKING:
    from vaultmem.index.chunk import Chunk
    from vaultmem.index.writer import FileRecord

__all__ = [
    "SCHEMA_VERSION",
    "CorruptIndexError",
    "Index",
    "IndexedState",
    "KnownFiles",
    "citing",
    "index_error",
    "is_corrupt",
    "remove_database",
]


# The words FTS5's unicode61 tokenizer makes of a block id (letters and digits; ``-`` parts).
_ID_WORDS = re.compile(r"[^\W_]+")
# The memory SQLite's sorter may use when a bulk build creates the secondary indexes.
SORTER_KIB = 8192
# SQLite's page cache in an index run over given paths (the daemon's, remember's, a
# consolidation's), instead of 64 MiB: it comes on top of what the caller holds. The index
# step of a full consolidation of the 10,000-note vault (5,000 notes) took as long with
# it, and the run's peak RSS was 268 MB against 275 MB (three runs each, in turns).
SCOPED_CACHE_KIB = 16384


class KnownFiles(NamedTuple):
    """The indexed files an index run compares the vault's stats with (``known_files``)."""

    trusted: set[tuple[str, int, int]]  # (path, size, mtime_ns) whose stat can be trusted
    others: set[str]  # the paths of the rest (read too close to their last change)


class IndexedState(NamedTuple):
    """What the index remembers of a file, for the cheap change check (a named tuple: one
    per note on every index run)."""

    size: int
    mtime_ns: int
    hash: str
    indexed_ns: int


class Index:
    """An open shadow index. Use ``Index.open`` to get one."""

    def __init__(self, path: Path, conn: sqlite3.Connection, notices: list[str]) -> None:
        self.path = path
        self.conn = conn
        #: What happened while opening (for example: a corrupt index was rebuilt).
        self.notices = notices
        self.waited = 0.0
        self._bulk = False
        #: How chunk texts are stored and read back (``text.py``).
        self.texts = TextStore.register(conn)
        self._identity = _identity(path)

    def is_gone(self) -> bool:
        """Whether the file at ``path`` is no longer the one this connection writes to (it
        was deleted or replaced while open: our writes went to a file nobody will open)."""
        return _identity(self.path) != self._identity

    @classmethod
    def open(cls, path: Path, busy_timeout_ms: int = 5000) -> Index:
        """Open the index at ``path``, creating it, or recreating it if it is not usable.

        Several processes may open one index at once (agents searching in parallel on first
        use): the schema is checked again and created under the write lock, so only one of
        them creates it, and a file that any of them may hold open is never deleted unless
        SQLite itself reports it corrupt.

        Raises:
            IndexLockedError: another process holds the database past the busy timeout.
            VaultNotFoundError: the folder of ``path`` does not exist (it is not made).
        """
        notices: list[str] = []
        if not path.parent.is_dir():
            # Never made here: ``.vaultmem`` is made (0700) by ``init``, so a missing one
            # means the vault was moved or deleted under a running process, and making it
            # again would leave a stray vault at the old path.
            raise VaultNotFoundError(
                f"{path.parent} does not exist: the vault was moved or deleted; "
                "open it where it is now"
            )
        try:
            conn = connect(path, busy_timeout_ms)
            problem = unusable(conn)
        except sqlite3.DatabaseError as exc:
            if not is_corrupt(exc):
                raise index_error(exc, path) from exc
            conn, problem = None, f"corrupt ({exc})"
        except OSError as exc:
            raise index_error(exc, path) from exc
        if conn is None:
            # Corrupt beyond what SQL can repair: the file goes, the notes rebuild it.
            notices.append(f"index {path} was {problem}; rebuilt from the files")
            remove_database(path)
            conn, problem = connect(path, busy_timeout_ms), "empty"
        index = cls(path, conn, notices)
        if problem is not None:
            try:
                with index.batch():
                    again = unusable(conn)
                    if again is not None:
                        if again != "empty":
                            notices.append(f"index {path} was {again}; rebuilt from the files")
                        index.reset()
            except sqlite3.DatabaseError as exc:
                conn.close()
                raise index_error(exc, path) from exc
            # A whole index is not worth a rewrite here: its next rebuild converts it.
            if index.is_empty():
                convert_to_incremental_vacuum(conn)
        return index

    def probe(self) -> None:
        """A check cheap enough for a search that found nothing (about 2 ms for 300,000
        chunks): the chunk count must equal what ``files`` expects, and the chunks table's
        own b-tree must be readable.

        Raises:
            CorruptIndexError: the counts disagree.
        """
        expected, counted, highest = self.conn.execute(
            "SELECT (SELECT COALESCE(SUM(chunks), 0) FROM files),"
            " (SELECT COUNT(*) FROM chunk_rows), (SELECT MAX(id) FROM chunk_rows)"
        ).fetchone()
        if expected != counted or (counted and highest is None):
            raise CorruptIndexError(f"{counted} chunks where the files table expects {expected}")

    def check(self) -> None:
        """SQLite's quick consistency check of every table and index (about 0.1 s per 100 MB).

        Raises:
            CorruptIndexError: the check found damage.
        """
        result = self.conn.execute("PRAGMA quick_check(1)").fetchone()
        if result is None or result[0] != "ok":
            raise CorruptIndexError(f"quick_check: {result[0] if result else 'no answer'}")

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def reset(self) -> None:
        """Drop every table and view and create the schema anew (inside a ``batch``)."""
        recreate(self.conn)

    def get_meta(self, key: str) -> str | None:
        """A value from the ``meta`` table."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        """Store a value in the ``meta`` table (inside a ``batch``)."""
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def is_empty(self) -> bool:
        """Whether the index holds no files yet (a first build)."""
        return self.conn.execute("SELECT 1 FROM files LIMIT 1").fetchone() is None

    @contextlib.contextmanager
    def batch(self, wait_ms: int | None = None) -> Iterator[None]:
        """One write transaction: readers see all of it or none of it.

        Args:
            wait_ms: wait this long for another writer to finish, instead of the busy
                timeout (a second ``vaultmem index`` waits for the first one).

        Raises:
            IndexLockedError: the database stayed locked past the busy timeout.
        """
        started = time.monotonic()
        try:
            if wait_ms is None:
                self.conn.execute("BEGIN IMMEDIATE")
            else:
                busy = self.conn.execute("PRAGMA busy_timeout").fetchone()[0]
                self.conn.execute(f"PRAGMA busy_timeout = {int(wait_ms)}")
                try:
                    self.conn.execute("BEGIN IMMEDIATE")
                except sqlite3.OperationalError as exc:
                    if isinstance(index_error(exc, self.path), IndexLockedError):
                        raise IndexLockedError(
                            f"another process kept writing the index for {wait_ms / 1000:g} s"
                            " (a long reindex?); try again later, or raise index.run_wait_ms"
                        ) from exc
                    raise
                finally:
                    self.conn.execute(f"PRAGMA busy_timeout = {int(busy)}")
        except sqlite3.OperationalError as exc:
            raise_if_locked(exc)
            raise
        #: Seconds this transaction waited for another writer.
        self.waited = time.monotonic() - started
        self.texts.reset()
        changes = self.conn.total_changes
        try:
            yield
            if self.conn.total_changes != changes:
                # A new token on every write: derived data (the vector matrix) compares it
                # to tell whether it still matches these rows. Random, not a counter, so a
                # rebuilt index never repeats an old value.
                self.set_meta("generation", os.urandom(8).hex())
        except BaseException:
            self.conn.rollback()
            self.texts.reset()
            raise
        try:
            self.conn.commit()
        except sqlite3.OperationalError as exc:
            raise_if_locked(exc)
            raise

    @contextlib.contextmanager
    def bulk_load(self) -> Iterator[None]:
        """Within a ``batch`` on an empty index: drop the secondary indexes, load, then
        create them again, which is several times cheaper than updating them row by row."""
        drop_indexes(self.conn)
        self._bulk = True
        try:
            yield
        finally:
            self._bulk = False
        # SQLite's sorter may hold as much as the page cache (64 MiB), on top of the cache
        # full of the build's pages: 2.66 million rows to sort at 100,000 notes. A smaller
        # sorter spills to a temporary file instead, which keeps the run's peak memory
        # flat (a few seconds more at 100,000 notes).
        with self.cache_limited(SORTER_KIB):
            create_indexes(self.conn)

    @contextlib.contextmanager
    def cache_limited(self, kib: int) -> Iterator[None]:
        """SQLite's page cache held to ``kib`` KiB for a while, then as it was."""
        cache = self.conn.execute("PRAGMA cache_size").fetchone()[0]
        self.conn.execute(f"PRAGMA cache_size = {-kib}")
        try:
            yield
        finally:
            self.conn.execute(f"PRAGMA cache_size = {int(cache)}")

    def states(self) -> dict[str, IndexedState]:
        """The indexed state of every file, by path."""
        rows = self.conn.execute("SELECT path, size, mtime_ns, hash, indexed_ns FROM files")
        return {r[0]: IndexedState._make(r[1:]) for r in rows}

    def known_files(
        self, racy_ns: int, paths: Iterable[str] | None = None, folders: Iterable[str] = ()
    ) -> KnownFiles:
        """What a run's plan needs to know of the indexed files (every file; with ``paths``,
        the given paths and every file under the given folders): the ``(path, size,
        mtime_ns)`` of those whose stat can be trusted, read more than ``racy_ns`` after
        their last change, and the paths of the others. Sets built from SQLite's rows
        directly: 100,000 files in one pass over ``files``, where a Python object per file
        cost a third of a no-op run."""
        trusted = "SELECT path, size, mtime_ns FROM files WHERE indexed_ns - mtime_ns > ?"
        others = "SELECT path FROM files WHERE NOT indexed_ns - mtime_ns > ?"
        filters = [("1", [])] if paths is None else list(path_filters(self.conn, paths, folders))
        known = KnownFiles(set(), set())
        for where, params in filters:
            known.trusted.update(self.conn.execute(f"{trusted} AND {where}", (racy_ns, *params)))
            rows = self.conn.execute(f"{others} AND {where}", (racy_ns, *params))
            known.others.update(path for (path,) in rows)
        return known

    def hashes(self, paths: Iterable[str]) -> dict[str, str]:
        """The content hash of each of these indexed files, by path."""
        found: dict[str, str] = {}
        for where, params in path_filters(self.conn, paths, ()):
            found.update(self.conn.execute(f"SELECT path, hash FROM files WHERE {where}", params))
        return found

    def rename_file(self, old: str, new: str) -> None:
        """Move a file's rows to a new path (see ``writer.rename_file``)."""
        from vaultmem.index import writer

        writer.rename_file(self.conn, old, new)

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None:
        """Record a new stat for a file whose content hash did not change."""
        from vaultmem.index import writer

        writer.touch_file(self.conn, path, size, mtime_ns)

    def delete_file(self, path: str) -> None:
        """Drop a file and everything derived from it."""
        from vaultmem.index import writer

        writer.delete_file(self.conn, path)

    def replace_file(self, record: FileRecord, chunks: list[Chunk]) -> int:
        """Make the index hold exactly ``chunks`` for ``record.path`` (see
        ``writer.replace_file``); returns how many chunk rows were inserted."""
        from vaultmem.index import writer

        return writer.replace_file(self.conn, record, chunks, texts=self.texts, bulk=self._bulk)

    def counts(self) -> dict[str, int]:
        """Row counts of files and chunks."""
        files, chunks = (
            int(self.conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
            for table in ("files", "chunk_rows")
        )
        return {"files": files, "chunks": chunks}

    def with_block_id(self, block_id: str) -> list[tuple[str, int, int, str]]:
        """``(path, line_start, line_end, text)`` of the chunks with this block id.

        Found through the FTS index, where the id is the phrase of its words (``^s1-10``:
        ``"s1 10"``), then checked exactly: an index on the block ids was 4% of the file
        (most lines of captured conversations carry one), for lookups that are rare.
        """
        words = _ID_WORDS.findall(block_id)
        if not words:
            return []
        rows = self.conn.execute(
            "SELECT c.path, c.line_start, c.line_end, c.text FROM chunks_fts"
            " JOIN chunks c ON c.id = chunks_fts.rowid"
            " WHERE chunks_fts MATCH ? AND c.block_id = ? ORDER BY c.path, c.line_start",
            ('body : "' + " ".join(words) + '"', block_id),
        )
        return [(r[0], r[1], r[2], r[3]) for r in rows]

    def facts_dated(self, first: str, last: str) -> list[tuple[str, int, str]]:
        """``(path, line_start, text)`` of the chunks of ``facts/`` and ``archive/`` with a
        date from ``first`` to ``last`` (``YYYY-MM-DD``) in a ``[source:: [[DATE#^id]]]``,
        ``[confirmed_by:: ]``, ``[created:: ]``, ``[date:: ]``, ``[superseded:: ]`` or
        ``[forgotten:: ]`` field: the candidates of ``recent``, found by ranges of the
        ``fields_key`` index rather than by reading every fact file."""
        after = last + "~"  # "~" sorts after every character a date or "#^id" holds
        rows = self.conn.execute(
            "SELECT DISTINCT c.path, c.line_start, c.text FROM fields f"
            " JOIN chunks c ON c.id = f.chunk"
            " WHERE ((f.key IN ('source', 'confirmed_by') AND f.value >= ? AND f.value < ?)"
            " OR (f.key IN ('created', 'date', 'superseded', 'forgotten')"
            " AND f.value >= ? AND f.value < ?))"
            " AND (c.path GLOB 'facts/*' OR c.path GLOB 'archive/*')",
            ("[[" + first, "[[" + after, first, after),
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def warnings(self) -> list[tuple[str, list[str]]]:
        """Files that carry parse or read warnings, with the warnings."""
        rows = self.conn.execute(
            "SELECT path, warnings FROM files WHERE warnings IS NOT NULL ORDER BY path"
        )
        return [(r[0], json.loads(r[1])) for r in rows]

    def size_bytes(self) -> int:
        """Size of the database and its WAL on disk."""
        return sum(p.stat().st_size for p in database_files(self.path) if p.exists())


def citing(conn: sqlite3.Connection, links: list[str]) -> dict[str, list[tuple[str | None, str]]]:
    """For each of ``links`` that some fact's ``[source:: ]`` or ``[confirmed_by:: ]`` is
    (the facts distilled from the line it links to): ``(block_id, text)`` of those facts.
    One query for a whole page of hits: one per hit was most of a search's time."""
    found: dict[str, list[tuple[str | None, str]]] = {}
    for part, marks in in_parts(conn, sorted(set(links))):
        rows = conn.execute(
            "SELECT DISTINCT s.value, c.block_id, c.text FROM fields s"
            " JOIN chunks c ON c.id = s.chunk WHERE s.key IN ('source', 'confirmed_by')"
            f" AND s.value IN ({marks})",
            part,
        )
        for link, block_id, text in rows:
            found.setdefault(link, []).append((block_id, text))
    return found


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino
