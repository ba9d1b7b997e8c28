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

from vaultmem.index.schema import KINDS
from vaultmem.index.sql import in_parts
from vaultmem.index.terms import chunk_names, fts_columns

if TYPE_CHECKING:
    from vaultmem.index.chunk import Chunk
    from vaultmem.index.text import TextStore


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


KIND_NUMBERS = {kind: number for number, kind in enumerate(KINDS)}
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def packed_chunk_id(chunk_id: str) -> int | str:
    """How ``chunk_rows`` stores a chunk id: a plain 16-hex-digit id as the signed 64-bit
    integer of its digits (the ``chunks`` view prints it back), any other id as it is."""
    if len(chunk_id) == 16:
        try:
            value = int(chunk_id, 16)
        except ValueError:
            return chunk_id
        if format(value, "016x") == chunk_id:  # lower-case digits only: it must print back
            return value - (1 << 64) if value >= 1 << 63 else value
    return chunk_id


_FTS_INSERT = "INSERT INTO chunks_fts (rowid, body, heading, name) VALUES (?, ?, ?, ?)"
_FTS_DELETE = (
    "INSERT INTO chunks_fts (chunks_fts, rowid, body, heading, name) VALUES ('delete', ?, ?, ?, ?)"
)


def _fts_row(rowid: int, kind: str, text: str, heading: str, names: str) -> tuple[object, ...]:
    """A stored chunk's FTS row, as it was inserted while its note had these ``names``."""
    return (rowid, *fts_columns(text, heading, chunk_names(kind, names)))


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
    chunk rows and ids): its rows refer to the ``files`` row, which takes the new path."""
    delete_file(conn, new)
    conn.execute("UPDATE files SET path = ? WHERE path = ?", (new, old))


def touch_file(conn: sqlite3.Connection, path: str, size: int, mtime_ns: int) -> None:
    """Record a new stat for a file whose content hash did not change."""
    conn.execute(
        "UPDATE files SET size = ?, mtime_ns = ?, indexed_ns = ? WHERE path = ?",
        (size, mtime_ns, time.time_ns(), path),
    )


def delete_file(conn: sqlite3.Connection, path: str) -> None:
    """Drop a file and everything derived from it."""
    row = conn.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()
    if row is None:
        return
    file = int(row[0])
    ids = [r[0] for r in conn.execute("SELECT id FROM chunk_rows WHERE file = ?", (file,))]
    _delete_chunks(conn, ids)
    conn.execute("DELETE FROM tag_rows WHERE file = ?", (file,))
    conn.execute("DELETE FROM headings WHERE file = ?", (file,))
    conn.execute("DELETE FROM files WHERE id = ?", (file,))


def replace_file(
    conn: sqlite3.Connection,
    record: FileRecord,
    chunks: list[Chunk],
    *,
    texts: TextStore,
    bulk: bool = False,
) -> int:
    """Make the index hold exactly ``chunks`` for ``record.path``.

    Chunks whose id is already indexed for this path keep their rows (only their line
    range is updated); new ones are inserted and vanished ones deleted.

    Returns:
        How many chunk rows were inserted.
    """
    # In a bulk build the path cannot be indexed yet (and there is no index on chunk files).
    found = None if bulk else _file_of(conn, record.path)
    if found is None:
        # A new file's row goes in first: its chunk rows refer to its id.
        file = _write_file_row(conn, record, len(chunks), None)
        stored: str | None = None
        old: dict[str, tuple[int, int, int, bool]] = {}
        headings: dict[str, int] = {}
    else:
        file, stored = found
        old = {
            r[0]: (r[1], r[2], r[3], bool(r[4]))
            for r in conn.execute(
                "SELECT chunk_id, id, line_start, line_end, searched FROM chunks WHERE file = ?",
                (file,),
            )
        }
        headings = dict(conn.execute("SELECT text, n FROM headings WHERE file = ?", (file,)))
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
            moved.append((chunk.line_start, chunk.line_end - chunk.line_start, kept[0]))
    _delete_chunks(conn, [v[0] for v in old.values()])
    if stored is not None and stored != record.names:
        _rename_chunks(conn, file, stored, record.names)
    if moved:
        conn.executemany("UPDATE chunk_rows SET line_start = ?, lines = ? WHERE id = ?", moved)
    _number_headings(conn, file, headings, {chunk.heading for chunk in chunks if chunk.heading})
    if fresh:
        # Texts the worker packed are stored as it packed them; the writer packs the rest.
        packed = iter(texts.pack([c.text for c in fresh if c.stored is None]))
        forms = [next(packed) if c.stored is None else c.stored for c in fresh]
        _insert_chunks(conn, file, fresh, record, headings, forms)
    if found is not None:
        conn.execute("DELETE FROM tag_rows WHERE file = ? AND chunk IS NULL", (file,))
        _write_file_row(conn, record, len(chunks), file)
    conn.executemany(
        "INSERT INTO tag_rows (file, chunk, tag, tag_key) VALUES (?, NULL, ?, ?)",
        [(file, tag, tag.casefold()) for tag in record.tags],
    )
    return len(fresh)


def _file_of(conn: sqlite3.Connection, path: str) -> tuple[int, str] | None:
    """The id and the stored names of an indexed file."""
    row = conn.execute("SELECT id, names FROM files WHERE path = ?", (path,)).fetchone()
    return None if row is None else (int(row[0]), str(row[1] or ""))


def _write_file_row(
    conn: sqlite3.Connection, record: FileRecord, chunks: int, file: int | None
) -> int:
    """Insert a file's row (``file`` None) or rewrite it in place, keeping its id."""
    values = (
        record.path,
        record.size,
        record.mtime_ns,
        record.hash,
        time.time_ns(),
        record.date,
        json.dumps(list(record.warnings), ensure_ascii=False) if record.warnings else None,
        chunks,
        record.names,
    )
    columns = "path, size, mtime_ns, hash, indexed_ns, date, warnings, chunks, names"
    if file is None:
        cursor = conn.execute(
            f"INSERT INTO files ({columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", values
        )
        return int(cursor.lastrowid or 0)
    assignments = ", ".join(f"{name} = ?" for name in columns.split(", "))
    conn.execute(f"UPDATE files SET {assignments} WHERE id = ?", (*values, file))
    return file


