"""An index run: decide from stats which notes to read (``plan_changes``, pure), turn each
changed note into index rows (``prepare_file``: read, parse, chunk) in forked worker
processes when there is enough work, and write them in one transaction
(``update_index``, which ``Vault.index`` and ``Vault.index_paths`` call). The SQL itself
lives in ``index.py``.
"""

from __future__ import annotations

import contextlib
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

from .chunk import Chunk, make_chunks
from .config import IndexConfig
from .errors import Interrupted
from .files import FileStat, printable, read_note, scan_notes, stat_note
from .index import Index, IndexedState
from .index_write import FileRecord
from .parse import parse_document
from .terms import note_names

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
    to_read: list[FileStat] = []
    seen: set[str] = set()
    unchanged = 0
    for stat in stats:
        seen.add(stat.path)
        state = states.get(stat.path)
        if (
            state is not None
            and state.size == stat.size
            and state.mtime_ns == stat.mtime_ns
            and state.indexed_ns - state.mtime_ns > racy_ns
        ):
            unchanged += 1
        else:
            to_read.append(stat)
    return ChangePlan(to_read, sorted(set(states) - seen), unchanged)


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
    return record, make_chunks(doc.blocks, max_chars)


@contextlib.contextmanager
def parallel_map(jobs: int) -> Iterator[Callable[[list[Job]], Iterable[Prepared | None]]]:
    """``map`` for ``prepare_file``: in worker processes when there is enough work.

    Parsing is CPU-bound Python and native code, so a second process uses the second core
    while this one writes to SQLite. Results come back in order.

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
    with pool:
        yield lambda items: pool.map(prepare_file, items, chunksize=32)


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
        db.set_meta("settings", settings)
        bulk = db.is_empty()
        if scope is None:
            stats = list(scan_notes(root, exclude))
            states = {} if bulk else db.states()
        else:
            paths, folders = scope
            found = (stat_note(root, path, exclude) for path in paths)
            stats = [stat for stat in found if stat is not None]
            stats += [s for folder in folders for s in scan_notes(root, exclude, folder)]
            # A file name that is not UTF-8 is recorded under its escaped form.
            states = db.states_for(map(printable, paths), map(printable, folders))
        report.files = len(stats)
        plan = plan_changes(stats, states)
        jobs: list[Job] = [
            (
                str(root),
                stat,
                states[stat.path].hash if stat.path in states else None,
                config.max_file_bytes,
                config.chunk_max_chars,
            )
            for stat in plan.to_read
        ]
        # A note that vanished while another appeared with the same content was renamed.
        vanished = {states[path].hash: path for path in plan.to_delete if states[path].hash}
        renamed: set[str] = set()
        loading = db.bulk_load() if bulk else contextlib.nullcontext()
        with loading, parallel_map(len(jobs)) as mapper:
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
                    progress(done, len(jobs))
            for path in plan.to_delete:
                if path not in renamed:
                    db.delete_file(path)
            report.removed = len(plan.to_delete)
    if scope is None:  # counting 300,000 rows is not for the daemon's hot path
        report.chunks = db.counts()["chunks"]
    report.seconds = time.perf_counter() - started
    return report
