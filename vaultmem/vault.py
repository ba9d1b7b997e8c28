"""``Vault``: the front door. Opens a vault, holds its config, and offers every job the CLI
and the MCP server do; they only call it.

``Vault`` stays a door: each method checks its arguments and hands the work, in a few
lines, to the module that owns it: the index's upkeep to ``keeper.py`` (an index run:
``indexing.py``), a search to ``retrieval.py``, ``vaultmem status`` to ``status.py``, the
memory pipeline to ``memory/`` (``memory/runs.py`` for consolidate and forget), git to
``history.py`` and ``versioning.py``, the context block and lookups to ``agent/``, the
daemon to ``watch.py``. Those that need gitpython, the memory pipeline, numpy or watchdog
are imported inside the method that needs them, so ``import vaultmem`` stays light.

The door has three parts: the open vault and its index (``vault_base.py``), the memory
pipeline's methods (``vault_memory.py``) and git's (``vault_history.py``); this module adds
finding and creating a vault, reading it (search, context, lookups) and the daemon.

A vault is a folder holding ``.vaultmem/``. ``Vault.find`` locates it the way git finds its
repository: an explicit path, else ``VAULTMEM_VAULT``, else the nearest folder at or above
the current one that holds ``.vaultmem/``.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultmem.errors import VaultNotFoundError
from vaultmem.notes.state import STATE_DIR
from vaultmem.vault_base import INDEX_FILE
from vaultmem.vault_history import HistoryMethods
from vaultmem.vault_memory import MemoryMethods

if TYPE_CHECKING:
    import threading

    from vaultmem.embeddings.embed import EmbedReport
    from vaultmem.index.runs import Progress
    from vaultmem.memory.pipeline.remember import Remembered
    from vaultmem.memory.pipeline.runner import Forgotten
    from vaultmem.notes.files import Excerpt
    from vaultmem.recall.context_block import ContextBlock
    from vaultmem.recall.lookup import Recent
    from vaultmem.search.keyword import Hit
    from vaultmem.status import Status
    from vaultmem.template import InitReport

__all__ = ["ENV_VAR", "INDEX_FILE", "Forgotten", "Remembered", "Status", "Vault"]

ENV_VAR = "VAULTMEM_VAULT"


def __getattr__(name: str) -> Any:
    # ``Forgotten`` and ``Remembered`` live in the memory pipeline, ``Status`` with what
    # ``vaultmem status`` reads: imported from here, each loads only when asked for (a
    # search never needs them).
    if name == "Status":
        from vaultmem.status import Status

        return Status
    if name == "Forgotten":
        from vaultmem.memory.pipeline.runner import Forgotten

        return Forgotten
    if name == "Remembered":
        from vaultmem.memory.pipeline.remember import Remembered

        return Remembered
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Vault(MemoryMethods, HistoryMethods):
    """An open vault. ``Vault(path)`` needs ``path/.vaultmem/``; see ``Vault.init``."""

    @classmethod
    def find(cls, path: str | os.PathLike[str] | None = None, start: Path | None = None) -> Vault:
        """Open the vault named by ``path``, else ``$VAULTMEM_VAULT``, else the nearest
        folder at or above ``start`` (default: the current folder) that holds ``.vaultmem/``.

        Raises:
            VaultNotFoundError: none of these names a vault.
        """
        if path is not None:
            return cls(path)
        env = os.environ.get(ENV_VAR)
        if env:
            return cls(env)
        here = (start or Path.cwd()).resolve()
        for folder in (here, *here.parents):
            if (folder / STATE_DIR).is_dir():
                return cls(folder)
        raise VaultNotFoundError(
            f"no vault found in {here} or above it; pass --vault PATH, set {ENV_VAR}, "
            "or create one with `vaultmem init PATH`"
        )

    @classmethod
    def init(cls, path: str | os.PathLike[str], *, example: bool = False) -> InitReport:
        """Create a vault at ``path``, or adopt the notes folder already there.

        Copies every file of the vault template (and with ``example``, the example memory)
        that does not exist yet, never changing or removing an existing file; then makes the
        folder a git repository if it is not in one, and commits what was added. In a fresh
        clone with nothing checked out, the remote's branch is checked out first.

        Raises:
            VaultmemError: ``path`` is a file, or inside another vault.
            GitError: git refused (see ``repo_setup.check_out_cloned_branch``).
        """
        from vaultmem.git.repository import commit_init  # gitpython: 40 ms, only here
        from vaultmem.template import lay_down

        report = lay_down(path, example=example)
        if example and "MEMORY.md" in report.created:
            # The example's facts are already distilled: MEMORY.md shows them from the start.
            with cls(report.root) as vault:
                vault._rebuild_blocks(None)
        report.committed = commit_init(report.root, report.created)
        return report

    # -- the index (kept usable by keeper.py) ----------------------------------------------

    # -- reading ------------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        limit: int | None = None,
        path: str | None = None,
        tag: str | None = None,
        since: str | None = None,
        until: str | None = None,
        url: str | None = None,
        include_archive: bool = False,
        track: bool = True,
        agent: str | None = None,
        today: dt.date | None = None,
        context: int | None = None,
        mode: str | None = None,
    ) -> list[Hit]:
        """Search (see ``vaultmem.search.keyword``); builds the index first if it never was.

        ``mode`` is ``"keyword"``, ``"semantic"`` or ``"hybrid"``; ``None``: hybrid when the
        vault has vectors and the embedder loads, else keyword (docs/embeddings.md).

        The archive (``archive/``) is left out unless ``include_archive``. With ``agent``,
        other agents' lines are left out (lines naming no agent are shared). Each hit
        carries its tier as of ``today`` and whether it is superseded. One memory is one
        hit, superseded facts rank below their replacement, and a hit carries up to
        ``context`` lines (default ``[search] context_lines``) each side (``results.py``).
        Hits on facts are written to this device's access log (which reinforces them at
        the next consolidation) unless ``track`` is false or ``memory.track_access`` is off.

        Raises:
            QueryTooLongError: ``query`` is over a search's bounds (``query.check_query``),
                checked before anything is read: every search (the CLI's, MCP's, the
                recall of ``context``) comes through here.
        """
        # Imported here: the search modules are for a search, not for every command.
        from vaultmem.search.query import check_query
        from vaultmem.search.retrieval import Filters, retrieve

        check_query(query)
        wanted = limit or self.config.search.default_limit
        lines = self.config.search.context_lines if context is None else context
        where = Filters(path, tag, since, until, url, include_archive, agent)
        day = today or dt.date.today()
        hits = self._keeper.read(
            lambda db: retrieve(
                db,
                self.root,
                self.config,
                query,
                where,
                mode=mode,
                limit=wanted,
                context_lines=lines,
                today=day,
                notices=self.notices,
            )
        )
        if track and self.config.memory.track_access:
            self._log_access([(h.path, h.block_id) for hit in hits for h in (hit, *hit.also_in)])
        return hits

    def embed(
        self,
        progress: Progress | None = None,
        *,
        should_stop: Callable[[], bool] | None = None,
    ) -> EmbedReport:
        """Give every indexed chunk a vector of the configured model (indexing first),
        resumably; see ``vaultmem.embeddings.embed``.

        Raises:
            EmbeddingError: no embedder (or numpy) is installed or configured, or it failed.
        """
        from vaultmem.embeddings import embed_runner

        embed_vault = embed_runner()
        self.index()
        state = self.root / STATE_DIR
        report = embed_vault(
            self.db.conn, state, self.config.embeddings, progress=progress, should_stop=should_stop
        )
        self.notices.extend(report.notices)
        return report

    def context(
        self,
        query: str | None = None,
        *,
        budget: int | None = None,
        agent: str | None = None,
        today: dt.date | None = None,
    ) -> ContextBlock:
        """The block an agent puts in its prompt, within ``budget`` tokens (default:
        ``[context] budget``): ``MEMORY.md``'s block, the recall for ``query``, today's and
        yesterday's notes (see ``agent/recall.py`` and ``docs/context.md``). Recalled facts
        count as accessed, like search hits.

        Raises:
            VaultmemError: a budget below 40 tokens.
            QueryTooLongError: ``query`` is over a search's bounds (``query.check_query``),
                even one with no words to recall.
        """
        from vaultmem.recall.context_block import build_context
        from vaultmem.search.query import check_query

        if query is not None:
            check_query(query)
        budget = self.config.context.budget if budget is None else budget
        block = build_context(self, query, budget, agent, today or dt.date.today())
        if self.config.memory.track_access:
            self._log_access([(item.path, item.block_id) for item in block.recalled])
        return block

    def recent(
        self,
        *,
        days: int = 7,
        limit: int = 50,
        today: dt.date | None = None,
        agent: str | None = None,
    ) -> Recent:
        """New daily-note lines, new facts and superseded facts of the last ``days`` days
        (see ``agent/lookup.py``).

        Raises:
            VaultmemError: ``days`` or ``limit`` below 1.
        """
        from vaultmem.recall.lookup import recent

        return recent(self, days, limit, today or dt.date.today(), agent)

    def get(
        self, target: str, line_start: int | None = None, line_end: int | None = None
    ) -> Excerpt:
        """A note's lines by path (all, or a range), or the block of the line with a block
        id (``^id``, ``id``, ``DATE#id``, ``PATH#id``); see ``agent/lookup.py``.

        Raises:
            PathOutsideVaultError: the path leaves the vault.
            AmbiguousIdError: the id is on several lines.
            VaultmemError: no such file, line range or id.
        """
        from vaultmem.recall.lookup import get

        return get(self, target, line_start, line_end)

    def facts_dated(self, first: dt.date, last: dt.date) -> list[tuple[str, int, str]]:
        """Fact chunks with a date in ``first..last`` in a field (see ``Index.facts_dated``),
        after the index caught up with ``facts/`` and ``archive/`` (a stat of each file)."""

        def run() -> list[tuple[str, int, str]]:
            if not self._keeper.catch_up(["facts", "archive"]):
                self.notices.append("facts not re-read: the index is busy; it may lag")
            return self.db.facts_dated(first.isoformat(), last.isoformat())

        return self._keeper.recovering(run)

    def with_block_id(self, block_id: str) -> list[tuple[str, int, int, str]]:
        """``(path, line_start, line_end, text)`` of the chunks the index holds with this
        block id (the files may have changed since: read them to be sure)."""
        return self._keeper.read(lambda db: db.with_block_id(block_id))

    def watch(
        self,
        stop: threading.Event | None = None,
        log: Callable[[str], None] | None = None,
        *,
        autocommit: float | None = None,
        sync_every: float | None = None,
        events: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        """Keep the index following the files until ``stop`` is set (see ``vaultmem.daemon.watch``).
        ``log`` gets each event as a line for people, ``events`` as an object (the fields
        of ``vaultmem watch --json``, docs/json-output.md).

        Raises:
            DaemonRunningError: another daemon is watching this vault.
        """
        import threading

        from vaultmem.daemon.watch import Watcher

        Watcher(self, log, autocommit=autocommit, sync_every=sync_every, events=events).run(
            stop or threading.Event()
        )

    def status(self) -> Status:
        """Counts, index size, files changed since the last index run, and warnings."""
        from vaultmem.status import vault_status

        return self._keeper.recovering(
            lambda: vault_status(self.db, self.root, self.config, self.notices)
        )

    def show(self, path: str, line: int | None = None, context: int = 0) -> Excerpt:
        """The lines of a note: all of it, or the block holding ``line`` with ``context``
        lines around it (see ``files.excerpt``).

        Raises:
            PathOutsideVaultError: ``path`` leaves the vault.
            NotANoteError: ``path`` is not a note's (``.git/config``, ``.env``, ...).
            VaultmemError: the file does not exist, is not text, or ``line`` is past its end.
        """
        from vaultmem.notes.files import excerpt

        index = self.config.index
        return excerpt(self.root, path, line, context, index.max_file_bytes, index.exclude)
