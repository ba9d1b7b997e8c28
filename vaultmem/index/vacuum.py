"""Giving the file system back the pages that deletes freed in ``index.db``.

The file is in ``auto_vacuum = INCREMENTAL`` mode (``schema.connect`` sets it on a new file;
``convert_to_incremental_vacuum`` gives it to an empty one made before): after a run that
freed many pages (deleted notes, a rebuild of a larger index), ``release_free_pages``
hands them back, so the file does not keep the largest size it ever had.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from vaultmem.errors import IndexLockedError
from vaultmem.index.faults import index_error

# SQLite's auto_vacuum modes: 2 is INCREMENTAL.
_INCREMENTAL = 2
# Free pages (4 KiB each) worth releasing, and how many one step releases.
FREE_PAGES_MIN = 256
FREE_PAGES_PER_STEP = 4096


def convert_to_incremental_vacuum(conn: sqlite3.Connection) -> None:
    """Give an empty index file made before incremental vacuum (schema version 8 and
    older, now recreated empty) that mode. Only a ``VACUUM`` changes it once a table
    exists; on an empty index it takes milliseconds. Left for next time if another
    process is reading the file."""
    if conn.execute("PRAGMA auto_vacuum").fetchone()[0] == _INCREMENTAL:
        return
    with contextlib.suppress(sqlite3.OperationalError):
        conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
        conn.execute("VACUUM")


def release_free_pages(
    conn: sqlite3.Connection, path: Path, limit: int | None = FREE_PAGES_PER_STEP
) -> int:
    """Give the file system back the pages that deletes freed: otherwise the file keeps
    the largest size it ever had. With a ``limit`` (the daemon's small runs), only once
    they are many (``FREE_PAGES_MIN`` and a twentieth of the file), and at most
    ``limit`` of them, so its next batch waits milliseconds; with ``None`` (after a
    rebuild), all. A short write of its own, after a run's transaction: a search in
    another process reads on meanwhile (WAL). Skipped when another process writes.

    Args:
        conn: the index's connection, outside a transaction.
        path: the index file (named in errors).
        limit: release at most this many pages; ``None``: all of them.

    Returns:
        How many pages were released.
    """
    free, pages = conn.execute(
        "SELECT * FROM pragma_freelist_count(), pragma_page_count()"
    ).fetchone()
    if free == 0 or (limit is not None and free < max(FREE_PAGES_MIN, pages // 20)):
        return 0
    try:
        # Not execute(): the pragma returns a row per page released, undeclared, so
        # Python's execute() steps it once (one page); executescript() runs it out.
        conn.executescript(f"PRAGMA incremental_vacuum({limit or 0})")
    except sqlite3.OperationalError as exc:
        if isinstance(index_error(exc, path), IndexLockedError):
            return 0  # another writer: the next run releases them
        raise
    left = int(conn.execute("PRAGMA freelist_count").fetchone()[0])
    return int(free) - left
