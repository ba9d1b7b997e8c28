"""Long ``IN (?, ?, ...)`` lists cut to fit SQLite's limit on host parameters, and the
WHERE clauses that select given paths and folders with them.

SQLite refuses a statement with more parameters than its limit ("too many SQL variables":
32,766 since SQLite 3.32, 999 before), and a search asked for every hit, or a note of
40,000 lines replaced after an edit, passes more ids than that. A caller runs its
statement once per part.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

# Parameters left for the rest of a statement (its other values).
_SPARE = 16


def in_parts(conn: sqlite3.Connection, values: Sequence[T]) -> Iterator[tuple[list[T], str]]:
    """``values`` in parts that fit in one statement on ``conn``, each with its marks
    (``"?,?,?"``)."""
    size = max(1, conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) - _SPARE)
    for start in range(0, len(values), size):
        part = list(values[start : start + size])
        yield part, ",".join("?" * len(part))


def path_filters(
    conn: sqlite3.Connection, paths: Iterable[str], folders: Iterable[str]
) -> Iterator[tuple[str, list[str]]]:
    """WHERE clauses over a table with a ``path`` column (with their parameters) that
    together select the given paths and every path under the given folders."""
    for part, marks in in_parts(conn, list(dict.fromkeys(paths))):
        yield f"path IN ({marks})", part
    for folder in folders:
        # Every path below "folder/" sorts between "folder/" and "folder0" ("0" follows "/").
        yield "path >= ? AND path < ?", [folder + "/", folder + "0"]
