"""The watch daemon: file-system events -> coalesced batches -> ``Vault.index_paths``.

It owns the one-daemon-per-vault lock, the status file and the loop. On start it begins
watching *before* it reconciles the index with a stat-based ``Vault.index()``, so an edit
made during the reconcile is not missed.

Batching (``events.py``, shared with the MCP server's live index, ``agent/live.py``):
after the first event of a batch the loop waits only until the events stop for ``quiet``
seconds (20 ms), so a lone save is indexed at once while an editor's burst of
write/modify/close events, or a ``git checkout`` of a thousand files, becomes one batch;
during a continuous stream a batch is cut every ``max_wait`` seconds. Each batch is one
transaction (readers in other processes see all of it or none), and a batch that fails is
logged and retried with the next one, so no single bad batch stops the daemon.

Two things events alone would miss without a word: folders inotify could not watch (its
watch limit reached; ``WatchCoverage`` finds them and has them rescanned, and says so
once), and the vault itself moved or deleted under the daemon (``VaultGuard``: it stops
with one line, and nothing is made at the old path); both live in ``coverage.py``, which
the live index uses too.

With ``autocommit`` the daemon commits once the vault has been quiet that many seconds;
with ``sync_every`` it syncs with the git remote on that interval (see ``docs/git.md``).

The lock (``notes/watch_lock.py``) is an ``flock`` on ``.vaultmem/watch.lock``, which the
kernel releases when the process dies however it dies, so a crashed daemon never leaves
the vault locked. This module never imports ``vault.py``: the daemon is handed its
``Vault`` and names what it uses of it in ``VaultView`` (``vault_view.py``).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from vaultmem.daemon.coverage import Change, VaultGuard, WatchCoverage, batch_scope
from vaultmem.daemon.events import EventFilter, OverflowAlarm, next_batch, start_observer
from vaultmem.errors import IndexLockedError, Interrupted, VaultmemError, VaultNotFoundError
from vaultmem.notes.watch_lock import LOCK_NAME, STATUS_NAME, WatchLock
from vaultmem.notes.watch_lock import (
    daemon_pid as daemon_pid,  # re-exported: the daemon's public names
)
from vaultmem.notes.writes import atomic_write

if TYPE_CHECKING:
    from vaultmem.embeddings.background import BackgroundEmbedder
    from vaultmem.index.runs import IndexReport
    from vaultmem.vault_view import VaultView

# A stat-based reconcile this often catches anything no event told us about.
RECONCILE_EVERY = 600.0
# When the index file vanishes, wait this long before building it again: a ``rm -rf`` of
# the whole vault removes ``.vaultmem`` a moment later, and a file made meanwhile would
# make that ``rm`` fail (and leave a folder at the old path).
INDEX_GONE_GRACE = 0.5
Log = Callable[[str], None]
#: One event as a JSON-ready object: ``{"event": kind, "at": unix time, "message": the log
#: line, ...fields of that kind}`` (``vaultmem watch --json``; docs/json-output.md).
Events = Callable[[dict[str, Any]], None]


@dataclass
class DaemonStatus:
    """What ``.vaultmem/watch.json`` says about the running daemon."""

    pid: int
    started: float
    batches: int = 0
    errors: int = 0
    last_batch: dict[str, float | int] = field(default_factory=dict)
    last_error: str = ""
    #: Folders inotify does not watch (rescanned instead), and what the daemon warns of
    #: while it runs (``vaultmem status`` shows these).
    unwatched_folders: int = 0
    warnings: list[str] = field(default_factory=list)


def _report_fields(report: IndexReport) -> dict[str, Any]:
    return {
        "files": report.files,
        "changed": report.changed,
        "removed": report.removed,
        "chunks": report.chunks,
        "seconds": round(report.seconds, 3),
    }


class Watcher:
    """Keeps one vault's index following its files until ``stop`` is set."""

    def __init__(
        self,
        vault: VaultView,
        log: Log | None = None,
        *,
        quiet: float = 0.02,
        autocommit: float | None = None,
        sync_every: float | None = None,
        events: Events | None = None,
    ) -> None:
        self.vault = vault
        self.events = events
        self.autocommit = autocommit
        self.sync_every = sync_every
        self._last_change: float | None = None  # monotonic time of the last uncommitted batch
        self._last_sync = time.monotonic()
        self.log = log or (lambda line: print(line, file=sys.stderr, flush=True))
        self.quiet = quiet
        state = vault.root / ".vaultmem"
        self.lock = WatchLock(state / LOCK_NAME)
        self.status_path = state / STATUS_NAME
        self.status = DaemonStatus(pid=os.getpid(), started=time.time())
        self._status_written = 0.0
        self._status_data = b""
        self.stop = threading.Event()
        self.embedder: BackgroundEmbedder | None = None
        self.guard = VaultGuard(vault.root)
        self.coverage: WatchCoverage | None = None

    def run(self, stop: threading.Event, ready: Callable[[], None] | None = None) -> None:
        """Watch until ``stop`` is set, or until the vault is moved or deleted.

        Raises:
            DaemonRunningError: another daemon is watching this vault.
            VaultNotFoundError: the vault was moved or deleted while it ran (the daemon
                stops at once; nothing is written at the old path).
        """
        self.lock.acquire()
        self.stop = stop
        # watchdog warns (a screenful each time) when a folder moved back into the vault is
        # watched again; that is expected here, and as an error it would kill its thread.
        warnings.filterwarnings("ignore", message="Callback with id", category=RuntimeWarning)
        changes: queue.Queue[Change] = queue.Queue()
        alarm = OverflowAlarm()
        watchdog_log = logging.getLogger("watchdog")
        watchdog_log.addHandler(alarm)
        try:
            observer, self.coverage = start_observer(
                EventFilter(self.vault.root, self.vault.config.index.exclude, changes)
            )
        except OSError as exc:
            self.lock.release()
            watchdog_log.removeHandler(alarm)
            raise VaultmemError(
                f"cannot watch {self.vault.root}: {exc.strerror or exc}; on Linux, raise "
                "fs.inotify.max_user_watches if the vault has very many folders"
            ) from exc
        try:
            # While this daemon runs, a write waits at most half a second for another
            # process (a long reindex, say), then the batch is retried: stop stays prompt.
            self.vault.db.conn.execute("PRAGMA busy_timeout = 500")
            report = self._reconcile()
            if report is not None:
                self._say(
                    "started",
                    f"watching {self.vault.root} (pid {os.getpid()}); index up to date: "
                    f"{report.summary()}",
                    pid=os.getpid(),
                    vault=str(self.vault.root),
                    index=_report_fields(report),
                )
            self._cover_unwatched([""])  # the whole vault, once
            self._write_status(force=True)
            self.embedder = self._start_embedding()
            if ready is not None:
                ready()
            last_reconcile = time.monotonic()
            while not stop.is_set():
                batch = next_batch(changes, stop, quiet=self.quiet)
                self.guard.check()  # on every batch, and at least four times a second
                if not self.vault.index_path.exists():
                    self._rebuild_deleted_index()
                overflowed = alarm.raised.is_set()
                if overflowed or time.monotonic() - last_reconcile > RECONCILE_EVERY:
                    if overflowed:
                        self._say(
                            "warning",
                            "warning: the kernel dropped file events; reconciling the whole vault",
                        )
                    alarm.raised.clear()
                    batch = set()
                    if self._reconcile() is not None:
                        last_reconcile = time.monotonic()
                if batch:
                    self._apply(batch, changes)
                    self._last_change = time.monotonic()
                    if self.embedder is not None:  # after the batch is keyword-searchable
                        self.embedder.poke(*batch_scope(batch))
                # watchdog watches a new folder before its event reaches us (and watches
                # everything again after an overflow): now is when a watch may have failed.
                self._cover_unwatched([""] if overflowed else batch_scope(batch)[1])
                self._git_chores()
                self._write_status()
        except VaultNotFoundError:
            stop.set()  # the embedding thread too
            self.guard.check()  # the one line that says it, whichever step found it
            raise
        finally:
            observer.stop()
            observer.join(timeout=5)
            if self.embedder is not None:
                self.embedder.join()
            watchdog_log.removeHandler(alarm)
            self._write_status(force=True, running=False)
            self.lock.release()
            self.vault.close()
            if self.guard.present():  # else the error says it, on one line
                self._say("stopped", "stopped")

    def _start_embedding(self) -> BackgroundEmbedder | None:
        """Embedding in a thread, when the vault wants it (numpy loads only then)."""
        from vaultmem.embeddings.background import BackgroundEmbedder, wanted

        config = self.vault.config.embeddings
        if not wanted(self.vault.index_path.parent, config):
            return None
        worker = BackgroundEmbedder(self.vault.index_path, config, self._say, self.stop)
        worker.start()
        return worker

    def _reconcile(self) -> IndexReport | None:
        """A full stat-based index run; ``None`` if it could not finish (stop, or the index
        stayed locked until stop)."""
        while not self.stop.is_set():
            try:
                report = self.vault.index(should_stop=self.stop.is_set)
            except IndexLockedError:
                self.stop.wait(0.5)
                continue
            except Interrupted:
                return None
            if self.embedder is not None and (report.changed or report.written):
                self.embedder.poke(everything=True)  # what it found, no event named
            return report
        return None

    def _apply(self, batch: set[Change], changes: queue.Queue[Change]) -> None:
        started = time.perf_counter()
        paths, folders = batch_scope(batch)
        try:
            report = self.vault.index_paths(paths, folders, should_stop=self.stop.is_set)
        except Interrupted:
            return  # stopping: the next start reconciles whatever this batch held
        except (VaultmemError, OSError) as exc:
            self.guard.check()  # the vault is gone: stop, do not retry
            self._failed(f"batch of {len(batch)} changes failed: {exc}; retrying with the next")
            for item in batch:  # nothing of the batch was written: try it again
                changes.put(item)
            self.stop.wait(0.5)
            return
        except Exception:  # a bug: keep the daemon alive, the trace in the log, and catch up
            self._failed("batch failed:\n" + traceback.format_exc())
            self._reconcile()
            return
        for notice in report.notices:
            self._say("warning", f"warning: {notice}")
        if not (report.files or report.removed):
            return  # only deleted attachments and the like: nothing the index knew
        self._record_batch(report, started)

    def _cover_unwatched(self, folders: list[str]) -> None:
        """Look for folders inotify does not watch under ``folders`` (where folders
        changed), say so once, and rescan them when due (``WatchCoverage``)."""
        if self.coverage is None:
            return
        warning = self.coverage.look(folders)
        if warning is not None:
            self._say("warning", f"warning: {warning}", unwatched=self.coverage.count)
        self.status.unwatched_folders = self.coverage.count
        self.status.warnings = [self.coverage.warning] if self.coverage.warning else []
        self.coverage.rescan_if_due(self._rescan_unwatched)

    def _rescan_unwatched(self, folders: list[str]) -> None:
        """The stat-based run over folders no event comes from: quiet unless it found a
        change (then logged as a batch); a busy index is tried again on the next rescan."""
        started = time.perf_counter()
        try:
            report = self.vault.index_paths([], folders, should_stop=self.stop.is_set)
        except (Interrupted, IndexLockedError):
            return
        except (VaultmemError, OSError) as exc:
            self.guard.check()  # the vault is gone: stop, do not retry
            self._failed(f"rescan of folders inotify does not watch failed: {exc}")
            return
        for notice in report.notices:
            self._say("warning", f"warning: {notice}")
        if report.changed or report.removed:
            self._record_batch(report, started)
            self._last_change = time.monotonic()
            if self.embedder is not None:
                self.embedder.poke((), folders)

    def _record_batch(self, report: IndexReport, started: float) -> None:
        """Count, log and keep in the status file one indexed batch."""
        ms = (time.perf_counter() - started) * 1000
        self.status.batches += 1
        self.status.last_batch = {
            "at": time.time(),
            "files": report.files,
            "changed": report.changed,
            "removed": report.removed,
            "chunks": report.written,
            "ms": round(ms, 1),
        }
        self._say(
            "batch",
            f"batch: {report.files} files ({report.changed} changed, {report.removed} removed), "
            f"{report.written} chunks written, {ms:.0f} ms",
            **self.status.last_batch,
        )

    def _git_chores(self) -> None:
        """Commit after ``autocommit`` seconds of quiet; sync every ``sync_every`` seconds."""
        now = time.monotonic()
        try:
            if self.sync_every is not None and now - self._last_sync >= self.sync_every:
                self._last_sync = now
                self._last_change = None
                result = self.vault.sync()
                self._say(
                    "sync",
                    f"sync with {result.remote}: {len(result.pulled)} files from the merge",
                    remote=result.remote,
                    pulled=result.pulled,
                    pushed=result.pushed,
                    conflicts=[{"note": note, "copy": copy} for note, copy in result.conflicts],
                )
                for note, copy in result.conflicts:
                    self._say(
                        "warning",
                        f"warning: sync conflict: {note} kept; the other side is in {copy}",
                    )
            elif (
                self.autocommit is not None
                and self._last_change is not None
                and now - self._last_change >= self.autocommit
            ):
                self._last_change = None
                made = self.vault.commit()
                if made is not None:
                    self._say(
                        "commit",
                        f"commit {made.sha[:10]}: {made.message}",
                        commit={
                            "sha": made.sha,
                            "message": made.message,
                            "files": list(made.files),
                        },
                    )
        except VaultmemError as exc:
            self._failed(f"git: {exc}")

    def _rebuild_deleted_index(self) -> None:
        """Build the index again after its file was deleted, unless the whole vault was:
        after a short wait (a ``rm -rf`` of the vault is still at work), the vault is
        checked again.

        Raises:
            VaultNotFoundError: the vault was moved or deleted.
        """
        self.stop.wait(INDEX_GONE_GRACE)
        self.guard.check()
        self.vault.close()
        report = self.vault.index()
        if self.embedder is not None:
            self.embedder.poke(everything=True)
        self._say(
            "rebuilt",
            f"index file was deleted; rebuilt: {report.summary()}",
            index=_report_fields(report),
        )

    def _failed(self, message: str) -> None:
        self.status.errors += 1
        self.status.last_error = message
        self._say("error", f"error: {message}")

    def _say(self, kind: str, message: str, **fields: Any) -> None:
        """One event: the log line for people, and the same as an object for programs."""
        self.log(message)
        if self.events is not None:
            self.events({"event": kind, "at": time.time(), "message": message, **fields})

    def _write_status(self, *, force: bool = False, running: bool = True) -> None:
        """Refresh ``watch.json`` when something changed, at most once a second: an idle
        daemon never touches the disk."""
        now = time.time()
        if not force and now - self._status_written < 1.0:
            return
        data = json.dumps(asdict(self.status) | {"running": running}, indent=2).encode()
        if data == self._status_data or not self.guard.present():
            return  # unchanged, or the vault is gone: nothing is written at its old path
        self._status_written, self._status_data = now, data
        with contextlib.suppress(OSError):
            atomic_write(self.status_path, data)


@contextlib.contextmanager
def running_watcher(
    vault: VaultView, log: Log | None = None, **options: float | None
) -> Iterator[threading.Event]:
    """Run a ``Watcher`` on ``vault`` in a background thread (for tests and embedding);
    yields its stop event once it is watching, and stops it on exit. The watcher closes
    the vault when it stops: give it a ``Vault`` of its own."""
    stop = threading.Event()
    ready = threading.Event()
    errors: list[BaseException] = []

    def target() -> None:
        try:
            Watcher(vault, log or (lambda line: None), **options).run(stop, ready.set)  # type: ignore[arg-type]
        except BaseException as exc:
            errors.append(exc)
            ready.set()

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    ready.wait(timeout=120)
    if errors:
        raise errors[0]
    try:
        yield stop
    finally:
        stop.set()
        thread.join(timeout=10)
