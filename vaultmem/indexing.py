"""An index run: decide from stats which notes to read (``plan_changes``, pure), turn each
changed note into index rows (``prepare_file``: read, parse, chunk) in forked worker
processes when there is enough work, and write them in one transaction
(``update_index``, which ``Vault.index`` and ``Vault.index_paths`` call). The SQL itself
lives in ``index.py``.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import json
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .chunk import Chunk, make_chunks
from .config import IndexConfig
from .errors import Interrupted
from .files import FileStat, printable, read_note, scan_notes, stat_note
from .index import FREE_PAGES_PER_STEP, Index, IndexedState, KnownFiles
from .index_write import FileRecord
from .parse import parse_document
from .terms import note_names

if TYPE_CHECKING:
    from concurrent.futures import Future

# A file modified this close to the moment we read it may change again within the same
# mtime tick without its size changing; such "racy" files are re-hashed next time (as git does).
RACY_NS = 2_000_000_000
_DAILY_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})\.md$")


@dataclass(frozen=True)
class ChangePlan:
    """What an incremental index run must do, decided from stats alone."""

    to_read: list[FileStat]
    to_delete: list[str]
    unchanged: int


def plan_changes(
    stats: Iterable[FileStat], states: dict[str, IndexedState], racy_ns: int = RACY_NS
) -> ChangePlan:
    """Decide which files to read and which to drop, from stats alone (pure).

    A file whose size and mtime match the index is unchanged, unless it was modified within
    ``racy_ns`` of being read: then only a content hash can tell, so it is read again.
    """
    trusted = {
        (path, state.size, state.mtime_ns)
        for path, state in states.items()
        if state.indexed_ns - state.mtime_ns > racy_ns
    }
    others = {
        path for path, state in states.items() if state.indexed_ns - state.mtime_ns <= racy_ns
    }
    return plan_known(stats, KnownFiles(trusted, others))


def plan_known(stats: Iterable[FileStat], known: KnownFiles) -> ChangePlan:
    """``plan_changes`` over the sets ``Index.known_files`` reads (pure): a stat whose
    ``(path, size, mtime_ns)`` is trusted is unchanged, any other is read, and a known path
    no stat names is dropped (looked for only when some trusted file was not matched)."""
    to_read: list[FileStat] = []
    seen: set[str] = set()
    trusted = known.trusted
    unchanged = 0
    for stat in stats:
        seen.add(stat[0])
        if stat[:3] in trusted:  # (path, size, mtime_ns): FileStat is a named tuple
            unchanged += 1
        else:
            to_read.append(stat)
    gone = known.others - seen
    if unchanged < len(trusted):  # a trusted file no stat matched: changed, or gone
        gone |= {path for path, _, _ in trusted} - seen
    return ChangePlan(to_read, sorted(gone), unchanged)


Prepared = tuple[FileRecord, list[Chunk]]
Job = tuple[str, FileStat, str | None, int, int]
# Below this many files, starting worker processes costs more than it saves.
PARALLEL_MIN_FILES = 400


def prepare_file(job: Job) -> Prepared | None:
    """Read, parse and chunk one note; ``None`` when its content hash is unchanged.

    A top-level function of plain arguments, so worker processes can run it. It does not
    raise: a note that fails for a reason nobody foresaw is recorded with the error as its
    warning, and every other note is still indexed.
    """
    try:
        return _prepare(*job)
    except Exception as exc:  # one bad note must not stop the whole index run
        stat = job[1]
        warning = f"skipped: could not be indexed ({type(exc).__name__}: {exc})"
        return FileRecord(stat.path, stat.size, stat.mtime_ns, "", None, {}, (), (warning,)), []


def _prepare(
    root: str, stat: FileStat, old_hash: str | None, max_bytes: int, max_chars: int
) -> Prepared | None:
    if stat.skip_reason is not None:
        warning = f"skipped: {stat.skip_reason}"
        return FileRecord(stat.path, stat.size, stat.mtime_ns, "", None, {}, (), (warning,)), []
    read = read_note(Path(root) / stat.path, max_bytes)
    if read.size or read.mtime_ns:  # the stat of the bytes actually read, if it moved on
        stat = FileStat(stat.path, read.size, read.mtime_ns)
    if old_hash is not None and read.content_hash == old_hash:
        return None
    if read.text is None:
        return FileRecord(
            stat.path, stat.size, stat.mtime_ns, read.content_hash, None, {}, (), read.warnings
        ), []
    doc = parse_document(read.text)
    record = FileRecord(
        path=stat.path,
        size=stat.size,
        mtime_ns=stat.mtime_ns,
        hash=read.content_hash,
        date=_file_date(stat.path, doc.frontmatter),
        frontmatter=doc.frontmatter,
        tags=tuple(dict.fromkeys(doc.tags)),
        warnings=(*read.warnings, *doc.warnings),
        names=note_names(stat.path, doc.frontmatter),
    )
    return record, make_chunks(doc.blocks, max_chars, record.names)


# Notes a worker process takes at a time, and how many such batches may be under way or
# waiting to be written at once: the run's memory is bounded by that window, not by the
# vault (``Executor.map`` would submit every note at once and keep every result the writer
# had not reached yet: hundreds of MB at 100,000 notes).
BATCH_NOTES = 32
BATCHES_AHEAD = 8


def prepare_batch(jobs: list[Job]) -> list[Prepared | None]:
    """``prepare_file`` over a batch of notes (one round trip to a worker process)."""
    return [prepare_file(job) for job in jobs]


@contextlib.contextmanager
def parallel_map(jobs: int) -> Iterator[Callable[[Iterable[Job]], Iterable[Prepared | None]]]:
    """``map`` for ``prepare_file``: in worker processes when there is enough work.

    Parsing is CPU-bound Python and native code, so a second process uses the second core
    while this one writes to SQLite. Results come back in order, and at most
    ``BATCHES_AHEAD`` batches of ``BATCH_NOTES`` notes are submitted ahead of the one being
    written, so a writer slower than the workers holds them back instead of piling up
    their results.

    Workers are forked, and only where forking is safe: on Linux, from a process with no
    other thread. "spawn" would re-import the caller's main module in every worker, which
    breaks any script without an ``if __name__ == "__main__"`` guard; elsewhere the work
    simply runs in this process.
    """
    workers = min(os.cpu_count() or 1, 4)
    forkable = sys.platform == "linux" and threading.active_count() == 1
    if jobs < PARALLEL_MIN_FILES or workers < 2 or not forkable:
        yield lambda items: map(prepare_file, items)
        return
    import multiprocessing  # imported here: a search or a small update never needs them
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("fork")
    pool = ProcessPoolExecutor(
        workers, mp_context=context, initializer=die_with_parent, initargs=(os.getpid(),)
    )

    def bounded(items: Iterable[Job]) -> Iterator[Prepared | None]:
        pending: collections.deque[Future[list[Prepared | None]]] = collections.deque()
        batches = _batches(items, BATCH_NOTES)
        for batch in itertools.islice(batches, BATCHES_AHEAD):
            pending.append(pool.submit(prepare_batch, batch))
        while pending:
            done = pending.popleft().result()
            for batch in itertools.islice(batches, 1):
                pending.append(pool.submit(prepare_batch, batch))
            yield from done

    with pool:
        yield bounded


def _batches(items: Iterable[Job], size: int) -> Iterator[list[Job]]:
    """``items`` in lists of ``size`` (the last one shorter)."""
    it = iter(items)
    while batch := list(itertools.islice(it, size)):
        yield batch


# prctl(2) option: the signal the kernel sends this process when its parent dies.
_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """Pool initializer: make a worker end when the process that forked it ends.

    A forked worker inherits the write end of its own task pipe, so it never sees EOF:
    after a ``kill -9`` of ``vaultmem index`` it would wait for work forever (issue 12).
    On Linux the kernel kills it (``PR_SET_PDEATHSIG``); the parent pid is checked after
    asking, in case the parent died before the request took effect. Where ``prctl`` is
    missing, a thread watches the parent pid instead.
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        asked = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):  # not Linux
        asked = False
    if os.getppid() != parent:
        os._exit(1)
    if not asked:
        threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True).start()


