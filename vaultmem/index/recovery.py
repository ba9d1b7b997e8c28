"""Keeping a vault's shadow index usable: opened on first use, built when a reader finds it
never was, rebuilt from the notes when SQLite finds it damaged, and built again when it is
deleted while a run writes it.

``Vault`` holds one ``IndexKeeper`` and runs every index operation through it, so each
command recovers the same way; what the keeper did on its own goes into the vault's
``notices``. The index itself (tables, reads, writes) is ``database.py``; an index run is
``runs.py``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from vaultmem.config import IndexConfig
from vaultmem.errors import IndexLockedError, VaultmemError
from vaultmem.index.database import Index, index_error, is_corrupt, remove_database
from vaultmem.notes.state import create_private

if TYPE_CHECKING:
    from vaultmem.index.runs import IndexReport, Progress

T = TypeVar("T")


class IndexKeeper:
    """The shadow index of the vault at ``root``, kept usable (see the module docstring)."""

    def __init__(
        self,
        root: Path,
        config: IndexConfig,
        path: Path,
        tracer: Callable[[str], None] | None,
        notices: list[str],
    ) -> None:
        """Keep the index at ``path`` of the vault at ``root``; nothing is opened yet.

        Args:
            root: the vault folder.
            config: the vault's ``[index]`` settings.
            path: the index file.
            tracer: called with every SQL statement run on the index.
            notices: where to say what the keeper did on its own (the vault's list).
        """
        self.root = root
        self.config = config
        self.path = path
        self.notices = notices
        self._tracer = tracer
        self._index: Index | None = None

    @property
    def db(self) -> Index:
        """The open shadow index (opened, created or rebuilt on first use)."""
        if self._index is None:
            create_private(self.path)  # SQLite gives its -wal and -shm files its mode
            self._index = Index.open(self.path, self.config.busy_timeout_ms)
            self._index.conn.set_trace_callback(self._tracer)
            self.notices.extend(self._index.notices)
        return self._index

    def close(self) -> None:
        """Close the index connection (the next use opens it again)."""
        if self._index is not None:
            self._index.close()
            self._index = None

    def refresh(
        self,
        progress: Progress | None,
        rebuild: bool,
        should_stop: Callable[[], bool] | None,
    ) -> IndexReport:
        """``Vault.index``: check the index, bring it up to date (or rebuild it), and build
        again when the file was deleted or replaced during the run."""
        first_notice = len(self.notices)

        def run() -> IndexReport:
            if not rebuild:
                # Damage no query has tripped over yet, as far as a cheap probe finds it:
                # SQLite's quick_check reads the whole file (a second per gigabyte), which
                # would make every no-op run cost as much; `vaultmem status` runs it.
                self.db.probe()
            return self.update(progress, rebuild, should_stop=should_stop)

        report = self.recovering(run)
        if self.db.is_gone():
            # Deleted or replaced while we wrote: build again, into the file now there.
            self.notices.append(f"{self.path} was deleted during the run; built again")
            self.close()
            report = self.recovering(run)
            if self.db.is_gone():
                raise VaultmemError(
                    f"{self.path} keeps being deleted while vaultmem builds it; "
                    "stop whatever removes it and run `vaultmem index` again"
                )
        report.notices = self.notices[first_notice:]
        return report

    def refresh_paths(
        self,
        paths: Iterable[str],
        folders: Iterable[str],
        should_stop: Callable[[], bool] | None,
        wait: bool,
    ) -> IndexReport:
        """``Vault.index_paths``: update the index for these paths and folders only."""
        scope = (list(dict.fromkeys(paths)), list(dict.fromkeys(folders)))
        first_notice = len(self.notices)
        brief = should_stop is not None or not wait
        report = self.recovering(lambda: self.update(None, False, scope, should_stop, brief))
        report.notices = self.notices[first_notice:]
        return report

    def update(
        self,
        progress: Progress | None = None,
        rebuild: bool = False,
        scope: tuple[list[str], list[str]] | None = None,
        should_stop: Callable[[], bool] | None = None,
        brief: bool = False,
    ) -> IndexReport:
        """One index run (``runs.update_index``) on the open index."""
        # An index run parses notes (YAML, Markdown): a search of a built index never
        # needs that, so it loads here, not with the keeper.
        from vaultmem.index.runs import update_index

        return update_index(
            self.db,
            self.root,
            self.config,
            self.notices,
            progress=progress,
            rebuild=rebuild,
            scope=scope,
            should_stop=should_stop,
            brief=brief,
        )

    def catch_up(self, folders: list[str]) -> bool:
        """Bring the index up to date for the notes under ``folders`` (a stat of each); an
        index never built is built whole. False when another process holds the index for a
        long run: then it is to be read as it is."""
        if self.db.get_meta("settings") is None:  # never built, or being built elsewhere
            self.update()
            return True
        try:
            self.update(None, False, ([], folders), brief=True)
        except IndexLockedError:  # a long run elsewhere: answer from the index as is
            return False
        return True

    def read(self, operation: Callable[[Index], T]) -> T:
        """Run a read on the index, building it first if it never was (see ``recovering``)."""

        def run() -> T:
            if self.db.get_meta("settings") is None:  # never built, or being built elsewhere
                self.update()
            return operation(self.db)

        return self.recovering(run)

    def recovering(self, operation: Callable[[], T]) -> T:
        """Run an operation on the index. If SQLite finds it damaged, delete it, rebuild it
        from the notes and run the operation again; any other database problem becomes one
        clear error."""
        try:
            return operation()
        except sqlite3.DatabaseError as exc:
            if not is_corrupt(exc):
                raise index_error(exc, self.path) from exc
            self.close()
            remove_database(self.path)
            self.notices.append(f"index {self.path} was corrupt ({exc}); rebuilt from the files")
            try:
                self.update(None, True)
                return operation()
            except sqlite3.DatabaseError as again:
                raise index_error(again, self.path) from again
