"""The SQLite shadow index at ``.vaultmem/index.db``: schema, per-file upserts, rebuild.

Every row here is derived from the vault's Markdown files, so deleting ``index.db`` is
always safe: ``vaultmem reindex`` (or the next command that needs it) builds it again.

Tables:

* ``meta``: ``schema_version`` and ``app``. An index of another version, a database that is
  not ours, or a corrupt file is deleted and rebuilt from the files, never migrated.
* ``files``: one row per note: ``size`` and ``mtime_ns`` (the cheap stat check), ``hash``
  (the content check), ``indexed_ns`` (when we read it), ``date`` (from a daily note's name
  or the ``date``/``created`` property), ``frontmatter`` and parse ``warnings`` as JSON,
  ``names`` (file name, title, aliases: ``terms.note_names``). A
  skipped file (binary, too large, symlink) has a row with its warning and no chunks.
* ``chunks``: one row per chunk: ``path``, ``chunk_id`` (stable, see ``chunk.py``), ``kind``,
  ``line_start``/``line_end`` (1-based, inclusive), ``heading`` path, raw ``text``,
  ``block_id`` (``^id``), ``date`` (a ``[created:: ]`` or ``[date:: ]`` field) and
  ``searched`` (whether the chunk has a ``chunks_fts`` row, see ``is_searched``).
  Search dates a chunk by that, else the file's ``date``, else the day of its ``mtime_ns``
  (computed at query time, so it follows the file's stat without a re-read).
* ``chunks_fts``: FTS5 over ``body``, ``heading``, ``cjk`` and ``name`` (see ``terms.py``),
  rowid = ``chunks.id``, ``unicode61`` tokenizer (no stemmer; see ``search.py``). It is
  *contentless*: the text lives once, in ``chunks`` (and the note's names in
  ``files.names``), and a row is deleted by handing FTS5 its column values again,
  recomputed by ``terms.fts_columns`` and ``terms.name_column``, for exactly the chunks
  marked ``searched`` when they were inserted. The front matter chunk has no row: it is
  never a hit, its values are reached as fields (names, tags, date).
* ``tags`` (``chunk`` NULL for frontmatter tags; ``tag_key`` is the case-folded tag, since
  SQLite's ``lower()`` folds only ASCII), ``links`` and ``fields``: the Obsidian syntax of
  each chunk, for filters and later graph features.
* ``meta.settings``: the config values that shape chunks; when they change, ``index``
  rebuilds. ``meta.generation``: a random token renewed by every write transaction.

Writes happen in one transaction per ``Index.batch()``, so a reader in another process
(WAL mode) sees a file's old rows or its new rows, never a mix.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .chunk import Chunk
from .errors import IndexLockedError, VaultmemError
from .terms import fts_columns, name_column

SCHEMA_VERSION = "8"

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE files (
    path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, hash TEXT, indexed_ns INTEGER,
    date TEXT, frontmatter TEXT, warnings TEXT, chunks INTEGER NOT NULL DEFAULT 0, names TEXT
);
CREATE TABLE chunks (
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, chunk_id TEXT NOT NULL, kind TEXT NOT NULL,
    line_start INTEGER NOT NULL, line_end INTEGER NOT NULL, heading TEXT NOT NULL,
    text TEXT NOT NULL, block_id TEXT, date TEXT, searched INTEGER NOT NULL
);
CREATE TABLE tags (path TEXT NOT NULL, chunk INTEGER, tag TEXT NOT NULL, tag_key TEXT NOT NULL);
CREATE TABLE links (path TEXT NOT NULL, chunk INTEGER NOT NULL, target TEXT NOT NULL,
                    embed INTEGER NOT NULL);
CREATE TABLE fields (path TEXT NOT NULL, chunk INTEGER NOT NULL, key TEXT NOT NULL,
                     value TEXT NOT NULL);
CREATE VIRTUAL TABLE chunks_fts USING fts5 (
    body, heading, cjk, name, content = '', tokenize = 'unicode61 remove_diacritics 2'
);
"""
# Secondary indexes. A bulk build into an empty index creates them after the rows are in,
# which is several times cheaper than maintaining them row by row.
_INDEXES = """
CREATE INDEX IF NOT EXISTS chunks_path ON chunks (path);
CREATE INDEX IF NOT EXISTS chunks_block_id ON chunks (block_id) WHERE block_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS tags_key ON tags (tag_key);
CREATE INDEX IF NOT EXISTS tags_path ON tags (path);
CREATE INDEX IF NOT EXISTS tags_chunk ON tags (chunk);
CREATE INDEX IF NOT EXISTS links_target ON links (target);
CREATE INDEX IF NOT EXISTS links_path ON links (path);
CREATE INDEX IF NOT EXISTS links_chunk ON links (chunk);
CREATE INDEX IF NOT EXISTS fields_key ON fields (key, value);
CREATE INDEX IF NOT EXISTS fields_path ON fields (path);
CREATE INDEX IF NOT EXISTS fields_chunk ON fields (chunk);
"""


