"""``Vault``: the front door. Opens a vault, holds its config, and offers every job the CLI
and the MCP server do; they only call it.

``Vault`` stays a door: each method checks its arguments and hands the work, in a few
lines, to the module that owns it: the index's upkeep to ``keeper.py`` (an index run:
``indexing.py``), a search to ``retrieval.py``, ``vaultmem status`` to ``status.py``, the
memory pipeline to ``memory/`` (``memory/runs.py`` for consolidate and forget), git to
``history.py`` and ``versioning.py``, the context block and lookups to ``agent/``, the
daemon to ``watch.py``. Those that need gitpython, the memory pipeline, numpy or watchdog
are imported inside the method that needs them, so ``import vaultmem`` stays light.

A vault is a folder holding ``.vaultmem/``. ``Vault.find`` locates it the way git finds its
repository: an explicit path, else ``VAULTMEM_VAULT``, else the nearest folder at or above
the current one that holds ``.vaultmem/``.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .config import Config, load_config
from .errors import VaultmemError, VaultNotFoundError
from .keeper import IndexKeeper
from .state import STATE_DIR, secure_state_dir

if TYPE_CHECKING:
    import threading

    from .agent.lookup import Recent
    from .agent.recall import ContextBlock
    from .agent.transcripts import CaptureReport
    from .embeddings.embed import EmbedReport
    from .files import Excerpt, FileStat
    from .history import Commit, History, LineVersion, RestoreResult
    from .index import Index
    from .indexing import IndexReport, Progress
    from .memory.consolidate import Report as ConsolidationReport
    from .memory.remember import Remembered
    from .memory.runs import Forgotten
    from .memory.validate import Problem
    from .search import Hit
    from .status import Status
    from .sync import SyncResult
    from .template import InitReport

__all__ = ["ENV_VAR", "INDEX_FILE", "Forgotten", "Remembered", "Status", "Vault"]

INDEX_FILE = "index.db"
ENV_VAR = "VAULTMEM_VAULT"


def __getattr__(name: str) -> Any:
    # ``Forgotten`` and ``Remembered`` live in the memory pipeline, ``Status`` with what
    # ``vaultmem status`` reads: imported from here, each loads only when asked for (a
    # search never needs them).
    if name == "Status":
        from .status import Status

        return Status
    if name == "Forgotten":
        from .memory.runs import Forgotten

        return Forgotten
    if name == "Remembered":
        from .memory.remember import Remembered

        return Remembered
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Vault:
    """An open vault. ``Vault(path)`` needs ``path/.vaultmem/``; see ``Vault.init``."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        index_path: Path | None = None,
        tracer: Callable[[str], None] | None = None,
    ) -> None:
        """Open the vault at ``path``.

        Args:
            path: the vault folder (the one holding ``.vaultmem/``).
            index_path: use another index file (tests compare two indexes of one vault).
            tracer: called with every SQL statement run on the index, for debugging.

        Raises:
            VaultNotFoundError: the folder does not exist or is not a vault.
            ConfigError: ``.vaultmem/config.toml`` is invalid.
        """
        root = Path(path).expanduser()
        if not root.is_dir():
            raise VaultNotFoundError(f"no vault at {path}: the folder does not exist")
        if not (root / STATE_DIR).is_dir():
            raise VaultNotFoundError(
                f"{path} is not a vault (no {STATE_DIR}/ folder); "
                f"run `vaultmem init {path}` to create or adopt one"
            )
        self.root = root.resolve()
        secure_state_dir(self.root / STATE_DIR)  # the index holds every note's words
        self.config: Config = load_config(self.root)
        self.index_path = index_path or self.root / STATE_DIR / INDEX_FILE
        #: What vaultmem did on its own that a person should hear of (for example: a
        #: corrupt index was rebuilt). The CLI prints these as warnings.
        self.notices: list[str] = []
        self._keeper = IndexKeeper(
            self.root, self.config.index, self.index_path, tracer, self.notices
        )

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
            GitError: git refused (see ``history.check_out_cloned_branch``).
        """
        from .history import commit_init  # gitpython: 40 ms, only here
        from .template import lay_down

        report = lay_down(path, example=example)
        if example and "MEMORY.md" in report.created:
            # The example's facts are already distilled: MEMORY.md shows them from the start.
            with cls(report.root) as vault:
                vault._rebuild_blocks(None)
        report.committed = commit_init(report.root, report.created)
        return report

    # -- the index (kept usable by keeper.py) ----------------------------------------------

    @property
    def db(self) -> Index:
        """The open shadow index (opened, created or rebuilt on first use)."""
        return self._keeper.db

    def close(self) -> None:
        """Close the index connection."""
        self._keeper.close()

    def __enter__(self) -> Vault:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def scan(self) -> list[FileStat]:
        """Stat every note in the vault (no reads)."""
        from .files import scan_notes

        return list(scan_notes(self.root, self.config.index.exclude))

    def index(
        self,
        progress: Progress | None = None,
        *,
        rebuild: bool = False,
        should_stop: Callable[[], bool] | None = None,
    ) -> IndexReport:
        """Bring the index up to date with the files: stat all, read only what changed.

        With ``rebuild``, every note is read again and the index rebuilt from scratch, in
        one transaction: other processes keep searching the old index until it is done.
        An index that turns out corrupt midway is deleted and rebuilt from the files.

        Raises:
            IndexLockedError: another process holds the index past the busy timeout.
            Interrupted: ``should_stop`` returned true; nothing of the run was written.
        """
        return self._keeper.refresh(progress, rebuild, should_stop)

    def reindex(self, progress: Progress | None = None) -> IndexReport:
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
        """Update the index for some notes only: the given vault-relative paths (changed,
        created or gone) and everything under the given folders. The watch daemon's step.

        With ``wait`` false, a run of another process is waited for only as long as the
        busy timeout (``remember``: its line is stored already, the next run indexes it).

        Raises:
            IndexLockedError: another process holds the index past the wait.
        """
        return self._keeper.refresh_paths(paths, folders, should_stop, wait)

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
        """Search (see ``vaultmem.search``); builds the index first if it never was.

        ``mode`` is ``"keyword"``, ``"semantic"`` or ``"hybrid"``; ``None``: hybrid when the
        vault has vectors and the embedder loads, else keyword (docs/embeddings.md).

        The archive (``archive/``) is left out unless ``include_archive``. With ``agent``,
        other agents' lines are left out (lines naming no agent are shared). Each hit
        carries its tier as of ``today`` and whether it is superseded. One memory is one
        hit, superseded facts rank below their replacement, and a hit carries up to
        ``context`` lines (default ``[search] context_lines``) each side (``results.py``).
        Hits on facts are written to this device's access log (which reinforces them at
        the next consolidation) unless ``track`` is false or ``memory.track_access`` is off.
        """
        # Imported here: the search modules are for a search, not for every command.
        from .retrieval import Filters, retrieve

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
            EmbeddingError: no embedder is installed or configured, or it failed.
        """
        from .embeddings.embed import embed_vault

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
        """
        from .agent.recall import build_context

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
        from .agent.lookup import recent

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
        from .agent.lookup import get

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

    def _log_access(self, places: list[tuple[str, str | None]]) -> None:
        from .memory.ledger import log_access

        log_access(self.root, self.device, places, self.notices)

    # -- memory (the pipeline is memory/; it loads only when a method needs it) -----------

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
        """Append one message to today's daily note and index it at once.

        The line is appended in place (one ``O_APPEND`` write under the vault's write lock),
        so lines written meanwhile by a person, an editor or another agent are all kept. The
        same message (same session and words) is stored once. When the line is stored but
        indexing fails, the result is still a success and ``notices`` says so: an agent must
        not retry it. ``now`` back-fills: the line goes into the note of ``now``'s date, with
        its time. ``agent`` names the writing agent (``[agent:: NAME]``). See
        ``memory/remember.py``.

        Raises:
            NotStoredError: the line could not be written (nothing was stored); the message
                says why: a note that is a folder, not UTF-8 or a symlink, a full disk...
            VaultmemError: ``importance`` is outside 0..1.
        """
        from .memory.remember import remember

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
            self._index_stored([stored.path])
        return stored

    def capture(
        self,
        transcript: Path,
        *,
        fmt: str = "auto",
        agent: str | None = None,
        session: str | None = None,
    ) -> CaptureReport:
        """Append an agent session transcript's new messages to the daily notes of the
        dates they were sent, and index those notes (see ``agent/transcripts.py``).

        Notes that could not be written are listed in ``failed`` (their messages were not
        stored; capturing again stores them); the others are stored and indexed.

        Raises:
            TranscriptError: unreadable transcript, or unknown format.
        """
        from .agent.transcripts import capture_transcript

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

    def _index_stored(self, paths: list[str]) -> None:
        """Index notes whose new lines are already stored: a failure here is a notice, not
        an error, so an agent does not store its words twice."""
        try:
            self.index_paths(paths, wait=False)
        except (VaultmemError, OSError) as exc:
            self.notices.append(f"stored, but not indexed yet ({exc}); `vaultmem index` will")

    def consolidate(
        self,
        mode: str = "daily",
        *,
        dry_run: bool = False,
        today: dt.date | None = None,
        llm: bool | None = None,
        progress: Progress | None = None,
    ) -> ConsolidationReport:
        """Distill daily notes into facts and topics, decay, and rebuild ``MEMORY.md``'s
        block (see ``memory/consolidate.py``). Ends in one git commit when the vault is in
        a repository; with ``dry_run``, only ``report.diff`` says what would change.
        ``llm`` (default: ``[llm] enabled``) asks a model about the doubtful cases
        (``vaultmem/llm/``), a dry run too: its answers are cached for the real run.
        ``progress(done, total)`` is told of each daily note distilled, as ``index`` tells
        of each note indexed.

        Raises:
            VaultmemError: an unknown mode, or a note that could not be written.
            LLMError: ``llm`` is on but ``[llm]`` lacks its url or model.
        """
        from .memory import runs

        day = today or dt.date.today()
        use_llm = self.config.llm.enabled if llm is None else llm
        report = runs.consolidate(
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
        report.commit = self._commit_quietly(report.summary(), report.notices)
        return report

    def forget(
        self,
        ident: str,
        *,
        reason: str | None = None,
        hard: bool = False,
        today: dt.date | None = None,
    ) -> Forgotten:
        """Take back a memory by its block id: a fact (``f...``), or a daily-note line
        with the facts distilled from it. ``ident`` must name one line: ``YYYY-MM-DD#id``
        names a daily note's line (ids like ``s1-1`` repeat across notes), ``PATH#id`` any
        note's. Soft strikes the words through; ``hard`` removes them from the working
        files (git history keeps them). See ``memory/forget.py``.

        Raises:
            VaultmemError: no line has that block id.
            AmbiguousIdError: it names more than one line (nothing is written).
        """
        from .memory import runs

        today = today or dt.date.today()
        done = runs.forget(
            self.root, self.config, self.device, ident, reason=reason, hard=hard, today=today
        )
        if done.changed:
            self.index_paths(done.changed)
        verb = "forget --hard" if hard else "forget"
        done.commit = self._commit_quietly(f"{verb} ^{done.block_id}", done.notices)
        return done

    def tiers(self, today: dt.date | None = None) -> dict[str, dict[str, int]]:
        """Facts per file of ``facts/`` and ``archive/``, counted by tier today."""
        from .memory.runs import tier_counts

        return tier_counts(self.root, self.config, today or dt.date.today())

    def validate(self) -> list[Problem]:
        """Problems a person should look at, each with its file and line
        (see ``memory/validate.py``)."""
        from .memory.validate import validate

        return validate(self.root, self.config)

    @property
    def device(self) -> str:
        """This device's name in the memory log."""
        from .memory.ledger import device_name

        return device_name(self.config.memory.device)

    def _commit_quietly(self, message: str, notices: list[str]) -> str | None:
        """Commit when the vault is in a git repository; a notice, not an error, otherwise."""
        from .versioning import commit_quietly

        return commit_quietly(lambda: self.history, message, notices)

    # -- history (git: history.py; gitpython loads only when a method needs it) -----------

    def _relative(self, path: str) -> str:
        """``path`` (absolute, or relative to the vault) relative to the vault's root.

        Raises:
            PathOutsideVaultError: the path leaves the vault.
        """
        from .files import resolve_in_vault

        return resolve_in_vault(self.root, path)[1]

    @property
    def history(self) -> History:
        """The vault's git history (see ``vaultmem.history``)."""
        from .history import History  # gitpython takes 40 ms to import: only when used

        return History(self.root, self.config.git.timeout_seconds, self.config.vault.daily_folder)

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
        rel = self._relative(path) if path else None
        return self.history.log(rel, since)

    def line_history(self, path: str, line: int) -> list[LineVersion]:
        """When one line of a note was written and changed, newest first."""
        return self.history.line_history(self._relative(path), line)

    def diff(self, rev: str | None = None, path: str | None = None) -> str:
        """The diff of the vault (or one note) against a revision (default: the last commit)."""
        rel = self._relative(path) if path else None
        return self.history.diff(rev, rel)

    def sync(self, remote: str | None = None, *, today: dt.date | None = None) -> SyncResult:
        """Commit local changes, fetch, merge, push, and index what the merge brought.

        Each kind of file merges its own way (``vaultmem/merge.py``): fact lines by block id,
        daily notes keeping both devices' lines, and ``MEMORY.md``'s and the topic pages'
        generated blocks rebuilt from the merged facts (as of ``today``). Only where both
        devices changed the same words is the other side written beside the note as a
        conflict copy (``SyncResult.conflicts``). Never force-pushes. See ``vaultmem/sync.py``.

        Raises:
            GitError: no remote, an unreachable one, a detached HEAD, a merge or rebase in
                progress, or unresolved conflicts; nothing is changed in those cases.
        """
        history = self.history
        try:
            result = history.sync(remote, lambda: self._rebuild_blocks(today))
        finally:
            self.notices += history.notices
        self.index()
        return result

    def _rebuild_blocks(self, today: dt.date | None) -> None:
        """After a merge: ``MEMORY.md``'s and the topic pages' blocks from the merged facts."""
        from .memory.runs import rebuild_blocks

        self.notices += rebuild_blocks(self.root, self.config, today or dt.date.today())

    def restore(self, at: str, paths: Iterable[str] = (), to: Path | None = None) -> RestoreResult:
        """Bring back the vault (or some paths) as it was at a revision or date.

        With ``to``, the snapshot is written into that new (or empty) folder and indexed
        there, and this vault is not touched. Without it, the present state is committed
        first, the snapshot is restored as a new commit (so a restore can be undone by
        restoring the commit before it), and the index follows.

        Raises:
            GitError: no such revision or date, or git refused.
            VaultmemError: ``to`` is a folder that is not empty, or inside the vault; a
                date that does not exist; a path that did not exist then.
        """
        from .history import RestoreResult
        from .versioning import export_snapshot

        rels = [self._relative(p) for p in paths]
        if to is None:
            result = self.history.restore(at, rels)
            self.index()
            return result
        to = Path(to).expanduser()
        target, written = export_snapshot(self.history, self.root, at, rels, to)
        with Vault(to) as snapshot:
            snapshot.index()
        return RestoreResult(target, written)

    def watch(
        self,
        stop: threading.Event | None = None,
        log: Callable[[str], None] | None = None,
        *,
        autocommit: float | None = None,
        sync_every: float | None = None,
        events: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        """Keep the index following the files until ``stop`` is set (see ``vaultmem.watch``).
        ``log`` gets each event as a line for people, ``events`` as an object (the fields
        of ``vaultmem watch --json``, docs/json-output.md).

        Raises:
            DaemonRunningError: another daemon is watching this vault.
        """
        import threading

        from .watch import Watcher

        Watcher(self, log, autocommit=autocommit, sync_every=sync_every, events=events).run(
            stop or threading.Event()
        )

    def status(self) -> Status:
        """Counts, index size, files changed since the last index run, and warnings."""
        from .status import vault_status

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
        from .files import excerpt

        index = self.config.index
        return excerpt(self.root, path, line, context, index.max_file_bytes, index.exclude)
