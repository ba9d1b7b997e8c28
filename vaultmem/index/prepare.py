"""One changed note turned into index rows: read (``files.read_note``), parsed
(``parse.py``), chunked (``chunk.py``), in forked worker processes when there is enough
work (``parallel_map``). An index run (``runs.py``) imports this module only when some
note did change: a no-op run needs none of it.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from vaultmem.index.chunk import Chunk, make_chunks
from vaultmem.index.terms import note_names
from vaultmem.index.writer import FileRecord
from vaultmem.notes.files import FileStat, read_note
from vaultmem.notes.parse import parse_document
from vaultmem.workers import can_fork, in_order, pool

if TYPE_CHECKING:
    from vaultmem.index.text import Packer

_DAILY_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})\.md$")

Prepared = tuple[FileRecord, list[Chunk]]
Job = tuple[str, FileStat, str | None, int, int]
# Below this many files, starting worker processes costs more than it saves.
PARALLEL_MIN_FILES = 400


# How the run under way stores chunk texts (``index_text.packer``), set by ``parallel_map``
# before it forks the workers: they inherit it and compress what they chunk, which would
# otherwise be a fifth of the writer's work.
_pack: Packer | None = None


def prepare_file(job: Job) -> Prepared | None:
    """Read, parse and chunk one note; ``None`` when its content hash is unchanged.

    A top-level function of plain arguments, so worker processes can run it. It does not
    raise: a note that fails for a reason nobody foresaw is recorded with the error as its
    warning, and every other note is still indexed.
    """
    try:
        prepared = _prepare(*job)
        if prepared is None or _pack is None:
            return prepared
        record, chunks = prepared
        return record, [chunk._replace(stored=_pack(chunk.text)) for chunk in chunks]
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
# vault. A batch is also cut at ``BATCH_BYTES`` of notes: the writer waits for a batch
# whole, and one very large note among many small ones held it up while the other worker
# had nothing to do. The figures behind these: docs/benchmarks.md, "Choices in the code".
BATCH_NOTES = 128
BATCHES_AHEAD = 8
BATCH_BYTES = 1 << 20


def prepare_batch(jobs: list[Job]) -> list[Prepared | None]:
    """``prepare_file`` over a batch of notes (one round trip to a worker process)."""
    return [prepare_file(job) for job in jobs]


@contextlib.contextmanager
def parallel_map(
    jobs: int, pack: Packer | None = None
) -> Iterator[Callable[[Iterable[Job]], Iterable[Prepared | None]]]:
    """``map`` for ``prepare_file``: in worker processes when there is enough work, each
    chunk's text packed for the index with ``pack`` when given.

    Parsing is CPU-bound Python and native code, so a second process uses the second core
    while this one writes to SQLite. Results come back in order, and at most
    ``BATCHES_AHEAD`` batches of ``BATCH_NOTES`` notes are submitted ahead of the one being
    written, so a writer slower than the workers holds them back instead of piling up
    their results (``workers.in_order``).

    Workers are forked, and only where forking is safe (``workers.can_fork``): "spawn"
    would re-import the caller's main module in every worker, which breaks any script
    without an ``if __name__ == "__main__"`` guard; elsewhere the work simply runs in this
    process.
    """
    global _pack
    _pack = pack
    try:
        with _mapper(jobs) as mapper:
            yield mapper
    finally:
        _pack = None


@contextlib.contextmanager
def _mapper(jobs: int) -> Iterator[Callable[[Iterable[Job]], Iterable[Prepared | None]]]:
    processes = min(os.cpu_count() or 1, 4)
    if jobs < PARALLEL_MIN_FILES or processes < 2 or not can_fork():
        yield lambda items: map(prepare_file, items)
        return

    with pool(processes) as executor:

        def bounded(items: Iterable[Job]) -> Iterator[Prepared | None]:
            batches = _batches(items, BATCH_NOTES, BATCH_BYTES)
            for done in in_order(executor, prepare_batch, batches, BATCHES_AHEAD):
                yield from done

        yield bounded


def _batches(items: Iterable[Job], size: int, most_bytes: int) -> Iterator[list[Job]]:
    """``items`` in lists of ``size``, each cut short once its notes hold ``most_bytes``."""
    batch: list[Job] = []
    held = 0
    for job in items:
        batch.append(job)
        held += job[1].size
        if len(batch) >= size or held >= most_bytes:
            yield batch
            batch, held = [], 0
    if batch:
        yield batch


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
