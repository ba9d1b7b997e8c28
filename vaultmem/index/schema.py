"""The shadow index's schema: the tables and secondary indexes of ``index.db``, its version,
the connection settings, and the check that a database is ours and current.

What each table holds, and why it can always be rebuilt, is told at the top of
``database.py``. An index of another version, a database that is not ours, or one missing a
table is recreated from these statements (``recreate``), never migrated.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
from pathlib import Path

from vaultmem.index.text import last_dict_id

SCHEMA_VERSION = "10"

# Block kinds (``notes/parse.py``), stored as their position in this tuple: a word per chunk row
# is a megabyte per 10,000 notes. The ``kinds`` table holds the names for the views.
KINDS = ("frontmatter", "heading", "paragraph", "item", "code", "table", "quote", "html")

# A chunk id of 16 hex digits (``chunk.py``) is stored as the 64-bit integer it spells
# (8 bytes, not 16); an id with a repeat suffix (``-2``) as its text.
# A path, a kind and a heading are stored once (in ``files``, ``kinds``, ``headings``) and
# referred to by number from ``chunk_rows`` and ``tag_rows``: repeated in every row and
# in the secondary indexes on them, they made a third of the index. The views ``chunks``
# and ``tags`` give the rows their readable shape back, so readers query those. A chunk's
# text is stored compressed (``text.py``): the view spells it out. A chunk's last
# line is stored as how many lines follow its first: 0 for one line, which takes no byte.
SCHEMA = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE files (
    id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, size INTEGER, mtime_ns INTEGER,
    hash TEXT, indexed_ns INTEGER, date TEXT, warnings TEXT,
    chunks INTEGER NOT NULL DEFAULT 0, names TEXT
);
CREATE TABLE kinds (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE headings (
    file INTEGER NOT NULL, n INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (file, n)
) WITHOUT ROWID;
CREATE TABLE chunk_rows (
    id INTEGER PRIMARY KEY, file INTEGER NOT NULL, chunk_id NOT NULL, kind INTEGER NOT NULL,
    line_start INTEGER NOT NULL, lines INTEGER NOT NULL, heading INTEGER,
    text NOT NULL, block_id TEXT, date TEXT, searched INTEGER NOT NULL
);
CREATE TABLE tag_rows (file INTEGER NOT NULL, chunk INTEGER, tag TEXT NOT NULL,
                       tag_key TEXT NOT NULL);
CREATE TABLE links (chunk INTEGER NOT NULL, target TEXT NOT NULL, embed INTEGER NOT NULL);
CREATE TABLE fields (chunk INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL);
CREATE TABLE text_dicts (id INTEGER PRIMARY KEY, dict BLOB NOT NULL);
CREATE VIRTUAL TABLE chunks_fts USING fts5 (
    body, heading, name, content = '', tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIEW chunks AS SELECT
    r.id AS id, f.path AS path,
    CASE typeof(r.chunk_id) WHEN 'integer' THEN printf('%016x', r.chunk_id) ELSE r.chunk_id END
        AS chunk_id,
    (SELECT name FROM kinds WHERE id = r.kind) AS kind,
    r.line_start AS line_start, r.line_start + r.lines AS line_end,
    COALESCE((SELECT text FROM headings h WHERE h.file = r.file AND h.n = r.heading), '')
        AS heading,
    chunk_text(r.text) AS text, r.block_id AS block_id, r.date AS date, r.searched AS searched,
    r.file AS file
    FROM chunk_rows r JOIN files f ON f.id = r.file;
CREATE VIEW tags AS SELECT f.path AS path, t.chunk AS chunk, t.tag AS tag, t.tag_key AS tag_key
    FROM tag_rows t JOIN files f ON f.id = t.file;
INSERT INTO kinds VALUES {", ".join(f"({i}, '{k}')" for i, k in enumerate(KINDS))};
"""
# What ``unusable`` expects to find (tables and views).
TABLES = (
    *("files", "kinds", "headings", "chunk_rows", "tag_rows", "links", "fields", "text_dicts"),
    "chunks_fts",
    *("chunks", "tags"),
)
# Secondary indexes. A bulk build into an empty index creates them after the rows are in,
# which is several times cheaper than maintaining them row by row.
INDEXES = """
CREATE INDEX IF NOT EXISTS chunk_rows_file ON chunk_rows (file);
CREATE INDEX IF NOT EXISTS tag_rows_key ON tag_rows (tag_key);
CREATE INDEX IF NOT EXISTS tag_rows_file ON tag_rows (file);
CREATE INDEX IF NOT EXISTS tag_rows_chunk ON tag_rows (chunk);
CREATE INDEX IF NOT EXISTS links_target ON links (target);
CREATE INDEX IF NOT EXISTS links_chunk ON links (chunk);
CREATE INDEX IF NOT EXISTS fields_key ON fields (key, value);
CREATE INDEX IF NOT EXISTS fields_chunk ON fields (chunk);
"""