def _number_headings(
    conn: sqlite3.Connection, file: int, numbers: dict[str, int], wanted: set[str]
) -> None:
    """Make ``numbers`` (a heading path -> its number in ``headings``, for this file) hold
    exactly the ``wanted`` headings, in the table too. A heading kept keeps its number, so
    the chunk rows that were kept need no update; call it after the vanished chunks are
    deleted (deleting their FTS rows reads their headings)."""
    gone = [(file, numbers.pop(text)) for text in list(numbers) if text not in wanted]
    if gone:
        conn.executemany("DELETE FROM headings WHERE file = ? AND n = ?", gone)
    new = sorted(wanted - numbers.keys())
    first = max(numbers.values(), default=-1) + 1
    for n, text in enumerate(new, first):
        numbers[text] = n
    if new:
        conn.executemany(
            "INSERT INTO headings (file, n, text) VALUES (?, ?, ?)",
            [(file, numbers[text], text) for text in new],
        )


def _rename_chunks(conn: sqlite3.Connection, file: int, old: str, new: str) -> None:
    """Give the FTS rows of a file's chunks its new names (a rename, an alias edited):
    FTS5 is handed each row's old values to delete it, then the new ones."""
    rows = conn.execute(
        "SELECT id, kind, text, heading FROM chunks WHERE file = ? AND searched",
        (file,),
    ).fetchall()
    for statement, names in ((_FTS_DELETE, old), (_FTS_INSERT, new)):
        conn.executemany(
            statement, [_fts_row(i, kind, text, heading, names) for i, kind, text, heading in rows]
        )


def _insert_chunks(
    conn: sqlite3.Connection,
    file: int,
    chunks: list[Chunk],
    record: FileRecord,
    headings: dict[str, int],
    stored: list[str | bytes],
) -> None:
    row = conn.execute("SELECT COALESCE(MAX(id), 0) FROM chunk_rows").fetchone()
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
                file,
                packed_chunk_id(chunk.chunk_id),
                KIND_NUMBERS[chunk.kind],
                chunk.line_start,
                chunk.line_end - chunk.line_start,
                headings[chunk.heading] if chunk.heading else None,
                stored[offset],
                chunk.block_id,
                date,
                int(searched),
            )
        )
        if searched:
            fts_rows.append((rowid, chunk.fts_body, chunk.fts_heading, chunk.fts_name))
        tag_rows.extend((file, rowid, tag, tag.casefold()) for tag in chunk.tags)
        link_rows.extend((rowid, target, int(embed)) for target, embed in chunk.links)
        field_rows.extend((rowid, key, value) for key, value in chunk.fields)
    conn.executemany("INSERT INTO chunk_rows VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", chunk_rows)
    conn.executemany(_FTS_INSERT, fts_rows)
    if tag_rows:
        conn.executemany("INSERT INTO tag_rows VALUES (?, ?, ?, ?)", tag_rows)
    if link_rows:
        conn.executemany("INSERT INTO links VALUES (?, ?, ?)", link_rows)
    if field_rows:
        conn.executemany("INSERT INTO fields VALUES (?, ?, ?)", field_rows)


def _delete_chunks(conn: sqlite3.Connection, ids: list[int]) -> None:
    if not ids:
        return
    params = [(i,) for i in ids]
    old = [
        row
        for part, marks in in_parts(conn, ids)
        for row in conn.execute(
            "SELECT c.id, c.kind, c.text, c.heading, f.names FROM chunks c"
            f" JOIN files f ON f.id = c.file WHERE c.searched AND c.id IN ({marks})",
            part,
        )
    ]
    conn.executemany(
        _FTS_DELETE,
        [
            _fts_row(rowid, kind, text, heading, names or "")
            for rowid, kind, text, heading, names in old
        ],
    )
    conn.executemany("DELETE FROM tag_rows WHERE chunk = ?", params)
    conn.executemany("DELETE FROM links WHERE chunk = ?", params)
    conn.executemany("DELETE FROM fields WHERE chunk = ?", params)
    conn.executemany("DELETE FROM chunk_rows WHERE id = ?", params)
