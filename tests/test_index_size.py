"""What the index costs to keep: its file size (each path, kind and heading stored once,
free pages given back), a no-op run that writes and checks nothing it need not, and an
index run whose memory is bounded by a window of notes, not by the vault."""

from __future__ import annotations

import os
import sqlite3
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import write

import vaultmem.index.prepare
from vaultmem import Vault
from vaultmem.index.prepare import BATCH_NOTES, BATCHES_AHEAD, Job, parallel_map, prepare_file
from vaultmem.index.vacuum import FREE_PAGES_MIN
from vaultmem.index.writer import packed_chunk_id
from vaultmem.notes.files import scan_notes


def note(i: int, words: int = 40) -> str:
    line = " ".join(f"word{(i * 7 + j) % 997}" for j in range(words))
    return f"# Note {i}\n\n## Part\n\n" + "".join(f"- {line} {k} ^b{k}\n" for k in range(12))


def file_size(vault_path: Path) -> int:
    """The index file's size once no connection holds it (its WAL checkpointed in)."""
    return (vault_path / ".vaultmem/index.db").stat().st_size


def pages(vault_path: Path) -> tuple[int, int]:
    """The index file's pages and how many of them are free (read by another connection
    once the vault is closed)."""
    conn = sqlite3.connect(vault_path / ".vaultmem/index.db")
    try:
        return conn.execute("SELECT * FROM pragma_page_count(), pragma_freelist_count()").fetchone()
    finally:
        conn.close()


def test_the_file_shrinks_back_after_many_notes_come_and_go(vault_path: Path) -> None:
    for i in range(50):
        write(vault_path, f"keep/{i}.md", note(i))
    with Vault(vault_path) as vault:
        vault.index()
        found = len(vault.search("word5", limit=1000))
    before = file_size(vault_path)
    peaks, afters, left_free = [], [], []
    for cycle in range(4):
        with Vault(vault_path) as vault:
            for i in range(300):
                write(vault_path, f"come/{cycle}-{i}.md", note(1000 + i))
            vault.index()
            peaks.append(vault.db.conn.execute("PRAGMA page_count").fetchone()[0] * 4096)
            for i in range(300):
                (vault_path / f"come/{cycle}-{i}.md").unlink()
            vault.index()
            assert len(vault.search("word5", limit=1000)) == found
        total, free = pages(vault_path)
        afters.append(total * 4096)
        left_free.append(free)
    # The 300 notes took room while they were there; their pages went back to the file
    # system when they left (not all: FTS5 keeps their deletions until a merge, and a run
    # releases free pages once they are FREE_PAGES_MIN), and the file does not grow from
    # one cycle to the next.
    assert min(peaks) > before * 3
    assert all(free < FREE_PAGES_MIN for free in left_free), left_free
    used = [after - free * 4096 for after, free in zip(afters, left_free, strict=True)]
    assert all(u < peak * 0.8 for u, peak in zip(used, peaks, strict=True)), (used, peaks)
    assert max(used) < used[0] * 1.5, used


def test_edits_through_the_daemon_write_path_keep_the_file_bounded(vault_path: Path) -> None:
    for i in range(60):
        write(vault_path, f"n/{i}.md", note(i))
    with Vault(vault_path) as vault:
        vault.index()
        start = vault.db.conn.execute("PRAGMA page_count").fetchone()[0]
        sizes = []
        for step in range(120):
            i = step % 60
            if step % 3 == 2:
                (vault_path / f"n/{i}.md").unlink(missing_ok=True)
            else:
                write(vault_path, f"n/{i}.md", note(i + step * 60, words=10 + step % 50))
            vault.index_paths([f"n/{i}.md"])
            sizes.append(vault.db.conn.execute("PRAGMA page_count").fetchone()[0])
    assert max(sizes[60:]) < start * 1.5, (start, sizes)


def test_a_no_op_run_writes_nothing_and_does_not_read_the_whole_file(vault_path: Path) -> None:
    for i in range(20):
        path = write(vault_path, f"n/{i}.md", note(i))
        os.utime(path, (time.time() - 3600,) * 2)  # not "racy": no re-read to tell it apart
    os.utime(vault_path / "MEMORY.md", (time.time() - 3600,) * 2)
    with Vault(vault_path) as vault:
        vault.index()
        generation = vault.db.get_meta("generation")
    statements: list[str] = []
    with Vault(vault_path, tracer=statements.append) as vault:
        assert vault.index().changed == 0
        # A write renews the generation, and search then rebuilds its vector matrix.
        assert vault.db.get_meta("generation") == generation
    assert not [s for s in statements if "quick_check" in s]
    writes = [s for s in statements if s.split()[0].upper() in ("INSERT", "UPDATE", "DELETE")]
    assert writes == []


