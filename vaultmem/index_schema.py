"""The shadow index's schema: the tables and secondary indexes of ``index.db``, its version,
the connection settings, and the check that a database is ours and current.

What each table holds, and why it can always be rebuilt, is told at the top of
``index.py``. An index of another version, a database that is not ours, or one missing a
table is recreated from these statements (``recreate``), never migrated.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

SCHEMA_VERSION = "8"

SCHEMA = """
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
INDEXES = """
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


def connect(path: Path, busy_timeout_ms: int) -> sqlite3.Connection:
    """A connection in autocommit mode (``Index.batch`` opens the transactions), WAL."""
    conn = sqlite3.connect(
        path, timeout=busy_timeout_ms / 1000, isolation_level=None, check_same_thread=False
    )
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA cache_size = -65536")  # 64 MiB: FTS5 merges touch many pages
    return conn


def unusable(conn: sqlite3.Connection) -> str | None:
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


def recreate(conn: sqlite3.Connection) -> None:
    """Drop every table, view and trigger and create the schema anew (inside a write
    transaction). ``sqlite_utils`` is imported here only: it costs 30 ms."""
    import sqlite_utils

    db: Any = sqlite_utils.Database(conn)  # its stubs type a table as Table | View
    for view in db.view_names():
        db[view].drop(ignore=True)
    triggers = conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall()
    for (name,) in triggers:
        conn.execute(f'DROP TRIGGER IF EXISTS "{name}"')
    # Virtual tables first: dropping one drops its shadow tables with it.
    virtual = [t for t in db.table_names() if db[t].virtual_table_using]
    for name in virtual + db.table_names():
        db[name].drop(ignore=True)
    for statement in (SCHEMA + INDEXES).split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.executemany(
        "INSERT INTO meta VALUES (?, ?)",
        [("schema_version", SCHEMA_VERSION), ("app", "vaultmem")],
    )


def drop_indexes(conn: sqlite3.Connection) -> None:
    """Drop the secondary indexes (a bulk build into an empty index, see ``create_indexes``)."""
    for name in re.findall(r"EXISTS (\w+)", INDEXES):
        conn.execute(f"DROP INDEX IF EXISTS {name}")


def create_indexes(conn: sqlite3.Connection) -> None:
    """Create the secondary indexes that do not exist."""
    for statement in INDEXES.strip().splitlines():
        conn.execute(statement)