def _exit_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _file_date(path: str, frontmatter: dict[str, object]) -> str | None:
    """A daily note's date from its name, else the ``date`` or ``created`` property."""
    match = _DAILY_NAME.search(path)
    if match:
        return match.group(1)
    for key in ("date", "created"):
        value = frontmatter.get(key)
        if isinstance(value, str) and re.match(r"\d{4}-\d{2}-\d{2}", value):
            return value[:10]
    return None


@dataclass
class IndexReport:
    """The outcome of an ``index`` or ``reindex`` run."""

    files: int = 0
    read: int = 0
    changed: int = 0
    removed: int = 0
    chunks: int | None = None  # in the whole index, after a full run (not counted for index_paths)
    written: int = 0  # chunk rows inserted (unchanged chunks of a changed note keep theirs)
    seconds: float = 0.0
    notices: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line for people: what was done and how long it took."""
        chunks = (
            f"{self.chunks} chunks" if self.chunks is not None else f"{self.written} chunks written"
        )
        return (
            f"{self.files} files ({self.changed} changed, {self.removed} removed), "
            f"{chunks} in {self.seconds:.2f} s"
        )


Progress = Callable[[int, int], None]


def update_index(
    db: Index,
    root: Path,
    config: IndexConfig,
    notices: list[str],
    *,
    progress: Progress | None = None,
    rebuild: bool = False,
    scope: tuple[list[str], list[str]] | None = None,
    should_stop: Callable[[], bool] | None = None,
    brief: bool = False,
) -> IndexReport:
    """Bring ``db`` up to date with the notes under ``root``: all of them, or with ``scope``
    the given paths and folders only; with ``rebuild``, from scratch. One transaction: a
    reader in another process sees the old index or the new one. What happened on its own
    (settings changed, a wait) is added to ``notices``.

    Raises:
        Interrupted: ``should_stop`` returned true; nothing of the run was written.
        IndexLockedError: another process held the index past the wait.
    """
    started = time.perf_counter()
    report = IndexReport()
    exclude = config.exclude
    settings = json.dumps(
        {
            "chunk_max_chars": config.chunk_max_chars,
            "max_file_bytes": config.max_file_bytes,
        },
        sort_keys=True,
    )
    # The plan is made under the write lock: no other writer between. A brief run (the
    # daemon's, remember's) waits only the busy timeout; any other waits for a run in
    # another process to finish, then finds only what that run left to do.
    wait = None if brief else config.run_wait_ms
    with db.batch(wait):
        if db.waited >= 1:
            notices.append(f"waited {db.waited:.0f} s for another index run to finish")
        if not rebuild and db.get_meta("settings") not in (None, settings):
            notices.append("index settings in config.toml changed; rebuilding the index")
            rebuild = True
        if rebuild:
            db.reset()
            scope = None
        if db.get_meta("settings") != settings:
            # Written only when it changes: any write renews the index's generation, which
            # makes search rebuild its vector matrix; a no-op run writes nothing.
            db.set_meta("settings", settings)
        bulk = db.is_empty()
        if scope is None:
            stats: Iterable[FileStat] = scan_notes(root, exclude)
            known = KnownFiles(set(), set()) if bulk else db.known_files(RACY_NS)
        else:
            paths, folders = scope
            found = (stat_note(root, path, exclude) for path in paths)
            stats = [stat for stat in found if stat is not None]
            stats += [s for folder in folders for s in scan_notes(root, exclude, folder)]
            # A file name that is not UTF-8 is recorded under its escaped form.
            known = db.known_files(RACY_NS, map(printable, paths), map(printable, folders))
        plan = plan_known(stats, known)
        report.files = plan.unchanged + len(plan.to_read)
        # Hashes only of what changed: a note read again whose content hash is the same
        # is only touched, and a vanished note's hash finds where it was renamed to.
        hashes = {} if bulk else db.hashes([*(s.path for s in plan.to_read), *plan.to_delete])
        # Made as the workers take them, not all at once (100,000 of them at a rebuild).
        jobs: Iterator[Job] = (
            (
                str(root),
                stat,
                hashes.get(stat.path),
                config.max_file_bytes,
                config.chunk_max_chars,
            )
            for stat in plan.to_read
        )
        # A note that vanished while another appeared with the same content was renamed.
        vanished = {hashes[path]: path for path in plan.to_delete if hashes.get(path)}
        renamed: set[str] = set()
        loading = db.bulk_load() if bulk else contextlib.nullcontext()
        with loading, parallel_map(len(plan.to_read)) as mapper:
            results = zip(plan.to_read, mapper(jobs), strict=True)
            for done, (stat, prepared) in enumerate(results, 1):
                if should_stop is not None and should_stop():
                    raise Interrupted("index run stopped; nothing of it was written")
                report.read += 1
                if prepared is None:
                    db.touch_file(stat.path, stat.size, stat.mtime_ns)
                else:
                    renamed_from = vanished.pop(prepared[0].hash, None)
                    if renamed_from is not None:
                        db.rename_file(renamed_from, stat.path)
                        renamed.add(renamed_from)
                    report.written += db.replace_file(*prepared)
                    report.changed += 1
                if progress is not None:
                    progress(done, len(plan.to_read))
            for path in plan.to_delete:
                if path not in renamed:
                    db.delete_file(path)
            report.removed = len(plan.to_delete)
    # After the transaction: pages the run freed (deleted notes, FTS5 merges, a rebuild
    # of a larger index) go back to the file system, a step at a time for small runs.
    db.release_free_pages(None if rebuild or bulk else FREE_PAGES_PER_STEP)
    if scope is None:  # counting 300,000 rows is not for the daemon's hot path
        report.chunks = db.counts()["chunks"]
    report.seconds = time.perf_counter() - started
    return report
