"""An index run: decide from stats which notes to read (``plan_changes``, pure;
``plan_scan``, the walk of a whole vault), have each changed note turned into index rows
(``prepare.py``: read, parse, chunk, in worker processes when there is enough work), and
write them in one transaction (``update_index``, which ``Vault.index`` and
``Vault.index_paths`` call). The SQL itself lives in ``database.py``.

A no-op run (nothing changed) is a stat of every note and one read of the ``files`` table:
``prepare.py`` and what it needs (the parser, the chunker, hashlib) are not even imported.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from vaultmem.config import IndexConfig
from vaultmem.errors import Interrupted, VaultNotFoundError
from vaultmem.index.database import SCOPED_CACHE_KIB, Index, IndexedState, KnownFiles
from vaultmem.index.vacuum import FREE_PAGES_PER_STEP, release_free_pages
from vaultmem.notes.files import FileStat, printable, scan_notes, stat_note

if TYPE_CHECKING:
    from vaultmem.index.prepare import Job
    from vaultmem.index.text import Packer

# A file modified this close to the moment we read it may change again within the same
# mtime tick without its size changing; such "racy" files are re-hashed next time (as git does).
RACY_NS = 2_000_000_000


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


def plan_scan(root: Path, exclude: tuple[str, ...], known: KnownFiles) -> ChangePlan:
    """``plan_known`` for the whole vault, walked once: ``known.trusted`` is consumed.

    The walk takes each note whose stat it finds in ``known.trusted`` out of that set
    instead of yielding it (``scan_notes``' ``unchanged``); what it yields (new, changed
    and odd entries) is planned against what is left, in which a known file the walk did
    not meet is gone. A no-op run of 100,000 notes so keeps no object per note: the
    comparison cost a third of its time.
    """
    trusted = known.trusted
    before = len(trusted)
    stats = list(scan_notes(root, exclude, unchanged=trusted))
    plan = plan_known(stats, known)
    return ChangePlan(plan.to_read, plan.to_delete, plan.unchanged + before - len(trusted))


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
        VaultNotFoundError: ``root`` is gone; nothing was written.
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
    limit = db.cache_limited(SCOPED_CACHE_KIB) if scope is not None else contextlib.nullcontext()
    with limit, db.batch(wait):
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
            known = KnownFiles(set(), set()) if bulk else db.known_files(RACY_NS)
            plan = plan_scan(root, exclude, known)
        else:
            paths, folders = scope
            found = (stat_note(root, path, exclude) for path in paths)
            stats = [stat for stat in found if stat is not None]
            stats += [s for folder in folders for s in scan_notes(root, exclude, folder)]
            # A file name that is not UTF-8 is recorded under its escaped form.
            known = db.known_files(RACY_NS, map(printable, paths), map(printable, folders))
            plan = plan_known(stats, known)
        report.files = plan.unchanged + len(plan.to_read)
        if plan.to_delete and not root.is_dir():
            # The walk found nothing because the vault is gone (moved under a running
            # daemon, say), not because its notes are: its index keeps them.
            raise VaultNotFoundError(
                f"{root} does not exist any more: the vault was moved or deleted; "
                "its index was left as it was"
            )
        if plan.to_read or plan.to_delete:
            _apply(db, root, config, plan, report, bulk, should_stop, progress)
    # After the transaction: pages the run freed (deleted notes, FTS5 merges, a rebuild
    # of a larger index) go back to the file system, a step at a time for small runs.
    release_free_pages(db.conn, db.path, None if rebuild or bulk else FREE_PAGES_PER_STEP)
    if scope is None:  # counting 300,000 rows is not for the daemon's hot path
        report.chunks = db.counts()["chunks"]
    report.seconds = time.perf_counter() - started
    return report


def _apply(
    db: Index,
    root: Path,
    config: IndexConfig,
    plan: ChangePlan,
    report: IndexReport,
    bulk: bool,
    should_stop: Callable[[], bool] | None,
    progress: Progress | None,
) -> None:
    """Carry out a plan inside the run's transaction: read what changed (``prepare.py``),
    write its rows, drop what is gone; counted into ``report``."""
    # Imported here: a no-op run never reads a note (the parser, the chunker, hashlib).
    from vaultmem.index.prepare import PARALLEL_MIN_FILES, parallel_map

    # Hashes only of what changed: a note read again whose content hash is the same
    # is only touched, and a vanished note's hash finds where it was renamed to.
    hashes = {} if bulk else db.hashes([*(s.path for s in plan.to_read), *plan.to_delete])

    def job(stat: FileStat) -> Job:
        return str(root), stat, hashes.get(stat.path), config.max_file_bytes, config.chunk_max_chars

    # Made as the workers take them, not all at once (100,000 of them at a rebuild).
    jobs: Iterator[Job] = map(job, plan.to_read)
    pack = db.texts.current()
    if pack is None and bulk and len(plan.to_read) >= PARALLEL_MIN_FILES:
        step = max(1, len(plan.to_read) // _SAMPLE_NOTES)
        pack = _dictionary_from_sample(db, [job(stat) for stat in plan.to_read[::step]])
    # A note that vanished while another appeared with the same content was renamed.
    vanished = {hashes[path]: path for path in plan.to_delete if hashes.get(path)}
    renamed: set[str] = set()
    loading = db.bulk_load() if bulk else contextlib.nullcontext()
    with loading, parallel_map(len(plan.to_read), pack) as mapper:
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


# A rebuild with worker processes trains the index's text dictionary (``text.py``)
# on this many notes, spread over the vault, before they start, so that they pack the
# texts, not the writer (a fifth of its work); if those notes hold fewer than
# ``TRAIN_MIN`` chunks, or there are no workers, the writer trains it once the index
# holds that many.
_SAMPLE_NOTES = 200


def _dictionary_from_sample(db: Index, sample: list[Job]) -> Packer | None:
    from vaultmem.index.prepare import prepare_file
    from vaultmem.index.text import TRAIN_MIN

    texts = [chunk.text for p in map(prepare_file, sample) if p is not None for chunk in p[1]]
    return db.texts.train(texts) if len(texts) >= TRAIN_MIN else None
