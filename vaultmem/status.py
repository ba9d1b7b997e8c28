"""What ``vaultmem status`` reports: counts, the index's size, the notes changed since the
last index run (a stat of each, nothing read), parse warnings, the watch daemon's pid and
what it warns of, and for a vault with vectors, how many chunks have one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from vaultmem.config import Config
from vaultmem.embeddings.optional import numpy_or_notice
from vaultmem.index.database import Index
from vaultmem.notes.decode import BINARY_WARNING, PARTLY_INDEXED
from vaultmem.notes.files import scan_notes
from vaultmem.notes.state import STATE_DIR
from vaultmem.notes.watch_lock import daemon_pid, daemon_warnings
from vaultmem.search.retrieval import has_vectors


@dataclass
class Status:
    """What ``vaultmem status`` reports."""

    vault: str
    files: int
    chunks: int
    index_bytes: int
    stale: list[str]
    warnings: list[tuple[str, list[str]]]
    daemon_pid: int | None = None
    embedded: tuple[str, int, int] | None = None  # (model, chunks embedded, of chunks)
    #: What the running daemon warns of (folders inotify cannot watch, say).
    daemon_warnings: list[str] = field(default_factory=list)

    @property
    def not_in_full(self) -> list[tuple[str, str]]:
        """``(path, warning)`` of the notes a search cannot find all of: over
        ``index.max_file_bytes`` (indexed in part) or binary (not at all). ``vaultmem
        status`` says these on stderr too, not only among the other warnings: words a
        search cannot find are words the agent has lost."""
        hiding = (PARTLY_INDEXED, BINARY_WARNING)
        return [(path, w) for path, found in self.warnings for w in found if w.startswith(hiding)]


def vault_status(db: Index, root: Path, config: Config, notices: list[str]) -> Status:
    """The status of the vault at ``root`` and its open index ``db``.

    Raises:
        sqlite3.DatabaseError: the index is damaged (the caller rebuilds it).
    """
    from vaultmem.index.runs import plan_changes  # an index run's module: a search does without it

    db.check()
    plan = plan_changes(list(scan_notes(root, config.index.exclude)), db.states(), racy_ns=0)
    stale = sorted({s.path for s in plan.to_read} | set(plan.to_delete))
    counts = db.counts()
    embedded = None
    if has_vectors(root) and numpy_or_notice(notices):
        from vaultmem.embeddings.embed import coverage

        embedded = coverage(db.conn, root / STATE_DIR, config.embeddings)
    return Status(
        str(root),
        counts["files"],
        counts["chunks"],
        db.size_bytes(),
        stale,
        db.warnings(),
        daemon_pid(root),
        embedded,
        daemon_warnings(root),
    )