def connect(path: Path, busy_timeout_ms: int) -> sqlite3.Connection:
    """A connection in autocommit mode (``Index.batch`` opens the transactions), WAL."""
    conn = sqlite3.connect(
        path, timeout=busy_timeout_ms / 1000, isolation_level=None, check_same_thread=False
    )
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    if conn.execute("PRAGMA page_count").fetchone()[0] == 0:
        # A new file: the mode takes effect with its first table (an older index is
        # converted by ``Index.open``). Only here: on a file with tables this pragma
        # writes, and would wait for a running index run. Pages freed by deletes go back
        # to the file system when ``vacuum.release_free_pages`` asks.
        conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
    conn.execute("PRAGMA journal_mode = WAL")
    # A long-lived connection (the daemon's) would keep its WAL file at the size of the
    # largest transaction it ever wrote (a whole reindex); truncate it after checkpoints.
    conn.execute(f"PRAGMA journal_size_limit = {64 << 20}")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA cache_size = -65536")  # 64 MiB: FTS5 merges touch many pages
    return conn


def unusable(conn: sqlite3.Connection) -> str | None:
    """Why a database cannot be used as our index (``"empty"``: it has no tables yet), or
    ``None`` if it can."""
    tables = {
        r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
    }
    if not tables:
        return "empty"
    if "meta" not in tables:
        return "not a vaultmem index"
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    if meta.get("app") != "vaultmem":
        return "not a vaultmem index"
    if meta.get("schema_version") != SCHEMA_VERSION:
        return f"of schema version {meta.get('schema_version')}, not {SCHEMA_VERSION}"
    missing = set(TABLES) - tables
    if missing:
        return f"missing tables {sorted(missing)}"
    conn.execute("SELECT COUNT(*) FROM files").fetchone()
    return None


def recreate(conn: sqlite3.Connection) -> None:
    """Drop every view, trigger and table and create the schema anew (inside a write
    transaction)."""
    last_dict = last_dict_id(conn)
    found = conn.execute(
        "SELECT type, name, sql FROM sqlite_master WHERE type IN ('view', 'trigger', 'table')"
    ).fetchall()
    # SQLite's own ``sqlite_sequence`` cannot be dropped, nor a virtual table whose module
    # this SQLite lacks: they stay (the schema names neither).
    for kind, name, _ in sorted(found, key=_drop_order):
        with contextlib.suppress(sqlite3.OperationalError):
            conn.execute(f"DROP {kind.upper()} IF EXISTS {_quoted(name)}")
    for statement in (SCHEMA + INDEXES).split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.executemany(
        "INSERT INTO meta VALUES (?, ?)",
        [
            ("schema_version", SCHEMA_VERSION),
            ("app", "vaultmem"),
            ("text_dict_last", str(last_dict)),
        ],
    )


def _drop_order(row: tuple[str, str, str | None]) -> int:
    """Views, triggers, virtual tables, then tables: dropping a virtual table drops its
    shadow tables, which are still listed (hence ``IF EXISTS``)."""
    kind, _, sql = row
    if kind != "table":
        return 0 if kind == "view" else 1
    # SQLite stores a CREATE statement's opening keywords upper-cased, one space apart.
    return 2 if (sql or "").startswith("CREATE VIRTUAL TABLE ") else 3


def _quoted(name: str) -> str:
    """``name`` as an SQL identifier, whatever it holds (a foreign database's names)."""
    return '"' + name.replace('"', '""') + '"'


def drop_indexes(conn: sqlite3.Connection) -> None:
    """Drop the secondary indexes (a bulk build into an empty index, see ``create_indexes``)."""
    for name in re.findall(r"EXISTS (\w+)", INDEXES):
        conn.execute(f"DROP INDEX IF EXISTS {name}")


def create_indexes(conn: sqlite3.Connection) -> None:
    """Create the secondary indexes that do not exist."""
    for statement in INDEXES.strip().splitlines():
        conn.execute(statement)