def is_searched(kind: str, frontmatter: dict[str, Any]) -> bool:
    """Whether a chunk gets an FTS row. Front matter is never a hit: its values are the
    note's names, tags and date, which search reaches as fields (the name column, --tag,
    --since). Front matter that is not readable YAML (``frontmatter`` is empty) has no
    fields: its lines are searched as text.

    The answer depends on the whole front matter, not only on the chunk's text, so it is
    stored with the chunk (``chunks.searched``) when the row is inserted: the contentless
    FTS table must be handed back exactly the rows it was given, whatever the file's
    ``files`` row says by then."""
    return kind != "frontmatter" or not frontmatter


@dataclass(frozen=True)
class FileRecord:
    """The ``files`` row of one note."""

    path: str
    size: int
    mtime_ns: int
    hash: str
    date: str | None
    frontmatter: dict[str, Any]
    tags: tuple[str, ...]
    warnings: tuple[str, ...]
    names: str = ""  # see ``terms.note_names``


@dataclass(frozen=True)
class IndexedState:
    """What the index remembers of a file, for the cheap change check."""

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
        """
        notices: list[str] = []
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = _connect(path, busy_timeout_ms)
            problem = _check(conn)
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
            conn, problem = _connect(path, busy_timeout_ms), "empty"
        index = cls(path, conn, notices)
        if problem is not None:
            try:
                with index.batch():
                    again = _check(conn)
                    if again is not None:
                        if again != "empty":
                            notices.append(f"index {path} was {again}; rebuilt from the files")
                        index.reset()
            except sqlite3.DatabaseError as exc:
                conn.close()
                raise index_error(exc, path) from exc
        return index

    def probe(self) -> None:
        """A check cheap enough for a search that found nothing (about 2 ms for 300,000
        chunks): the chunk count must equal what ``files`` expects, and the chunks table's
        own b-tree must be readable.

        Raises:
            CorruptIndexError: the counts disagree.
        """
        expected, counted, highest = self.conn.execute(
            "SELECT (SELECT COALESCE(SUM(chunks), 0) FROM files), (SELECT COUNT(*) FROM chunks),"
            " (SELECT MAX(id) FROM chunks)"
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

    @property
    def admin(self) -> Any:
        """The connection as a ``sqlite_utils.Database``, for introspection and maintenance
        (imported on first use: it costs 30 ms, which a CLI search does not pay)."""
        import sqlite_utils

        return sqlite_utils.Database(self.conn)

    def reset(self) -> None:
        """Drop every table and view and create the schema anew (inside a ``batch``)."""
        db = self.admin
        conn = self.conn
        for view in db.view_names():
            db[view].drop(ignore=True)
        triggers = conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall()
        for (name,) in triggers:
            conn.execute(f'DROP TRIGGER IF EXISTS "{name}"')
        # Virtual tables first: dropping one drops its shadow tables with it.
        virtual = [t for t in db.table_names() if db[t].virtual_table_using]
        for name in virtual + db.table_names():
            db[name].drop(ignore=True)
        for statement in (_SCHEMA + _INDEXES).split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [("schema_version", SCHEMA_VERSION), ("app", "vaultmem")],
        )

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
            _raise_if_locked(exc)
            raise
        #: Seconds this transaction waited for another writer.
        self.waited = time.monotonic() - started
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
            raise
        try:
            self.conn.commit()
        except sqlite3.OperationalError as exc:
            _raise_if_locked(exc)
            raise

    @contextlib.contextmanager
    def bulk_load(self) -> Iterator[None]:
        """Within a ``batch`` on an empty index: drop the secondary indexes, load, then
        create them again, which is several times cheaper than updating them row by row."""
        for name in re.findall(r"EXISTS (\w+)", _INDEXES):
            self.conn.execute(f"DROP INDEX IF EXISTS {name}")
        self._bulk = True
        try:
            yield
        finally:
            self._bulk = False
        for statement in _INDEXES.strip().splitlines():
            self.conn.execute(statement)

    def states(self) -> dict[str, IndexedState]:
        """The indexed state of every file, by path."""
        rows = self.conn.execute("SELECT path, size, mtime_ns, hash, indexed_ns FROM files")
        return {r[0]: IndexedState(r[1], r[2], r[3], r[4]) for r in rows}

    def states_for(
        self, paths: Iterable[str], folders: Iterable[str] = ()
    ) -> dict[str, IndexedState]:
        """The indexed state of the given paths and of every file under the given folders."""
        sql = "SELECT path, size, mtime_ns, hash, indexed_ns FROM files WHERE "
        rows: list[tuple[Any, ...]] = []
        wanted = list(dict.fromkeys(paths))
        for start in range(0, len(wanted), 500):  # SQLite limits the number of parameters
            part = wanted[start : start + 500]
            rows += self.conn.execute(
                sql + f"path IN ({','.join('?' * len(part))})", part
            ).fetchall()
        for folder in folders:
            # Every path below "folder/" sorts between "folder/" and "folder0" ("0" follows "/").
            rows += self.conn.execute(
                sql + "path >= ? AND path < ?", (folder + "/", folder + "0")
            ).fetchall()
        return {r[0]: IndexedState(r[1], r[2], r[3], r[4]) for r in rows}

    def rename_file(self, old: str, new: str) -> None:
        """Move a file's rows to a new path (a rename whose content did not change keeps its
        chunk rows and ids)."""
        self.delete_file(new)
        for table in ("files", "chunks", "tags", "links", "fields"):
            self.conn.execute(f"UPDATE {table} SET path = ? WHERE path = ?", (new, old))

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None:
        """Record a new stat for a file whose content hash did not change."""
        self.conn.execute(
            "UPDATE files SET size = ?, mtime_ns = ?, indexed_ns = ? WHERE path = ?",
            (size, mtime_ns, time.time_ns(), path),
        )

    def delete_file(self, path: str) -> None:
        """Drop a file and everything derived from it."""
        ids = [r[0] for r in self.conn.execute("SELECT id FROM chunks WHERE path = ?", (path,))]
        self._delete_chunks(ids)
        self.conn.execute("DELETE FROM tags WHERE path = ?", (path,))
        self.conn.execute("DELETE FROM files WHERE path = ?", (path,))

    def replace_file(self, record: FileRecord, chunks: list[Chunk]) -> int:
        """Make the index hold exactly ``chunks`` for ``record.path``.

        Chunks whose id is already indexed for this path keep their rows (only their line
        range is updated); new ones are inserted and vanished ones deleted.

        Returns:
            How many chunk rows were inserted.
        """
        conn = self.conn
        path = record.path
        stored = None if self._bulk else self._names_of(path)
        # In a bulk build the path cannot be indexed yet (and there is no path index).
        old = (
            {}
            if self._bulk
            else {
                r[0]: (r[1], r[2], r[3], bool(r[4]))
                for r in conn.execute(
                    "SELECT chunk_id, id, line_start, line_end, searched FROM chunks"
                    " WHERE path = ?",
                    (path,),
                )
            }
        )
        moved: list[tuple[int, int, int]] = []
        fresh: list[Chunk] = []
        for chunk in chunks:
            kept = old.get(chunk.chunk_id)
            # An unchanged chunk may still gain or lose its FTS row (the front matter turned
            # readable or not): then its old row is deleted and it is inserted again.
            if kept is None or kept[3] != is_searched(chunk.kind, record.frontmatter):
                fresh.append(chunk)
                continue
            del old[chunk.chunk_id]
            if (kept[1], kept[2]) != (chunk.line_start, chunk.line_end):
                moved.append((chunk.line_start, chunk.line_end, kept[0]))
        self._delete_chunks([v[0] for v in old.values()])
        if stored is not None and stored != record.names:
            self._rename_chunks(path, stored, record.names)
        if moved:
            conn.executemany("UPDATE chunks SET line_start = ?, line_end = ? WHERE id = ?", moved)
        if fresh:
            self._insert_chunks(path, fresh, record)
        if not self._bulk:
            conn.execute("DELETE FROM tags WHERE path = ? AND chunk IS NULL", (path,))
        conn.executemany(
            "INSERT INTO tags (path, chunk, tag, tag_key) VALUES (?, NULL, ?, ?)",
            [(path, tag, tag.casefold()) for tag in record.tags],
        )
        conn.execute(
            "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                path,
                record.size,
                record.mtime_ns,
                record.hash,
                time.time_ns(),
                record.date,
                json.dumps(record.frontmatter, ensure_ascii=False, default=str),
                json.dumps(list(record.warnings), ensure_ascii=False) if record.warnings else None,
                len(chunks),
                record.names,
            ),
        )
        return len(fresh)

    def _names_of(self, path: str) -> str | None:
        row = self.conn.execute("SELECT names FROM files WHERE path = ?", (path,)).fetchone()
        return None if row is None else str(row[0] or "")

    def _rename_chunks(self, path: str, old: str, new: str) -> None:
        """Give the FTS rows of a file's chunks its new names (a rename, an alias edited):
        FTS5 is handed each row's old values to delete it, then the new ones."""
        rows = self.conn.execute(
            "SELECT id, kind, text, heading FROM chunks WHERE path = ? AND searched",
            (path,),
        ).fetchall()
        columns = [
            (rowid, kind, *fts_columns(text, heading)) for rowid, kind, text, heading in rows
        ]
        old_name, new_name = name_column(old), name_column(new)
        self.conn.executemany(
            "INSERT INTO chunks_fts (chunks_fts, rowid, body, heading, cjk, name)"
            " VALUES ('delete', ?, ?, ?, ?, ?)",
            [(rowid, *cols, chunk_names(kind, old_name)) for rowid, kind, *cols in columns],
        )
        self.conn.executemany(
            "INSERT INTO chunks_fts (rowid, body, heading, cjk, name) VALUES (?, ?, ?, ?, ?)",
            [(rowid, *cols, chunk_names(kind, new_name)) for rowid, kind, *cols in columns],
        )

    def _insert_chunks(self, path: str, chunks: list[Chunk], record: FileRecord) -> None:
        conn = self.conn
        name = name_column(record.names)
        row = conn.execute("SELECT COALESCE(MAX(id), 0) FROM chunks").fetchone()
        next_id = int(row[0]) + 1
        chunk_rows: list[tuple[object, ...]] = []
        fts_rows: list[tuple[object, ...]] = []
        tag_rows: list[tuple[object, ...]] = []
        link_rows: list[tuple[object, ...]] = []
        field_rows: list[tuple[object, ...]] = []
        for offset, chunk in enumerate(chunks):
            rowid = next_id + offset
            date = _field_date(chunk.fields)
            searched = is_searched(chunk.kind, record.frontmatter)
            chunk_rows.append(
                (
                    rowid,
                    path,
                    chunk.chunk_id,
                    chunk.kind,
                    chunk.line_start,
                    chunk.line_end,
                    chunk.heading,
                    chunk.text,
                    chunk.block_id,
                    date,
                    int(searched),
                )
            )
            if searched:
                names = chunk_names(chunk.kind, name)
                fts_rows.append((rowid, chunk.fts_body, chunk.fts_heading, chunk.fts_cjk, names))
            tag_rows.extend((path, rowid, tag, tag.casefold()) for tag in chunk.tags)
            link_rows.extend((path, rowid, target, int(embed)) for target, embed in chunk.links)
            field_rows.extend((path, rowid, key, value) for key, value in chunk.fields)
        conn.executemany("INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", chunk_rows)
        conn.executemany(
            "INSERT INTO chunks_fts (rowid, body, heading, cjk, name) VALUES (?, ?, ?, ?, ?)",
            fts_rows,
        )
        if tag_rows:
            conn.executemany("INSERT INTO tags VALUES (?, ?, ?, ?)", tag_rows)
        if link_rows:
            conn.executemany("INSERT INTO links VALUES (?, ?, ?, ?)", link_rows)
        if field_rows:
            conn.executemany("INSERT INTO fields VALUES (?, ?, ?, ?)", field_rows)

    def _delete_chunks(self, ids: list[int]) -> None:
        if not ids:
            return
        params = [(i,) for i in ids]
        marks = ",".join("?" * len(ids))
        old = self.conn.execute(
            "SELECT c.id, c.kind, c.text, c.heading, f.names FROM chunks c"
            f" LEFT JOIN files f ON f.path = c.path WHERE c.searched AND c.id IN ({marks})",
            ids,
        )
        self.conn.executemany(
            "INSERT INTO chunks_fts (chunks_fts, rowid, body, heading, cjk, name)"
            " VALUES ('delete', ?, ?, ?, ?, ?)",
            [
                (rowid, *fts_columns(text, heading), chunk_names(kind, name_column(names or "")))
                for rowid, kind, text, heading, names in old.fetchall()
            ],
        )
        self.conn.executemany("DELETE FROM tags WHERE chunk = ?", params)
        self.conn.executemany("DELETE FROM links WHERE chunk = ?", params)
        self.conn.executemany("DELETE FROM fields WHERE chunk = ?", params)
        self.conn.executemany("DELETE FROM chunks WHERE id = ?", params)

    def counts(self) -> dict[str, int]:
        """Row counts of files and chunks."""
        db = self.admin
        return {"files": db["files"].count, "chunks": db["chunks"].count}

    def with_block_id(self, block_id: str) -> list[tuple[str, int, int, str]]:
        """``(path, line_start, line_end, text)`` of the chunks with this block id."""
        rows = self.conn.execute(
            "SELECT path, line_start, line_end, text FROM chunks WHERE block_id = ?"
            " ORDER BY path, line_start",
            (block_id,),
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
        return sum(p.stat().st_size for p in _database_files(self.path) if p.exists())


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def chunk_names(kind: str, names: str) -> str:
    """The ``name`` column of one chunk: its note's names, except on a heading line. A
    heading is a few words long, so bm25 would rank every heading of a note above the
    note's content whenever its name is asked for; the content carries the name instead."""
    return "" if kind == "heading" else names


def citing(conn: sqlite3.Connection, links: list[str]) -> list[tuple[str | None, str]]:
    """``(block_id, text)`` of the chunks whose ``[source:: ]`` or ``[confirmed_by:: ]``
    is one of ``links`` (the spellings of one line's link: the facts distilled from it)."""
    marks = ", ".join("?" * len(links))
    rows = conn.execute(
        "SELECT DISTINCT c.block_id, c.text FROM fields s JOIN chunks c ON c.id = s.chunk"
        f" WHERE s.key IN ('source', 'confirmed_by') AND s.value IN ({marks})",
        links,
    )
    return [(row[0], row[1]) for row in rows]


def _field_date(fields: tuple[tuple[str, str], ...]) -> str | None:
    """The date of a ``[created:: ]`` or ``[date:: ]`` field, if it holds one."""
    for key, value in fields:
        if key.lower() in ("created", "date"):
            match = _DATE.search(value)
            if match:
                return match.group(0)
    return None


def _connect(path: Path, busy_timeout_ms: int) -> sqlite3.Connection:
    conn = sqlite3.connect(
        path, timeout=busy_timeout_ms / 1000, isolation_level=None, check_same_thread=False
    )
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA cache_size = -65536")  # 64 MiB: FTS5 merges touch many pages
    return conn


def _check(conn: sqlite3.Connection) -> str | None:
    """Why a database cannot be used as our index (``"empty"``: it has no tables yet), or
    ``None`` if it can."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        return "empty"
    if "meta" not in tables:
        return "not a vaultmem index"
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    if meta.get("app") != "vaultmem":
        return "not a vaultmem index"
    if meta.get("schema_version") != SCHEMA_VERSION:
        return f"of schema version {meta.get('schema_version')}, not {SCHEMA_VERSION}"
    missing = {"files", "chunks", "chunks_fts", "tags", "links", "fields"} - tables
    if missing:
        return f"missing tables {sorted(missing)}"
    conn.execute("SELECT COUNT(*) FROM files").fetchone()
    return None


class CorruptIndexError(sqlite3.DatabaseError):
    """Damage found by ``Index.check``: treated like SQLite's own corruption errors."""

    sqlite_errorcode = sqlite3.SQLITE_CORRUPT


def is_corrupt(exc: sqlite3.Error) -> bool:
    """Whether SQLite says the file is damaged or not a database (so rebuilding is right).

    Extended result codes carry the primary code in their low byte: ``SQLITE_CORRUPT_VTAB``
    (267, a damaged FTS5 table), ``SQLITE_CORRUPT_INDEX`` and ``SQLITE_CORRUPT_SEQUENCE``
    are all ``SQLITE_CORRUPT``.
    """
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int) and code & 0xFF in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return True
    # A damaged FTS5 shadow table can surface as a generic error from its constructor,
    # or as FTS5's own complaint about its format.
    message = str(exc)
    return any(sign in message for sign in _CORRUPT_SIGNS)


_CORRUPT_SIGNS = ("vtable constructor", "invalid fts5 file format")


def index_error(exc: Exception, path: Path) -> VaultmemError:
    """A clear error for a database problem that is not corruption."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in str(exc):
        return IndexLockedError(
            "the index is locked by another process (a running `vaultmem watch` or index?); "
            "try again when it has finished, or raise index.busy_timeout_ms"
        )
    return VaultmemError(
        f"cannot use the index {path} ({exc}); check that {path.parent} is writable by you, "
        "or delete the index: it is rebuilt from the notes"
    )


def _raise_if_locked(exc: sqlite3.OperationalError) -> None:
    error = index_error(exc, Path())
    if isinstance(error, IndexLockedError):
        raise error from exc


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _database_files(path: Path) -> list[Path]:
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


def remove_database(path: Path) -> None:
    """Delete the index file and its WAL and shared-memory files."""
    for p in _database_files(path):
        try:
            p.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise VaultmemError(f"cannot replace the damaged index {p}: {exc.strerror}") from exc
