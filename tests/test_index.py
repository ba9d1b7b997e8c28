"""The shadow index: incremental runs, rebuilds, and every kind of bad input."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import write

from vaultmem import IndexLockedError, Vault, VaultmemError
from vaultmem.index.chunk import make_chunks
from vaultmem.index.database import SCHEMA_VERSION, SCOPED_CACHE_KIB, IndexedState
from vaultmem.index.runs import plan_changes
from vaultmem.index.text import TextStore
from vaultmem.notes.files import FileStat
from vaultmem.notes.parse import parse_document


def rows(vault: Vault, sql: str, *params: object) -> list[tuple[object, ...]]:
    """Query the index file through a fresh connection, as another process would."""
    conn = sqlite3.connect(vault.index_path)
    TextStore.register(conn)  # the chunks view reads texts with it
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def chunk_rows(vault: Vault) -> list[tuple[object, ...]]:
    return rows(
        vault,
        "SELECT path, chunk_id, kind, line_start, line_end, heading, text, block_id, date"
        " FROM chunks ORDER BY path, line_start, chunk_id",
    )


def test_index_is_incremental(vault: Vault) -> None:
    write(vault.root, "a.md", "# A\n\nalpha words\n")
    write(vault.root, "b.md", "# B\n\nbeta words\n")
    first = vault.index()
    assert (first.changed, first.removed) == (3, 0)  # a, b and MEMORY.md
    assert vault.index().changed == 0  # racy re-reads may happen, but nothing changed
    write(vault.root, "a.md", "# A\n\nalpha words zebrafish\n")
    (vault.root / "b.md").unlink()
    again = vault.index()
    assert (again.changed, again.removed) == (1, 1)
    assert [r[0] for r in rows(vault, "SELECT path FROM files ORDER BY path")] == [
        "MEMORY.md",
        "a.md",
    ]
    assert vault.search("beta") == []
    assert [h.text for h in vault.search("zebrafish")] == ["alpha words zebrafish"]


def test_unchanged_blocks_keep_their_rows_when_the_file_changes(vault: Vault) -> None:
    write(vault.root, "memory/2026-01-01.md", "- first ^a\n- second ^b\n")
    vault.index()
    before = dict(rows(vault, "SELECT chunk_id, id FROM chunks WHERE path LIKE 'memory/%'"))
    write(vault.root, "memory/2026-01-01.md", "- inserted\n- first ^a\n- second ^b\n")
    vault.index()
    after = dict(rows(vault, "SELECT chunk_id, id FROM chunks WHERE path LIKE 'memory/%'"))
    assert {k: after[k] for k in before} == before
    assert rows(vault, "SELECT line_start FROM chunks WHERE block_id = 'b'") == [(3,)]


def test_chunk_ids_are_deterministic_and_size_bounded() -> None:
    doc = parse_document("# H\n\n" + "word " * 1000 + "\n\n- item\n")
    chunks = make_chunks(doc.blocks, max_chars=1000)
    assert all(len(c.text) <= 1000 for c in chunks)
    assert [c.chunk_id for c in chunks] == [c.chunk_id for c in make_chunks(doc.blocks, 1000)]
    paragraph_parts = [c for c in chunks if c.kind == "paragraph"]
    assert len(paragraph_parts) == 5
    assert {(c.line_start, c.line_end) for c in paragraph_parts} == {(3, 3)}
    assert "".join(c.text for c in paragraph_parts) == "word " * 1000


def test_reindex_equals_incremental(vault: Vault) -> None:
    write(vault.root, "x.md", "# X\n\n- one #t\n- two [[Y]]\n")
    vault.index()
    write(vault.root, "x.md", "# X\n\n- zero\n- one #t\n- two [[Y]]\n")
    write(vault.root, "y.md", "hello")
    vault.index()
    incremental = chunk_rows(vault)
    vault.reindex()
    assert chunk_rows(vault) == incremental


def test_links_tags_fields_are_indexed(vault: Vault) -> None:
    write(
        vault.root,
        "facts/people.md",
        "---\ntags: [people]\n---\n- Alice likes tea #pref [importance:: 0.8] [[Alice]] ^f1\n",
    )
    vault.index()
    assert rows(
        vault, "SELECT tag, chunk IS NULL FROM tags WHERE path = 'facts/people.md' ORDER BY tag"
    ) == [
        ("people", 1),
        ("pref", 0),
    ]
    assert rows(vault, "SELECT target, embed FROM links") == [("Alice", 0)]
    assert rows(vault, "SELECT key, value FROM fields") == [("importance", "0.8")]
    assert rows(
        vault, "SELECT block_id FROM chunks WHERE path = 'facts/people.md' AND kind = 'item'"
    ) == [("f1",)]


def warnings_of(vault: Vault, path: str) -> list[str]:
    found = rows(vault, "SELECT warnings FROM files WHERE path = ?", path)
    assert found, f"{path} has no files row"
    return json.loads(str(found[0][0])) if found[0][0] else []


def test_bad_files_are_skipped_or_indexed_with_warnings(vault: Vault, tmp_path: Path) -> None:
    write(vault.root, "binary.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    write(vault.root, "latin1.md", "caf\xe9 cr\xe8me".encode("latin-1") + b" brulee\n")
    write(vault.root, "bom.md", "\ufeff# Bom title\n\nbom body\n")
    write(vault.root, "crlf.md", "# Crlf\r\n\r\ncrlf body\r\n")
    write(vault.root, "empty.md", "")
    write(vault.root, "yaml.md", "---\ntitle: [broken\n---\nyaml body survives\n")
    outside = write(tmp_path, "outside/secret.md", "secret words outside")
    os.symlink(outside, vault.root / "link.md")
    originals = {p: p.read_bytes() for p in vault.root.glob("*.md")}
    vault.index()
    assert warnings_of(vault, "binary.md") == ["skipped: binary file (contains NUL bytes)"]
    assert "invalid UTF-8 at byte 3" in warnings_of(vault, "latin1.md")[0]
    assert [h.path for h in vault.search("brulee")] == ["latin1.md"]
    # The BOM is not part of the heading: both lines are found (order is bm25's).
    assert sorted(h.matched for h in vault.search("bom", context=0)) == ["# Bom title", "bom body"]
    hit = vault.search("crlf body")[0]
    assert (hit.line_start, hit.text) == (3, "crlf body")
    assert warnings_of(vault, "empty.md") == []
    assert "malformed YAML frontmatter" in warnings_of(vault, "yaml.md")[0]
    assert vault.search("survives")[0].path == "yaml.md"
    assert "symlink leading outside the vault" in warnings_of(vault, "link.md")[0]
    assert vault.search("secret") == []
    # Nothing vaultmem read was changed.
    assert {p: p.read_bytes() for p in vault.root.glob("*.md")} == originals


def test_size_limit_and_a_ten_megabyte_single_line(vault_path: Path) -> None:
    (vault_path / ".vaultmem/config.toml").write_text("[index]\nmax_file_bytes = 12000000\n")
    write(vault_path, "huge.md", "x" * 13_000_000)
    write(vault_path, "long.md", ("lorem ipsum " * 900_000)[:10_000_000] + " needle")
    with Vault(vault_path) as vault:
        vault.index()
        assert "over index.max_file_bytes" in warnings_of(vault, "huge.md")[0]
        hits = vault.search("needle")
        assert [(h.path, h.line_start, h.line_end) for h in hits] == [("long.md", 1, 1)]
        # 10,000,007 characters: 5001 chunks of at most 2000, all on line 1.
        assert rows(vault, "SELECT COUNT(*) FROM chunks WHERE path = 'long.md'")[0][0] == 5001


def test_a_file_built_to_crash_the_native_parser_is_indexed_as_text(vault_path: Path) -> None:
    write(vault_path, "bomb.md", "start words\n" + ">" * 200_000 + "\nend words\n")
    write(vault_path, "stars.md", "*" * 100_000 + "a" + "*" * 100_000 + "\n")
    # In a child process: if the guard failed, the crash would take pytest down with it.
    done = subprocess.run(
        [sys.executable, "-m", "vaultmem", "index", "--vault", str(vault_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    with Vault(vault_path) as vault:
        assert "parsed as plain text" in warnings_of(vault, "bomb.md")[0]
        assert vault.search("end words")[0].path == "bomb.md"
        # 200,001 characters on one line: 101 chunks of at most chunk_max_chars (2000).
        assert rows(vault, "SELECT COUNT(*) FROM chunks WHERE path = 'stars.md'") == [(101,)]


@pytest.mark.parametrize(
    "content",
    [b"this is not a database at all" * 100, b"SQLite format 3\x00" + b"\xff" * 4000],
)
def test_a_corrupt_index_is_rebuilt_from_the_files(vault: Vault, content: bytes) -> None:
    write(vault.root, "note.md", "recoverable words\n")
    vault.index()
    vault.close()
    vault.index_path.write_bytes(content)
    report = vault.index()
    assert any("rebuilt from the files" in n for n in report.notices)
    assert vault.search("recoverable")[0].path == "note.md"


def test_a_foreign_or_old_index_is_rebuilt(vault: Vault) -> None:
    write(vault.root, "note.md", "kept words\n")
    vault.close()
    conn = sqlite3.connect(vault.index_path)
    conn.execute("CREATE TABLE other (x)")
    conn.commit()
    conn.close()
    assert any("not a vaultmem index" in n for n in vault.index().notices)
    vault.close()
    conn = sqlite3.connect(vault.index_path)
    conn.execute("UPDATE meta SET value = '0' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    notices = vault.index().notices
    assert any(f"schema version 0, not {SCHEMA_VERSION}" in n for n in notices)
    assert vault.search("kept")[0].path == "note.md"


def test_a_locked_index_waits_then_gives_a_clear_error(vault_path: Path) -> None:
    (vault_path / ".vaultmem/config.toml").write_text(
        "[index]\nbusy_timeout_ms = 200\nrun_wait_ms = 300\n"
    )
    write(vault_path, "note.md", "words\n")
    with Vault(vault_path) as vault:
        vault.index()
        write(vault_path, "note.md", "new words\n")
        blocker = sqlite3.connect(vault.index_path)
        blocker.execute("BEGIN EXCLUSIVE")
        try:
            with pytest.raises(IndexLockedError, match="kept writing the index for 0.3 s"):
                vault.index()
        finally:
            blocker.rollback()
            blocker.close()
        assert vault.index().changed == 1


def test_racy_edits_within_one_mtime_tick_are_not_missed(vault: Vault) -> None:
    note = write(vault.root, "racy.md", "aaaa\n")
    vault.index()
    stat = note.stat()
    note.write_text("bbbb\n")  # same size, and the mtime put back as it was
    os.utime(note, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    vault.index()
    assert vault.search("bbbb")[0].path == "racy.md"


def test_an_index_run_over_given_paths_holds_a_smaller_page_cache(vault: Vault) -> None:
    """It comes on top of what its caller holds (a large consolidation's heap): the cache
    is held to SCOPED_CACHE_KIB while it runs, and is as it was afterwards."""
    for n in range(3):
        write(vault.root, f"n{n}.md", f"- note {n}\n")
    vault.index()
    conn = vault._keeper.db.conn
    before = conn.execute("PRAGMA cache_size").fetchone()[0]
    seen: list[int] = []

    def look() -> bool:
        seen.append(conn.execute("PRAGMA cache_size").fetchone()[0])
        return False

    write(vault.root, "n0.md", "- note 0, changed\n")
    vault.index_paths(["n0.md"], should_stop=look)
    assert seen == [-SCOPED_CACHE_KIB] and before == -65536
    assert conn.execute("PRAGMA cache_size").fetchone()[0] == before
    seen.clear()
    write(vault.root, "n1.md", "- note 1, changed\n")
    vault.index(should_stop=look)  # a whole vault's run keeps the large cache
    assert seen and set(seen) == {before}


def test_a_run_that_trusts_stats_still_sees_every_kind_of_edit(vault: Vault) -> None:
    # Notes last changed an hour ago: their stats are trusted (not racy), so each run
    # decides from size and mtime_ns alone which notes to read; this is the path of a
    # no-op run of a large vault, where the walk drops each note whose stat it knows.
    hour_ago = time.time_ns() - 3600 * 10**9

    def put(rel: str, text: str, mtime_ns: int = hour_ago) -> Path:
        note = write(vault.root, rel, text)
        os.utime(note, ns=(mtime_ns, mtime_ns))
        return note

    put("MEMORY.md", "# Memory\n")
    put("a.md", "alpha one\n")
    put("sub/b.md", "beta two\n")
    put("sub/deep/c.md", "gamma three\n")
    put("d.md", "delta four\n")
    put("e.md", "- epsilon five ^e1\n")
    put("überall.md", "umlaut six\n")  # a non-ASCII name takes the walk's slower path
    assert vault.index().files == 7
    noop = vault.index()
    assert (noop.files, noop.read, noop.changed, noop.removed) == (7, 0, 0, 0)

    put("a.md", "alpha owl\n", hour_ago + 10**9)  # same size, another mtime
    put("sub/b.md", "beta twofold\n")  # another size, the same mtime
    put("sub/new.md", "zeta seven\n")  # new, with an old mtime
    (vault.root / "d.md").unlink()
    (vault.root / "e.md").rename(vault.root / "sub/deep/e2.md")  # keeps its mtime
    os.utime(vault.root / "sub/deep/c.md", ns=(hour_ago + 5, hour_ago + 5))  # touched only
    report = vault.index()
    assert (report.files, report.read, report.changed, report.removed) == (7, 5, 4, 2)
    assert [h.path for h in vault.search("owl")] == ["a.md"]
    assert [h.path for h in vault.search("twofold")] == ["sub/b.md"]
    assert [h.path for h in vault.search("zeta")] == ["sub/new.md"]
    assert vault.search("delta") == []
    assert [h.path for h in vault.search("epsilon")] == ["sub/deep/e2.md"]
    again = vault.index()
    assert (again.files, again.read, again.changed, again.removed) == (7, 0, 0, 0)
    incremental = chunk_rows(vault)
    vault.reindex()
    assert chunk_rows(vault) == incremental


def test_parallel_and_serial_indexing_agree(vault: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(60):
        write(
            vault.root,
            f"memory/2026-01-{i % 28 + 1:02d}-{i}.md",
            f"# Day {i}\n\n- item {i} 预算{i}\n",
        )
    monkeypatch.setattr("vaultmem.index.prepare.PARALLEL_MIN_FILES", 10)
    vault.reindex()
    parallel = chunk_rows(vault)
    monkeypatch.setattr("vaultmem.index.prepare.PARALLEL_MIN_FILES", 10_000)
    vault.reindex()
    assert chunk_rows(vault) == parallel


def test_odd_files_do_not_stop_the_run(vault: Vault) -> None:
    os.mkfifo(vault.root / "pipe.md")  # reading it would block forever
    write(vault.root, os.fsdecode(b"caf\xe9.md"), "latin-1 name\n")
    future = write(vault.root, "future.md", "from the future\n")
    os.utime(future, ns=(2**62 + 5, 2**62 + 5))
    write(vault.root, "fine.md", "fine words\n")
    vault.index()
    assert vault.search("fine")[0].path == "fine.md"
    assert vault.search("future")[0].path == "future.md"
    assert "not valid UTF-8" in warnings_of(vault, "caf\\xe9.md")[0]
    assert rows(vault, "SELECT COUNT(*) FROM files WHERE path = 'pipe.md'") == [(0,)]


def test_an_unexpected_failure_in_one_note_is_recorded_not_fatal(
    vault: Vault, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(vault.root, "bad.md", "explode here\n")
    write(vault.root, "good.md", "good words\n")

    def explode(text: str):  # type: ignore[no-untyped-def]
        if "explode" in text:
            raise RuntimeError("boom")
        return parse_document(text)

    monkeypatch.setattr("vaultmem.index.prepare.parse_document", explode)
    vault.index()
    assert warnings_of(vault, "bad.md") == ["skipped: could not be indexed (RuntimeError: boom)"]
    assert vault.search("good")[0].path == "good.md"


def test_changed_chunk_settings_rebuild_the_index(vault_path: Path) -> None:
    write(vault_path, "a.md", "word " * 200 + "\n")
    with Vault(vault_path) as vault:
        vault.index()
        assert rows(vault, "SELECT COUNT(*) FROM chunks WHERE path = 'a.md'") == [(1,)]
    (vault_path / ".vaultmem/config.toml").write_text("[index]\nchunk_max_chars = 300\n")
    with Vault(vault_path) as vault:
        report = vault.index()
        assert any("settings in config.toml changed" in n for n in report.notices)
        assert rows(vault, "SELECT COUNT(*) FROM chunks WHERE path = 'a.md'") == [(4,)]


def corrupt_one_page(db: Path) -> None:
    """Overwrite a page in the middle of the file, as a failing disk would."""
    data = bytearray(db.read_bytes())
    page = len(data) // 4096 // 2
    data[page * 4096 : page * 4096 + 4096] = b"\xa5" * 4096
    db.write_bytes(bytes(data))


@pytest.mark.parametrize("operation", ["index", "status", "search"])
def test_a_corrupt_page_is_repaired_by_any_command(vault_path: Path, operation: str) -> None:
    for i in range(300):
        write(
            vault_path, f"memory/2026-01-{i % 28 + 1:02d}-{i}.md", f"- entry {i} searchable words\n"
        )
    with Vault(vault_path) as vault:
        vault.index()
        vault.db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    corrupt_one_page(vault_path / ".vaultmem/index.db")
    with Vault(vault_path) as vault:
        if operation == "index":
            vault.index()
        elif operation == "status":
            assert vault.status().files == 301
        else:
            assert len(vault.search("searchable", limit=1000)) == 300
        assert len(vault.search("searchable", limit=1000)) == 300


def test_concurrent_processes_indexing_and_searching_a_new_vault(vault_path: Path) -> None:
    for i in range(150):
        write(vault_path, f"memory/2026-02-{i % 28 + 1:02d}-{i}.md", f"- budget line {i}\n")
    commands = [["index"], ["index"], ["search", "budget", "--json"], ["reindex"], ["index"]]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "vaultmem", *cmd, "--vault", str(vault_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for cmd in commands
    ]
    outcomes = [(proc.communicate(timeout=120), proc.returncode) for proc in procs]
    for (_out, err), code in outcomes:
        assert code == 0, err
        assert "Traceback" not in err
    assert len(json.loads(outcomes[2][0][0])) == 10  # the search waited for a built index
    with Vault(vault_path) as vault:
        counts = rows(
            vault, "SELECT COUNT(*), COUNT(DISTINCT path || '#' || chunk_id) FROM chunks"
        )[0]
        assert counts[0] == counts[1]
        assert len(vault.search("budget", limit=1000)) == 150
        incremental = chunk_rows(vault)
        vault.reindex()
        assert chunk_rows(vault) == incremental


def test_a_tracer_sees_the_sql(vault_path: Path) -> None:
    statements: list[str] = []
    write(vault_path, "a.md", "traced words\n")
    with Vault(vault_path, tracer=statements.append) as vault:
        vault.search("traced")
    assert any("chunks_fts MATCH" in s for s in statements)


def test_damage_inside_the_chunks_table_is_found_and_repaired(vault_path: Path) -> None:
    for i in range(200):
        write(vault_path, f"memory/2026-03-{i % 28 + 1:02d}-{i}.md", f"- the flies were loud {i}\n")
    with Vault(vault_path) as vault:
        vault.index()
        vault.db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        root_page = vault.db.conn.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'chunk_rows'"
        ).fetchone()[0]
    db = vault_path / ".vaultmem/index.db"
    data = bytearray(db.read_bytes())
    start = (root_page - 1) * 4096 + 10
    data[start : start + 3000] = b"\xff" * 3000
    db.write_bytes(bytes(data))
    with Vault(vault_path) as vault:
        assert len(vault.search("flies", limit=1000)) == 200
        assert any("was corrupt" in n for n in vault.notices)


def test_an_index_path_that_is_a_folder_is_a_clear_error_and_nothing_is_deleted(
    vault_path: Path,
) -> None:
    folder = vault_path / ".vaultmem/index.db"
    folder.mkdir()
    (folder / "keep.txt").write_text("mine")
    with Vault(vault_path) as vault, pytest.raises(VaultmemError, match="cannot use the index"):
        vault.index()
    assert (folder / "keep.txt").read_text() == "mine"


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_a_read_only_index_is_a_clear_error_and_is_not_deleted(vault_path: Path) -> None:
    write(vault_path, "a.md", "words\n")
    with Vault(vault_path) as vault:
        vault.index()
    db = vault_path / ".vaultmem/index.db"
    db.chmod(0o444)
    write(vault_path, "a.md", "other words\n")
    try:
        with Vault(vault_path) as vault, pytest.raises(VaultmemError, match="cannot use the index"):
            vault.index()
        assert db.exists()
    finally:
        db.chmod(0o644)


def test_the_change_plan_is_decided_from_stats_alone() -> None:
    second = 1_000_000_000
    states = {
        "same.md": IndexedState(10, 5 * second, "h1", 100 * second),
        "touched.md": IndexedState(10, 5 * second, "h2", 100 * second),
        "racy.md": IndexedState(10, 99 * second, "h3", 100 * second),
        "gone.md": IndexedState(10, 5 * second, "h4", 100 * second),
    }
    stats = [
        FileStat("same.md", 10, 5 * second),
        FileStat("touched.md", 10, 6 * second),
        FileStat("racy.md", 10, 99 * second),
        FileStat("new.md", 3, 7 * second),
    ]
    plan = plan_changes(stats, states)
    assert [s.path for s in plan.to_read] == ["touched.md", "racy.md", "new.md"]
    assert plan.to_delete == ["gone.md"]
    assert plan.unchanged == 1
    assert [s.path for s in plan_changes(stats, states, racy_ns=0).to_read] == [
        "touched.md",
        "new.md",
    ]


def test_a_renamed_note_keeps_its_chunk_rows(vault: Vault) -> None:
    write(vault.root, "old.md", "- one ^a\n- two ^b\n")
    write(vault.root, "twin.md", "- same\n")
    write(vault.root, "twin2.md", "- same\n")
    vault.index()
    before = rows(vault, "SELECT chunk_id, id FROM chunks WHERE path = 'old.md' ORDER BY 1")
    (vault.root / "old.md").rename(vault.root / "new.md")
    (vault.root / "twin.md").unlink()
    (vault.root / "twin2.md").unlink()
    report = vault.index()
    assert report.removed == 3
    assert rows(vault, "SELECT chunk_id, id FROM chunks WHERE path = 'new.md' ORDER BY 1") == before
    assert rows(vault, "SELECT COUNT(*) FROM files WHERE path LIKE 'twin%'") == [(0,)]
    incremental = chunk_rows(vault)
    vault.reindex()
    assert chunk_rows(vault) == incremental


def test_index_paths_updates_only_what_it_is_told(vault: Vault) -> None:
    write(vault.root, "a.md", "alpha\n")
    write(vault.root, "dir/b.md", "beta\n")
    write(vault.root, "dir/sub/c.md", "gamma\n")
    vault.index()
    write(vault.root, "a.md", "alpha two\n")
    write(vault.root, "z.md", "zeta\n")
    (vault.root / "dir/sub/c.md").unlink()
    write(vault.root, "dir/sub/d.md", "delta\n")
    report = vault.index_paths(["a.md", "missing.md", ".obsidian/x.md"], folders=["dir"])
    assert (report.changed, report.removed) == (2, 1)
    assert [h.path for h in vault.search("delta")] == ["dir/sub/d.md"]
    assert vault.search("zeta") == []  # not named, so not read yet
    assert vault.search("gamma") == []


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_notes_with_a_utf16_or_utf32_byte_order_mark_are_indexed_not_binary(
    vault: Vault, encoding: str
) -> None:
    text = "# Notes\n\n- the platypus lays eggs 鸭嘴兽\n"
    raw = "\ufeff".encode(encoding) + text.encode(encoding)
    path = write(vault.root, "topics/unicode.md", raw)
    vault.index()
    hits = vault.search("platypus")
    assert [(h.path, h.line_start, h.heading) for h in hits] == [("topics/unicode.md", 3, "Notes")]
    assert vault.search("鸭嘴兽")[0].path == "topics/unicode.md"
    assert not any(path == "topics/unicode.md" for path, _ in vault.status().warnings)
    assert vault.show("topics/unicode.md", 3).lines == ["- the platypus lays eggs 鸭嘴兽"]
    assert path.read_bytes() == raw  # never rewritten


def test_a_nul_byte_without_a_byte_order_mark_is_still_binary(vault: Vault) -> None:
    write(vault.root, "topics/blob.md", "looks\0like text but is not\n".encode("utf-16-le"))
    vault.index()
    assert dict(vault.status().warnings)["topics/blob.md"] == [
        "skipped: binary file (contains NUL bytes)"
    ]


def test_a_block_id_is_found_exactly_wherever_it_is(vault: Vault) -> None:
    write(
        vault.root,
        "memory/2026-03-01.md",
        "# 2026-03-01\n\n- first ^s1-1\n- tenth ^s1-10\n- 我们的预算 ^s1-2\n",
    )
    write(vault.root, "memory/2026-03-02.md", "- another first ^s1-1\n- a dash ^s1--10\n")
    write(vault.root, "facts/work.md", "- Alice leads Atlas ^f09a4e5a171\n")
    vault.index()
    found = vault.with_block_id
    assert [(p, s) for p, s, _, _ in found("s1-1")] == [
        ("memory/2026-03-01.md", 3),
        ("memory/2026-03-02.md", 1),
    ]
    assert [t for _, _, _, t in found("s1-10")] == ["- tenth ^s1-10"]
    assert [t for _, _, _, t in found("s1--10")] == ["- a dash ^s1--10"]
    assert [t for _, _, _, t in found("s1-2")] == ["- 我们的预算 ^s1-2"]
    assert [p for p, _, _, _ in found("f09a4e5a171")] == ["facts/work.md"]
    assert found("S1-1") == []  # compared exactly, as the id is written
    assert found("s9-9") == [] and found("-") == []
