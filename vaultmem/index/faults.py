"""What goes wrong with the index file, and what vaultmem does about it: telling corruption
(rebuild from the notes) from a lock held by another process or an unwritable folder (one
clear error), and deleting a damaged database with its WAL and shared-memory files.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from vaultmem.errors import IndexLockedError, VaultmemError


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
    # or as FTS5's own complaint about its format; a damaged stored text, or a missing
    # dictionary, as our ``chunk_text()`` failing (``text.py``: the one SQL function
    # vaultmem registers).
    message = str(exc)
    return any(sign in message for sign in _CORRUPT_SIGNS)


_CORRUPT_SIGNS = (
    "vtable constructor",
    "invalid fts5 file format",
    "user-defined function raised exception",
)


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


def raise_if_locked(exc: sqlite3.OperationalError) -> None:
    error = index_error(exc, Path())
    if isinstance(error, IndexLockedError):
        raise error from exc


def database_files(path: Path) -> list[Path]:
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


def remove_database(path: Path) -> None:
    """Delete the index file and its WAL and shared-memory files."""
    for p in database_files(path):
        try:
            p.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise VaultmemError(f"cannot replace the damaged index {p}: {exc.strerror}") from exc