def test_chunk_ids_are_stored_as_integers_and_read_back_as_written(vault_path: Path) -> None:
    write(vault_path, "a.md", "- same\n- same\n- other\n")
    with Vault(vault_path) as vault:
        vault.index()
        stored = vault.db.conn.execute(
            "SELECT typeof(r.chunk_id), c.chunk_id FROM chunk_rows r JOIN chunks c USING (id)"
            " WHERE c.path = 'a.md' ORDER BY r.id"
        ).fetchall()
    assert [kind for kind, _ in stored] == ["integer", "text", "integer"]
    assert stored[1][1] == stored[0][1] + "-2"
    assert all(len(chunk_id.split("-")[0]) == 16 for _, chunk_id in stored)
    for chunk_id in ("ffffffffffffffff", "0000000000000000", "8000000000000000"):
        packed = packed_chunk_id(chunk_id)
        assert isinstance(packed, int)
        back = sqlite3.connect(":memory:").execute("SELECT printf('%016x', ?)", (packed,))
        assert back.fetchone()[0] == chunk_id
    assert packed_chunk_id("ABCDEF0123456789") == "ABCDEF0123456789"  # would not print back


def test_paths_and_headings_are_stored_once(vault_path: Path) -> None:
    write(vault_path, "folder/a note.md", note(1))
    with Vault(vault_path) as vault:
        vault.index()
        conn = vault.db.conn
        columns = {r[1] for r in conn.execute("PRAGMA table_info(chunk_rows)")}
        headings = conn.execute(
            "SELECT text FROM headings h JOIN files f ON f.id = h.file"
            " WHERE f.path = 'folder/a note.md' ORDER BY n"
        ).fetchall()
        under_part = conn.execute(
            "SELECT COUNT(*) FROM chunks WHERE path = 'folder/a note.md'"
            " AND heading = 'Note 1 > Part'"
        ).fetchone()[0]
    assert "path" not in columns
    assert headings == [("Note 1",), ("Note 1 > Part",)]
    assert under_part == 13  # the "## Part" line and its 12 items


@pytest.fixture
def many_notes(tmp_path: Path) -> Path:
    for i in range(2000):
        write(tmp_path, f"n/{i}.md", f"- note {i}\n")
    return tmp_path


PREPARED_LOG = Path()  # where ``counted_prepare`` records the notes it prepared


def counted_prepare(job: Job) -> object:
    """``prepare_file`` that appends its process id to ``PREPARED_LOG``, one line a note.
    Module-level, so a worker process can unpickle it by name; forked workers inherit the
    patch and the log's path."""
    with open(PREPARED_LOG, "a") as out:
        out.write(f"{os.getpid()}\n")
    return prepare_file(job)


def prepared_ahead(root: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many of the notes under ``root`` the parallel index run prepares while its
    writer holds the first one."""
    log = root / "prepared.log"
    monkeypatch.setattr(sys.modules[__name__], "PREPARED_LOG", log)
    monkeypatch.setattr(vaultmem.index.prepare, "prepare_file", counted_prepare)
    jobs: list[Job] = [(str(root), s, None, 1 << 20, 2000) for s in scan_notes(root, ())]
    if threading.active_count() != 1:
        pytest.skip("worker processes are forked only from a process with no other thread")
    with parallel_map(len(jobs)) as mapper:
        results = iter(mapper(jobs))
        next(results)
        # The writer holds its first note; wait until the workers stop preparing more.
        seen, quiet_since = -1, time.monotonic()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and time.monotonic() - quiet_since < 2.0:
            count = len(log.read_text().splitlines()) if log.exists() else 0
            if count != seen:
                seen, quiet_since = count, time.monotonic()
            time.sleep(0.05)
        pids = set(log.read_text().split())
        assert len(list(results)) == len(jobs) - 1
    assert str(os.getpid()) not in pids  # prepared in worker processes
    return seen


def test_the_parallel_index_run_prepares_only_a_window_ahead_of_the_writer(
    many_notes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert 0 < prepared_ahead(many_notes, monkeypatch) <= (BATCHES_AHEAD + 1) * BATCH_NOTES < 2000


def test_a_batch_of_large_notes_is_cut_short_by_their_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(600):
        write(tmp_path, f"n/{i}.md", f"- note {i} " + "word " * 200 + "\n")  # 1 kB each
    monkeypatch.setattr(vaultmem.index.prepare, "BATCH_BYTES", 4000)  # four notes a batch
    assert 0 < prepared_ahead(tmp_path, monkeypatch) <= (BATCHES_AHEAD + 1) * 4


def test_an_index_of_an_older_version_is_recreated_in_incremental_vacuum_mode(
    vault_path: Path,
) -> None:
    write(vault_path, "a.md", note(1))
    db = vault_path / ".vaultmem/index.db"
    old = sqlite3.connect(db)  # as schema version 8 made it: no auto-vacuum
    old.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
        "INSERT INTO meta VALUES ('schema_version', '8'), ('app', 'vaultmem');"
        "CREATE TABLE files (path TEXT PRIMARY KEY);"
    )
    old.close()
    with Vault(vault_path) as vault:
        vault.index()
        assert vault.db.conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # incremental
        assert {h.path for h in vault.search("word7")} == {"a.md"}
