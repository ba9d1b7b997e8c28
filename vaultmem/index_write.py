"""Writing one note's rows into the index: its ``files`` row, its chunks, their contentless
FTS rows, tags, links and fields; and moving, touching or dropping a note's rows.

Every function runs inside the caller's write transaction (``Index.batch``). The FTS table
is contentless, so a row is deleted by handing FTS5 its column values again: they are
recomputed from ``chunks`` and ``files.names`` for exactly the chunks marked ``searched``
(see ``is_searched``).
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .sql_parts import in_parts
from .terms import fts_columns, name_column

if TYPE_CHECKING:
    from .chunk import Chunk


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


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def chunk_names(kind: str, names: str) -> str:
    """The ``name`` column of one chunk: its note's names, except on a heading line. A
    heading is a few words long, so bm25 would rank every heading of a note above the
    note's content whenever its name is asked for; the content carries the name instead."""
    return "" if kind == "heading" else names


def _field_date(fields: tuple[tuple[str, str], ...]) -> str | None:
    """The date of a ``[created:: ]`` or ``[date:: ]`` field, if it holds one."""
    for key, value in fields:
        if key.lower() in ("created", "date"):
            match = _DATE.search(value)
            if match:
                return match.group(0)
    return None


def rename_file(conn: sqlite3.Connection, old: str, new: str) -> None:
    """Move a file's rows to a new path (a rename whose content did not change keeps its
    chunk rows and ids)."""
    delete_file(conn, new)
    for table in ("files", "chunks", "tags", "links", "fields"):
        conn.execute(f"UPDATE {table} SET path = ? WHERE path = ?", (new, old))


def touch_file(conn: sqlite3.Connection, path: str, size: int, mtime_ns: int) -> None:
    """Record a new stat for a file whose content hash did not change."""
    conn.execute(
        "UPDATE files SET size = ?, mtime_ns = ?, indexed_ns = ? WHERE path = ?",
        (size, mtime_ns, time.time_ns(), path),
    )


def delete_file(conn: sqlite3.Connection, path: str) -> None:
    """Drop a file and everything derived from it."""
    ids = [r[0] for r in conn.execute("SELECT id FROM chunks WHERE path = ?", (path,))]
    _delete_chunks(conn, ids)
    conn.execute("DELETE FROM tags WHERE path = ?", (path,))
    conn.execute("DELETE FROM files WHERE path = ?", (path,))


def replace_file(
    conn: sqlite3.Connection, record: FileRecord, chunks: list[Chunk], *, bulk: bool = False
) -> int:
    """Make the index hold exactly ``chunks`` for ``record.path``.

    Chunks whose id is already indexed for this path keep their rows (only their line
    range is updated); new ones are inserted and vanished ones deleted.

    Returns:
        How many chunk rows were inserted.
    """
    path = record.path
    stored = None if bulk else _names_of(conn, path)
    # In a bulk build the path cannot be indexed yet (and there is no path index).
    old = (
        {}
        if bulk
        else {
            r[0]: (r[1], r[2], r[3], bool(r[4]))
            for r in conn.execute(
                "SELECT chunk_id, id, line_start, line_end, searched FROM chunks WHERE path = ?",
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
    _delete_chunks(conn, [v[0] for v in old.values()])
    if stored is not None and stored != record.names:
        _rename_chunks(conn, path, stored, record.names)
    if moved:
        conn.executemany("UPDATE chunks SET line_start = ?, line_end = ? WHERE id = ?", moved)
    if fresh:
        _insert_chunks(conn, path, fresh, record)
    if not bulk:
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


def _names_of(conn: sqlite3.Connection, path: str) -> str | None:
    row = conn.execute("SELECT names FROM files WHERE path = ?", (path,)).fetchone()
    return None if row is None else str(row[0] or "")


def _rename_chunks(conn: sqlite3.Connection, path: str, old: str, new: str) -> None:
    """Give the FTS rows of a file's chunks its new names (a rename, an alias edited):
    FTS5 is handed each row's old values to delete it, then the new ones."""
    rows = conn.execute(
        "SELECT id, kind, text, heading FROM chunks WHERE path = ? AND searched",
        (path,),
    ).fetchall()
    columns = [(rowid, kind, *fts_columns(text, heading)) for rowid, kind, text, heading in rows]
    old_name, new_name = name_column(old), name_column(new)
    conn.executemany(
        "INSERT INTO chunks_fts (chunks_fts, rowid, body, heading, cjk, name)"
        " VALUES ('delete', ?, ?, ?, ?, ?)",
        [(rowid, *cols, chunk_names(kind, old_name)) for rowid, kind, *cols in columns],
    )
    conn.executemany(
        "INSERT INTO chunks_fts (rowid, body, heading, cjk, name) VALUES (?, ?, ?, ?, ?)",
        [(rowid, *cols, chunk_names(kind, new_name)) for rowid, kind, *cols in columns],
    )


def _insert_chunks(
    conn: sqlite3.Connection, path: str, chunks: list[Chunk], record: FileRecord
) -> None:
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


def _delete_chunks(conn: sqlite3.Connection, ids: list[int]) -> None:
    if not ids:
        return
    params = [(i,) for i in ids]
    old = [
        row
        for part, marks in in_parts(conn, ids)
        for row in conn.execute(
            "SELECT c.id, c.kind, c.text, c.heading, f.names FROM chunks c"
            f" LEFT JOIN files f ON f.path = c.path WHERE c.searched AND c.id IN ({marks})",
            part,
        )
    ]
    conn.executemany(
        "INSERT INTO chunks_fts (chunks_fts, rowid, body, heading, cjk, name)"
        " VALUES ('delete', ?, ?, ?, ?, ?)",
        [
            (rowid, *fts_columns(text, heading), chunk_names(kind, name_column(names or "")))
            for rowid, kind, text, heading, names in old
        ],
    )
    conn.executemany("DELETE FROM tags WHERE chunk = ?", params)
    conn.executemany("DELETE FROM links WHERE chunk = ?", params)
    conn.executemany("DELETE FROM fields WHERE chunk = ?", params)
    conn.executemany("DELETE FROM chunks WHERE id = ?", params)
