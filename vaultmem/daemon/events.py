"""File-system events to batches of changes, for the watch daemon (``watch.py``) and the MCP
server's live index (``agent/live.py``).

``EventFilter`` turns watchdog's events into ``Change`` items, notes and folders only;
``start_observer`` starts a watchdog observer asking the kernel only for ``WATCHED_EVENTS``;
``OverflowAlarm`` hears when the kernel dropped events (watchdog says so only in its log),
so the whole vault is reconciled; ``next_batch`` coalesces the changes: after the first
one of a batch it waits only until they stop for ``quiet`` seconds, so a lone save is
indexed at once while an editor's burst of events, or a ``git checkout`` of a thousand
files, becomes one batch; during a continuous stream a batch is cut every ``max_wait``
seconds.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from pathlib import Path
from typing import Any

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from vaultmem.daemon.coverage import Change, WatchCoverage, inotify_fds
from vaultmem.notes.files import is_note_path

# Only these reach us: asking the kernel for less (no open/close events, which our own
# reads would cause too) keeps its event queue from overflowing in a large burst.
WATCHED_EVENTS: list[type[FileSystemEvent]] = [
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
]


class EventFilter(FileSystemEventHandler):
    """Turns watchdog events into ``Change`` items: notes and folders only; dot-folders
    (``.git``, ``.obsidian``, ``.vaultmem``), excluded folders, swap, backup and temp files
    dropped. Folder *modified* events are dropped too: they accompany every file event."""

    def __init__(self, root: Path, exclude: tuple[str, ...], changes: queue.Queue[Change]) -> None:
        self.root = os.fsdecode(root)
        self.exclude = exclude
        self.changes = changes

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        if event.is_directory and event.event_type == "modified":
            return
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if not raw:
                continue
            rel = os.path.relpath(os.fsdecode(raw), self.root).replace(os.sep, "/")
            if rel.startswith(".."):
                continue
            if event.is_directory:
                if rel != "." and is_note_path(rel + "/x.md", self.exclude):
                    self.changes.put(("folder", rel))
            elif is_note_path(rel, self.exclude) or self._maybe_link(os.fsdecode(raw), rel):
                self.changes.put(("file", rel))

    def _maybe_link(self, path: str, rel: str) -> bool:
        """A symlink of any name (to a folder, a loop) is recorded by the scan with why it
        is not followed: pass one that exists, and any path that is gone (it may have been
        one; if the index does not know it, its batch changes nothing)."""
        if not is_note_path(rel + ".md", self.exclude):  # a dot-name or an excluded folder
            return False
        return os.path.islink(path) or not os.path.lexists(path)


class OverflowAlarm(logging.Handler):
    """watchdog reports a kernel event-queue overflow only in its log: listen there, so the
    daemon knows events were lost and reconciles the whole vault."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.raised = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if "overflow" in record.getMessage().lower():
            self.raised.set()


def start_observer(
    handler: EventFilter, *, reserve: Path | None = None, **coverage: Any
) -> tuple[BaseObserver, WatchCoverage]:
    """A started watchdog observer sending every event under ``handler.root`` to
    ``handler`` (only ``WATCHED_EVENTS``), and the coverage of its watches.

    With ``reserve``, that folder is watched first, on its own, so it is watched whatever
    the watch limit leaves for the rest (the live index's barrier folder: reads wait on
    its events). Its own events go nowhere: those of the vault's watch, which then shares
    the folder's watch, carry it in their order.

    Raises:
        OSError: the vault's folder (or ``reserve``) cannot be watched.
    """
    before = inotify_fds()
    observer = Observer()
    try:
        if reserve is not None:
            observer.schedule(FileSystemEventHandler(), str(reserve), event_filter=WATCHED_EVENTS)
        observer.start()
        observer.schedule(handler, handler.root, recursive=True, event_filter=WATCHED_EVENTS)
    except OSError:
        observer.stop()  # its inotify thread runs from the start
        raise
    fds = inotify_fds() - before
    return observer, WatchCoverage(Path(handler.root), handler.exclude, fds, **coverage)


def next_batch(
    changes: queue.Queue[Change],
    stop: threading.Event,
    *,
    quiet: float = 0.02,
    max_wait: float = 1.0,
    idle: float = 0.25,
) -> set[Change]:
    """Wait for the next batch of changes; an empty set after ``idle`` seconds of nothing.

    A batch closes when no change arrives for ``quiet`` seconds, or ``max_wait`` seconds
    after its first change, whichever comes first.
    """
    try:
        first = changes.get(timeout=idle)
    except queue.Empty:
        return set()
    batch = {first}
    deadline = time.monotonic() + max_wait
    while not stop.is_set():
        remaining = min(quiet, deadline - time.monotonic())
        if remaining <= 0:
            break
        try:
            batch.add(changes.get(timeout=remaining))
        except queue.Empty:
            break
    return batch
