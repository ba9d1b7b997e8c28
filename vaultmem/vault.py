"""``Vault``: the front door. Opens a vault (a folder holding ``.vaultmem/``), holds its
config and its index, and offers every job the CLI, the MCP server and the daemon do.

Each method checks its arguments and hands the work, in a few lines, to the folder that
owns it (docs/architecture.md has the map), imported inside the method so that
``import vaultmem`` and a search stay light. Each method's docstring says what it does and
raises; the module it names says how.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from vaultmem.config import Config, load_config
from vaultmem.embeddings.files import MatrixCache
from vaultmem.errors import VaultmemError
from vaultmem.index.recovery import IndexKeeper
from vaultmem.notes.state import STATE_DIR, secure_state_dir
from vaultmem.notes.vault_root import ENV_VAR, find_vault, vault_root

if TYPE_CHECKING:
    import threading

    from vaultmem.embeddings.embed import EmbedReport
    from vaultmem.git.history import Commit, History, LineVersion, RestoreResult
    from vaultmem.git.sync import SyncResult
    from vaultmem.index.database import Index
    from vaultmem.index.runs import IndexReport
    from vaultmem.index.runs import Progress as IndexProgress
    from vaultmem.memory.pipeline.consolidate import Progress
    from vaultmem.memory.pipeline.remember import Remembered
    from vaultmem.memory.pipeline.report import Report as ConsolidationReport
    from vaultmem.memory.pipeline.runner import Forgotten
    from vaultmem.memory.pipeline.transcripts import CaptureReport
    from vaultmem.memory.pipeline.validate import Problem
    from vaultmem.notes.files import Excerpt, FileStat
    from vaultmem.recall.context_block import ContextBlock
    from vaultmem.recall.lookup import Recent
    from vaultmem.search.keyword import Hits
    from vaultmem.status import Status
    from vaultmem.template import InitReport

__all__ = ["ENV_VAR", "INDEX_FILE", "Forgotten", "Remembered", "Status", "Vault"]

INDEX_FILE = "index.db"


# Results named here that live elsewhere: each loads only when asked for (a search never
# needs them).
_LAZY = {
    "Status": "vaultmem.status",
    "Forgotten": "vaultmem.memory.pipeline.runner",
    "Remembered": "vaultmem.memory.pipeline.remember",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(_LAZY[name]), name)


class Vault:
    """An open vault: ``Vault(path)`` needs ``path/.vaultmem/`` (``Vault.init`` makes it).
    Its methods open, index, read, remember and consolidate, and keep history (git);
    docs/python-api.md shows each."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        index_path: Path | None = None,
        tracer: Callable[[str], None] | None = None,
    ) -> None:
        """Open the vault at ``path``. ``index_path`` names another index file (tests
        compare two); ``tracer`` is called with every SQL statement run on the index.

        Raises:
            VaultNotFoundError: the folder does not exist or is not a vault.
            BadPathError: no folder can have that path (a NUL byte, a name too long).
            ConfigError: ``.vaultmem/config.toml`` or ``local.toml`` is invalid.
        """
        self.root = vault_root(path)
        secure_state_dir(self.root / STATE_DIR)  # the index holds every note's words
        #: What vaultmem did on its own that a person should hear of (a corrupt index was
        #: rebuilt, a setting was ignored). The CLI prints these as warnings.
        self.notices: list[str] = []
        self.config: Config = load_config(self.root, self.notices)
        self.index_path = index_path or self.root / STATE_DIR / INDEX_FILE
        self._keeper = IndexKeeper(
            self.root, self.config.index, self.index_path, tracer, self.notices
        )
        self._matrices = MatrixCache()  # the search matrix, mapped by the first semantic search

    @classmethod
    def find(cls, path: str | os.PathLike[str] | None = None, start: Path | None = None) -> Vault:
        """Open the vault named by ``path``, else ``$VAULTMEM_VAULT``, else the nearest
        folder at or above ``start`` (default: the current one) holding ``.vaultmem/``.

        Raises:
            VaultNotFoundError: none of these names a vault.
        """
        return cls(find_vault(path, start))

    @classmethod
    def init(
        cls, path: str | os.PathLike[str], *, example: bool = False, git: bool = True
    ) -> InitReport:
        """Create a vault at ``path``, or adopt the notes folder there, changing no existing
        file, and commit (``template.create_vault``; ``git`` false: no repository, no
        commit).

        Raises:
            VaultmemError: ``path`` is a file, or inside another vault.
            GitError: git refused.
        """
        from vaultmem.template import create_vault

        return create_vault(path, example=example, git=git)

    @property
    def db(self) -> Index:
        """The open shadow index (opened, created or rebuilt on first use)."""
        return self._keeper.db

    @property
    def device(self) -> str:
        """This device's name in the memory log."""
        from vaultmem.memory.pipeline.ledger import device_name

        return device_name(self.config.memory.device)

    @property
    def history(self) -> History:
        """The vault's git history (``git/history.py``)."""
        from vaultmem.git.history import History

        return History(self.root, self.config.git.timeout_seconds, self.config.vault.daily_folder)

    def close(self) -> None:
        """Close the index connection, and the search matrix if a search mapped it."""
        self._keeper.close()
        self._matrices.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the index ----------------------------------------------------------------------

    def index(
        self,
        progress: IndexProgress | None = None,
        *,
        rebuild: bool = False,
        should_stop: Callable[[], bool] | None = None,
    ) -> IndexReport:
        """Bring the index up to date with the files (stat all, read what changed); with
        ``rebuild``, read every note and rebuild it in one transaction (``index/runs.py``).

        Raises:
            IndexLockedError: another process holds the index past the busy timeout.
            Interrupted: ``should_stop`` returned true; nothing of the run was written.
        """
        return self._keeper.refresh(progress, rebuild, should_stop)

    def reindex(self, progress: IndexProgress | None = None) -> IndexReport:
        """Rebuild the index from the files alone (see ``index``)."""
        return self.index(progress, rebuild=True)

    def index_paths(
        self,
        paths: Iterable[str],
        folders: Iterable[str] = (),
        should_stop: Callable[[], bool] | None = None,
        *,
        wait: bool = True,
    ) -> IndexReport:
        """Update the index for some notes only: ``paths`` and everything under ``folders``
        (the daemon's step). With ``wait`` false, another run is waited for no longer
        than the busy timeout.

        Raises:
            IndexLockedError: another process holds the index past the wait.
        """
        return self._keeper.refresh_paths(paths, folders, should_stop, wait)

    def scan(self) -> list[FileStat]:
        """Stat every note in the vault (no reads)."""
        from vaultmem.notes.files import scan_notes

        return list(scan_notes(self.root, self.config.index.exclude))

    def status(self) -> Status:
        """Counts, index size, files changed since the last index run, and warnings."""
        from vaultmem.status import vault_status

        return self._keeper.recovering(
            lambda: vault_status(self.db, self.root, self.config, self.notices)
        )

    def embed(
        self,
        progress: IndexProgress | None = None,
        *,
        should_stop: Callable[[], bool] | None = None,
    ) -> EmbedReport:
        """Give every indexed chunk a vector, resumably (``embeddings/embed.py``).

        Raises:
            EmbeddingError: no embedder (or numpy) is installed or configured, or it failed.
        """
        from vaultmem.embeddings.optional import embed_runner

        embed_vault = embed_runner()
        self.index()
        state = self.root / STATE_DIR
        report = embed_vault(
            self.db.conn, state, self.config.embeddings, progress=progress, should_stop=should_stop
        )
        self.notices.extend(report.notices)
        return report

    def watch(
        self,
        stop: threading.Event | None = None,
        log: Callable[[str], None] | None = None,
        *,
        autocommit: float | None = None,
        sync_every: float | None = None,
        events: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        """Keep the index following the files until ``stop`` is set (``daemon/watch.py``);
        ``log`` gets each event as a line, ``events`` as an object (docs/json-output.md).

        Raises:
            DaemonRunningError: another daemon is watching this vault.
        """
        import threading

        from vaultmem.daemon.watch import Watcher

        Watcher(self, log, autocommit=autocommit, sync_every=sync_every, events=events).run(
            stop or threading.Event()
        )

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
    ) -> Hits:
        """Search the vault (``search/retrieval.py``, docs/search.md): one hit per memory,
        ``mode`` keyword, semantic or hybrid (``None``: hybrid when the vault has vectors);
        the hits say the mode that found them (``Hits.mode``).
        Hits on facts count as accessed unless ``track`` is false.

        Raises:
            QueryTooLongError: ``query`` is over a search's bounds (``query.check_query``),
                checked before anything is read: every search comes through here.
        """
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
                matrices=self._matrices,
            )
        )
        if track and self.config.memory.track_access:
            self._log_access([(h.path, h.block_id) for hit in hits for h in (hit, *hit.also_in)])
        return hits

    def context(
        self,
        query: str | None = None,
        *,
        budget: int | None = None,
        agent: str | None = None,
        today: dt.date | None = None,
    ) -> ContextBlock:
        """The block an agent puts in its prompt, within ``budget`` tokens
        (``recall/context_block.py``, docs/context.md); recalled facts count as accessed.

        Raises:
            VaultmemError: a budget below 40 tokens.
            QueryTooLongError: ``query`` is over a search's bounds, even with no words.
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
        (``recall/lookup.py``).

        Raises:
            VaultmemError: ``days`` or ``limit`` below 1.
        """
        from vaultmem.recall.lookup import recent

        return recent(self, days, limit, today or dt.date.today(), agent)

    def get(
        self, target: str, line_start: int | None = None, line_end: int | None = None
    ) -> Excerpt:
        """A note's lines by path (all, or a range), or the block of the line with a block
        id (``recall/lookup.py``).

        Raises:
            PathOutsideVaultError: the path leaves the vault.
            AmbiguousIdError: the id is on several lines.
            VaultmemError: no such file, line range or id.
        """
        from vaultmem.recall.lookup import get

        return get(self, target, line_start, line_end)

    def show(self, path: str, line: int | None = None, context: int = 0) -> Excerpt:
        """A note's lines: all, or the block holding ``line`` with ``context`` lines around
        it (``notes/files.py``).

        Raises:
            PathOutsideVaultError: ``path`` leaves the vault.
            NotANoteError: ``path`` is not a note's (``.git/config``, ``.env``, ...).
            VaultmemError: the file does not exist, is not text, or ``line`` is past its end.
        """
        from vaultmem.notes.files import excerpt

        index = self.config.index
        return excerpt(self.root, path, line, context, index.max_file_bytes, index.exclude)

    def facts_dated(self, first: dt.date, last: dt.date) -> list[tuple[str, int, str]]:
        """Fact chunks with a date in ``first..last`` in a field, after the index caught up
        with ``facts/`` and ``archive/`` (``Index.facts_dated``)."""

        def run() -> list[tuple[str, int, str]]:
            if not self._keeper.catch_up(["facts", "archive"]):
                self.notices.append("facts not re-read: the index is busy; it may lag")
            return self.db.facts_dated(first.isoformat(), last.isoformat())

        return self._keeper.recovering(run)

    def with_block_id(self, block_id: str) -> list[tuple[str, int, int, str]]:
        """``(path, line_start, line_end, text)`` of the chunks the index holds with this
        block id (the files may have changed since: read them to be sure)."""
        return self._keeper.read(lambda db: db.with_block_id(block_id))

    # -- the memory ---------------------------------------------------------------------

    def remember(
        self,
        text: str,
        *,
        role: str = "user",
        source: str | None = None,
        session: str | None = None,
        tags: Iterable[str] = (),
        importance: float | None = None,
        now: dt.datetime | None = None,
        agent: str | None = None,
    ) -> Remembered:
        """Append one message to the daily note of ``now`` (default: today) and index it
        (``memory/pipeline/remember.py``). Stored but not indexed is a success with a
        notice: an agent must not retry it.

        Raises:
            NotStoredError: the line could not be written (nothing was stored); the message
                says why: a note that is a folder, not UTF-8 or a symlink, a full disk...
            VaultmemError: ``importance`` is outside 0..1.
        """
        from vaultmem.memory.pipeline.remember import remember

        stored = remember(
            self.root,
            text,
            now=now or dt.datetime.now(),
            role=role,
            source=source,
            session=session,
            tags=tags,
            importance=importance,
            agent=agent,
            daily_folder=self.config.vault.daily_folder,
        )
        if stored.line is not None and stored.path is not None:
            self._index_stored([stored.path, *([stored.full_text] if stored.full_text else [])])
        return stored

    def capture(
        self,
        transcript: Path,
        *,
        fmt: str = "auto",
        agent: str | None = None,
        session: str | None = None,
    ) -> CaptureReport:
        """Append a session transcript's new messages to the daily notes of their dates and
        index them (``memory/pipeline/transcripts.py``); unwritable notes are in ``failed``.

        Raises:
            TranscriptError: unreadable transcript, or unknown format.
        """
        from vaultmem.memory.pipeline.transcripts import capture_transcript

        report = capture_transcript(
            self.root,
            Path(transcript),
            fmt=fmt,
            agent=agent,
            session=session,
            daily_folder=self.config.vault.daily_folder,
        )
        if report.paths:
            self._index_stored(report.paths)
        return report

    def consolidate(
        self,
        mode: str = "daily",
        *,
        dry_run: bool = False,
        today: dt.date | None = None,
        llm: bool | None = None,
        progress: Progress | None = None,
    ) -> ConsolidationReport:
        """Distill daily notes into facts and topics, decay, rebuild ``MEMORY.md``'s block
        and commit (``memory/pipeline/consolidate.py``); ``dry_run`` only fills
        ``report.diff``; ``llm`` (default ``[llm] enabled``) asks a model when rules doubt.

        Raises:
            VaultmemError: an unknown mode, or a note that could not be written.
            LLMError: ``llm`` is on but ``[llm]`` lacks its url or model.
        """
        from vaultmem.memory.pipeline import runner
        from vaultmem.memory.pipeline.gc_pause import young_collections_only

        day = today or dt.date.today()
        use_llm = self.config.llm.enabled if llm is None else llm
        with young_collections_only():
            report = runner.consolidate(
                self.root,
                self.config,
                self.device,
                mode,
                dry_run=dry_run,
                today=day,
                llm=use_llm,
                progress=progress,
            )
            if dry_run:
                return report
            if report.changed:
                self.index_paths(report.changed)
        report.commit = self._commit_quietly(report.summary(), report.notices, report.changed)
        return report

    def forget(
        self,
        ident: str,
        *,
        reason: str | None = None,
        hard: bool = False,
        today: dt.date | None = None,
    ) -> Forgotten:
        """Take back the memory with block id ``ident`` and the facts distilled from it:
        struck through, or with ``hard`` removed (``memory/pipeline/forget.py``).

        Raises:
            VaultmemError: no line has that block id.
            AmbiguousIdError: it names more than one line (nothing is written).
        """
        from vaultmem.memory.pipeline import runner

        today = today or dt.date.today()
        done = runner.forget(
            self.root, self.config, self.device, ident, reason=reason, hard=hard, today=today
        )
        if not done.changed:  # forgotten before: no commit (it would take others' edits)
            return done
        self.index_paths(done.changed)
        verb = "forget --hard" if hard else "forget"
        done.commit = self._commit_quietly(f"{verb} ^{done.block_id}", done.notices, done.changed)
        return done

    def tiers(self, today: dt.date | None = None) -> dict[str, dict[str, int]]:
        """Facts per file of ``facts/`` and ``archive/``, counted by tier today."""
        from vaultmem.memory.pipeline.runner import tier_counts

        return tier_counts(self.root, self.config, today or dt.date.today())

    def validate(self) -> list[Problem]:
        """Problems a person should look at, each with its file and line
        (``memory/pipeline/validate.py``)."""
        from vaultmem.memory.pipeline.validate import validate

        return validate(self.root, self.config)

    # -- git ----------------------------------------------------------------------------
    # Paths are taken absolute or relative to the vault and must stay inside it.

    def commit(self, message: str | None = None) -> Commit | None:
        """Commit the vault's changes; ``None`` when there were none.

        Raises:
            GitError: the vault is not in a repository, or git refused.
        """
        history = self.history
        try:
            return history.commit(message)
        finally:
            self.notices += history.notices

    def log(self, path: str | None = None, since: str | None = None) -> list[Commit]:
        """Commits that touched the vault, or one note, newest first."""
        return self.history.log(self._relative(path) if path else None, since)

    def line_history(self, path: str, line: int) -> list[LineVersion]:
        """When one line of a note was written and changed, newest first."""
        return self.history.line_history(self._relative(path), line)

    def diff(self, rev: str | None = None, path: str | None = None) -> str:
        """The diff of the vault (or one note) against a revision (default: the last commit)."""
        return self.history.diff(rev, self._relative(path) if path else None)

    def sync(self, remote: str | None = None, *, today: dt.date | None = None) -> SyncResult:
        """Commit, fetch, merge (``notes/merge.py``, blocks rebuilt as of ``today``), push,
        and index what the merge brought (``git/sync.py``). Never force-pushes.

        Raises:
            GitError: no remote, an unreachable one, a detached HEAD, a merge or rebase in
                progress, or unresolved conflicts; nothing is changed in those cases.
        """
        from vaultmem.git.sync import sync
        from vaultmem.memory.pipeline.runner import rebuild_blocks

        def rebuild() -> None:
            day = today or dt.date.today()
            self.notices += rebuild_blocks(self.root, self.config, day)

        history = self.history
        try:
            result = sync(history, remote, rebuild)
        finally:
            self.notices += history.notices
        self.index()
        return result

    def restore(self, at: str, paths: Iterable[str] = (), to: Path | None = None) -> RestoreResult:
        """Bring back the vault (or ``paths``) as it was at a revision or date, as a new
        commit; with ``to``, into that empty folder instead (``git/history.py``).

        Raises:
            GitError: no such revision or date, or git refused.
            VaultmemError: ``to`` is a folder that is not empty, or inside the vault; a
                date that does not exist; a path that did not exist then.
        """
        from vaultmem.git.history import RestoreResult
        from vaultmem.git.versioning import export_snapshot

        rels = [self._relative(p) for p in paths]
        if to is None:
            result = self.history.restore(at, rels)
            self.index()
            return result
        to = Path(to).expanduser()
        target, written = export_snapshot(self.history, self.root, at, rels, to)
        with type(self)(to) as snapshot:
            snapshot.index()
        return RestoreResult(target, written)

    # -- helpers ------------------------------------------------------------------------

    def _relative(self, path: str) -> str:
        """``path`` relative to the vault's root; ``PathOutsideVaultError`` if it leaves it."""
        from vaultmem.notes.files import resolve_in_vault

        return resolve_in_vault(self.root, path)[1]

    def _index_stored(self, paths: list[str]) -> None:
        """Index notes whose new lines are already stored: a failure here is a notice, not
        an error, so an agent does not store its words twice."""
        try:
            self.index_paths(paths, wait=False)
        except (VaultmemError, OSError) as exc:
            self.notices.append(f"stored, but not indexed yet ({exc}); `vaultmem index` will")

    def _log_access(self, places: list[tuple[str, str | None]]) -> None:
        from vaultmem.memory.pipeline.ledger import log_access

        log_access(self.root, self.device, places, self.notices)

    def _commit_quietly(self, message: str, notices: list[str], wrote: list[str]) -> str | None:
        """Commit what a memory run wrote (its notes and the memory log) when the vault is
        in a git repository; a notice, not an error, otherwise."""
        from vaultmem.git.versioning import commit_quietly

        return commit_quietly(lambda: self.history, message, notices, wrote)
