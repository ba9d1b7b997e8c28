"""A live index for a long-running process (the MCP server): the watch machinery in a
background thread, and ``settle()``, which makes a read see every edit made before it.

Why not a stat walk per call: on a 10,000-note vault it costs more than the whole search.
Why not only ``vaultmem watch``: a server must be fresh whether or not a person runs the
daemon, and its next search must see an edit made a moment before, which a daemon in
another process cannot promise.

How ``settle`` works: inotify queues the events of all the folders it watches for us in one
stream, in the order they happened. ``settle`` creates (and at once removes) a *barrier*
file named by a new token in ``.vaultmem/tmp/`` (inside the watched tree, never indexed)
and waits until the indexing thread has taken that file's event off its queue and indexed
every note change queued before it. So a search after ``settle`` sees every edit that
finished before the search began, by any process, with no scan. One file per token,
because inotify merges repeated events on one file. A batch closes as soon as a barrier
arrives (no quiet period), so an idle settle costs one event round trip.

This process never takes the one-daemon-per-vault lock: a ``vaultmem watch`` daemon (for
autocommit and sync) may run beside any number of servers. When one runs, the server skips
its start-up reconcile (the daemon keeps the index current); changed notes are then stat-ed
by both, which is cheap (an unchanged hash is not written again).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from watchdog.events import FileSystemEvent
from watchdog.observers.api import BaseObserver

from vaultmem.daemon.coverage import Change, VaultGuard, WatchCoverage, batch_scope
from vaultmem.daemon.events import EventFilter, OverflowAlarm, start_observer
from vaultmem.errors import VaultmemError, VaultNotFoundError
from vaultmem.notes.state import PRIVATE_DIR_MODE, STATE_DIR, TEMP_DIR
from vaultmem.notes.watch_lock import daemon_pid

if TYPE_CHECKING:
    from vaultmem.vault import Vault

BARRIER = "barrier"
# How long a read waits for the indexing thread before it reads what the index holds.
SETTLE_TIMEOUT = 5.0
# While changes keep coming, a batch is cut after this long (as the daemon does).
MAX_BATCH_SECONDS = 1.0
Log = Callable[[str], None]


class _BarrierFilter(EventFilter):
    """The daemon's filter, plus: the creation of one of our barrier files is queued as a
    barrier carrying its token."""

    def __init__(self, root: Path, exclude: tuple[str, ...], changes: queue.Queue[Change]) -> None:
        super().__init__(root, exclude, changes)
        self.folder = root / STATE_DIR / TEMP_DIR
        self._prefix = os.fsdecode(self.folder / f"live-{os.getpid()}-")

    def barrier(self, token: int) -> Path:
        return Path(f"{self._prefix}{token}")

    def on_any_event(self, event: FileSystemEvent) -> None:
        src = os.fsdecode(event.src_path)
        if src.startswith(self._prefix):
            if event.event_type == "created":
                self.changes.put((BARRIER, src[len(self._prefix) :]))
            return
        super().on_any_event(event)


class LiveIndex:
    """Keeps ``vault``'s index following its files from a background thread.

    ``vault`` is this thread's own ``Vault`` (its own SQLite connection); it is closed on
    ``stop``.

    Folders inotify cannot watch (its watch limit reached) are said once and rescanned
    (a stat of their notes) before each read passes, so a read still sees their edits.
    When the vault is moved or deleted, the thread says so in one line and stops, never
    making anything at the old path, then calls ``on_gone`` (the server exits).
    """

    def __init__(self, vault: Vault, log: Log, on_gone: Callable[[], None] | None = None) -> None:
        self.vault = vault
        self.log = log
        self.on_gone = on_gone
        self.guard = VaultGuard(vault.root)
        self._changes: queue.Queue[Change] = queue.Queue()
        self._filter = _BarrierFilter(vault.root, vault.config.index.exclude, self._changes)
        self._tokens = itertools.count(1)
        # The highest barrier token the indexing thread has passed: every change queued
        # before it is indexed. Tokens are taken in order, so passing token t also passes
        # every earlier settle (its call began before t was taken, hence before t's event).
        self._passed = 0
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._observer: BaseObserver | None = None
        self._coverage: WatchCoverage | None = None
        self._alarm = OverflowAlarm()
        self.running = False

    def start(self) -> None:
        """Start watching; then reconcile once (unless a daemon keeps the index) and index
        each batch of changes. Without inotify (too many folders, say) the server still
        serves, from an index that follows only its own writes: it says so in the log."""
        try:
            # Inside .vaultmem, which is never made here (the vault may be gone already).
            self._filter.folder.mkdir(mode=PRIVATE_DIR_MODE, exist_ok=True)
            # Reads wait on the barrier folder's events: it is watched whatever the limit.
            observer, self._coverage = start_observer(
                self._filter, reserve=self._filter.folder, covered_by="rescanned before each read"
            )
        except OSError as exc:
            self.log(
                f"warning: cannot watch {self.vault.root} ({exc.strerror or exc}); edits made "
                "outside this server are seen after `vaultmem index` or a `vaultmem watch`"
            )
            return
        logging.getLogger("watchdog").addHandler(self._alarm)
        self._observer = observer
        self.running = True
        self._thread = threading.Thread(target=self._run, name="vaultmem-live", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread and the observer."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
        logging.getLogger("watchdog").removeHandler(self._alarm)
        self.vault.close()
        self.running = False

    def settle(self, timeout: float = SETTLE_TIMEOUT) -> bool:
        """Wait until every edit that finished before this call is in the index. False if
        not watching, or the thread did not get there within ``timeout`` (then the caller
        reads what the index holds: a stale answer beats none)."""
        if not self.running:
            return False
        with self._cond:
            token = next(self._tokens)
        barrier = self._filter.barrier(token)
        try:
            os.close(os.open(barrier, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except OSError:  # .vaultmem/tmp/ removed, say: read what the index holds
            return False
        finally:
            with contextlib.suppress(OSError):
                barrier.unlink()
        with self._cond:
            return self._cond.wait_for(lambda: self._passed >= token, timeout)

    # -- the indexing thread ------------------------------------------------------------

    def _run(self) -> None:
        try:
            if daemon_pid(self.vault.root) is None:
                self._reconcile()
            self._cover_unwatched([""], 0)  # the whole vault, once
            while not self._stop.is_set():
                batch, token = self._next_batch()
                self.guard.check()  # on every batch, and at least four times a second
                overflowed = self._alarm.raised.is_set()
                if overflowed:
                    self._alarm.raised.clear()
                    self.log("warning: the kernel dropped file events; reconciling the vault")
                    self._reconcile()
                elif batch:
                    self._apply(batch)
                self._cover_unwatched([""] if overflowed else batch_scope(batch)[1], token)
                if token:
                    with self._cond:
                        self._passed = max(self._passed, token)
                        self._cond.notify_all()
        except VaultNotFoundError as exc:  # moved or deleted: one line, and no more work
            # The guard's words, whichever step found it.
            self.log(f"error: {exc if self.guard.present() else self.guard.message}")
            self._give_up()
            if self.on_gone is not None:
                self.on_gone()
        except Exception as exc:  # a bug: reads still work, from what the index holds
            self.log(f"error: the live index stopped: {exc!r}")
            self._give_up()

    def _give_up(self) -> None:
        """Stop following edits: settles no longer wait, reads answer from the index."""
        self.running = False
        with self._cond:
            self._passed = 1 << 62
            self._cond.notify_all()

    def _cover_unwatched(self, folders: list[str], token: int) -> None:
        """Say once which folders inotify does not watch (looking under ``folders``, where
        folders changed); before a read passes (``token``), rescan them, since no event
        would tell of an edit there."""
        if self._coverage is None:
            return
        warning = self._coverage.look(folders)
        if warning is not None:
            self.log(f"warning: {warning}")
        if token and self._coverage.unwatched:
            self._apply({("folder", folder) for folder in self._coverage.unwatched})

    def _next_batch(self) -> tuple[set[Change], int]:
        """The changes queued until a barrier (its token, else 0), a pause of 20 ms, or
        ``MAX_BATCH_SECONDS`` of a continuous stream."""
        batch: set[Change] = set()
        wait, deadline = 0.25, float("inf")  # idle: wake now and then to see whether to stop
        while wait > 0:
            try:
                kind, rel = self._changes.get(timeout=wait)
            except queue.Empty:
                break
            if kind == BARRIER:
                return batch, int(rel)
            if not batch:
                deadline = time.monotonic() + MAX_BATCH_SECONDS
            batch.add((kind, rel))
            wait = min(0.02, deadline - time.monotonic())
        return batch, 0

    def _apply(self, batch: set[Change]) -> None:
        paths, folders = batch_scope(batch)
        try:
            report = self.vault.index_paths(paths, folders, should_stop=self._stop.is_set)
        except VaultmemError as exc:  # locked by a long reindex elsewhere, say: catch up later
            self.guard.check()  # the vault is gone: stop, do not retry
            self.log(f"warning: {len(batch)} changes not indexed yet: {exc}")
            for item in batch:
                self._changes.put(item)
            self._stop.wait(0.5)
            return
        for notice in report.notices:
            self.log(f"warning: {notice}")

    def _reconcile(self) -> None:
        try:
            self.vault.index(should_stop=self._stop.is_set)
        except VaultmemError as exc:
            self.guard.check()  # the vault is gone: stop
            self.log(f"warning: the index was not brought up to date: {exc}")
