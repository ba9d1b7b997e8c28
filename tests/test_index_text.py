"""Chunk text is stored compressed in the index (``index_text.py``) and always read back as
written: by a rebuild's workers, by an index that grows from empty, across rebuilds and in
other processes' connections."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import write

import vaultmem.index.text
from vaultmem import Vault
from vaultmem.index.text import TextStore, packer, train, unpack

LINES = [
    "- **user** We decided to use PostgreSQL 16 for Atlas, the billing service. ^s{n}-1",
    "- **agent** 我们的预算是四十万，下个月开始。 ^s{n}-2",
    "- **user** Remember: the dentist moved to Friday 3pm, bring the form 🦷 ^s{n}-3",
    "- short ^s{n}-4",
    "",
    "A paragraph that runs on: " + "the budget review and the release plan, " * 6,
]


def note(n: int) -> str:
    return f"# Day {n}\n\n## Session 1\n\n" + "\n".join(line.format(n=n) for line in LINES) + "\n"


def stored(root: Path) -> dict[str, int]:
    """How many chunk texts the index holds compressed (``blob``), and as they are: those
    shorter than 40 characters (``short``, a line like ``- short ^s1-4``) and the others."""
    conn = sqlite3.connect(root / ".vaultmem/index.db")
    try:
        rows = conn.execute(
            "SELECT CASE WHEN typeof(text) = 'blob' THEN 'blob'"
            " WHEN length(text) < 40 THEN 'short' ELSE 'text' END, COUNT(*)"
            " FROM chunk_rows GROUP BY 1"
        )
        return dict(rows.fetchall())
    finally:
        conn.close()


def texts_read_back(root: Path) -> dict[tuple[str, int], str]:
    """Every chunk's text as another process reads it, by (path, first line)."""
    conn = sqlite3.connect(root / ".vaultmem/index.db")
    TextStore.register(conn)
    try:
        rows = conn.execute("SELECT path, line_start, text FROM chunks")
        return {(path, line): text for path, line, text in rows}
    finally:
        conn.close()


def lines_of(root: Path, rel: str, first: int, last: int) -> str:
    return "\n".join((root / rel).read_text(encoding="utf-8").split("\n")[first - 1 : last])


def assert_texts_are_the_notes(root: Path) -> None:
    conn = sqlite3.connect(root / ".vaultmem/index.db")
    TextStore.register(conn)
    try:
        rows = conn.execute("SELECT path, line_start, line_end, text, kind FROM chunks").fetchall()
    finally:
        conn.close()
    assert rows
    for path, first, last, text, kind in rows:
        if kind != "frontmatter":
            assert text == lines_of(root, path, first, last)


def test_a_rebuild_stores_texts_compressed_and_reads_them_back(vault_path: Path) -> None:
    for n in range(450):  # enough notes for worker processes, which pack what they chunk
        write(vault_path, f"memory/2026-01-{n:03d}.md", note(n))
    with Vault(vault_path) as vault:
        vault.index()
        kinds = stored(vault_path)
        assert kinds["blob"] > 0 and "text" not in kinds
        assert_texts_are_the_notes(vault_path)
        hits = vault.search("预算", limit=3)
        assert hits and "我们的预算是四十万" in hits[0].text
        hit = vault.search('"budget review"', limit=1)[0]
        assert hit.matched.startswith("A paragraph that runs on")
    blob = sqlite3.connect(vault_path / ".vaultmem/index.db").execute(
        "SELECT SUM(length(text)) FROM chunk_rows"
    )
    plain = sum(len(t.encode()) for t in texts_read_back(vault_path).values())
    assert blob.fetchone()[0] < plain * 0.7


def test_an_index_growing_from_empty_trains_its_dictionary_once_it_is_big_enough(
    vault_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vaultmem.index.text, "TRAIN_MIN", 60)
    with Vault(vault_path) as vault:
        for n in range(6):  # note by note, as the daemon writes them: 8 chunks each
            write(vault_path, f"memory/2026-02-{n + 1:02d}.md", note(n))
            vault.index()
        assert "blob" not in stored(vault_path)  # 48 chunks: no dictionary yet
        for n in range(6, 12):
            write(vault_path, f"memory/2026-02-{n + 1:02d}.md", note(n))
            vault.index()
        # The rows written before the dictionary were compressed with it too.
        assert "text" not in stored(vault_path)
        assert_texts_are_the_notes(vault_path)
        # An edit deletes the old chunk's FTS row with its text read back: nothing is left.
        path = vault_path / "memory/2026-02-01.md"
        path.write_text(path.read_text(encoding="utf-8").replace("PostgreSQL", "MySQL"))
        vault.index()
        found = [h.path for h in vault.search("PostgreSQL", limit=100)]
        assert "memory/2026-02-01.md" not in found and len(found) == 11
        assert [h.path for h in vault.search("MySQL")] == ["memory/2026-02-01.md"]


def test_a_rebuilt_index_never_reuses_a_dictionary_id(vault_path: Path) -> None:
    for n in range(300):
        write(vault_path, f"memory/2026-03-{n:03d}.md", note(n))
    with Vault(vault_path) as vault:
        vault.index()
        # Another process's connection, open across the rebuild, that has read texts.
        other = sqlite3.connect(vault_path / ".vaultmem/index.db", check_same_thread=False)
        TextStore.register(other)
        before = dict(other.execute("SELECT path || line_start, text FROM chunks"))
        ids = [other.execute("SELECT id FROM text_dicts").fetchall()]
        for n in range(300):  # the vault changes, so the next dictionary differs
            write(vault_path, f"memory/2026-03-{n:03d}.md", note(n + 1000).replace("the", "a"))
        vault.reindex()
        ids.append(other.execute("SELECT id FROM text_dicts").fetchall())
        after = dict(other.execute("SELECT path || line_start, text FROM chunks"))
        other.close()
    assert len(ids[1]) == 1 and ids[1][0][0] > ids[0][0][0]
    # The old connection decodes the new rows with the new dictionary, not its cached one.
    assert after != before
    assert sorted(after.values()) == sorted(texts_read_back(vault_path).values())
    assert_texts_are_the_notes(vault_path)


def test_pack_and_unpack_round_trip_every_kind_of_text() -> None:
    texts = [
        "- **user** the meeting moved to Friday ^s1-1",
        "中文和English混在一起的一行，还有表情🙂和\ttabs",
        "x" * 5000,
        "",
        "short",
        "\n".join(f"- item {i} of a long list" for i in range(50)),
    ]
    zdict = train(texts * 5)
    assert 0 < len(zdict) <= vaultmem.index.text.DICT_BYTES
    pack = packer(7, zdict)
    for text in texts:
        form = pack(text)
        if isinstance(form, bytes):
            assert form[0] == 7 and unpack(form, zdict) == text
        else:
            assert form == text
    assert [type(pack(t)) for t in texts] == [bytes, bytes, bytes, str, str, bytes]
    # With no words seen three times there is no dictionary, and texts still compress.
    empty = packer(1, train(["one line"]))
    assert unpack(empty("y" * 300), b"") == "y" * 300


def test_a_damaged_stored_text_rebuilds_the_index(vault_path: Path) -> None:
    for n in range(300):
        write(vault_path, f"memory/2026-04-{n:03d}.md", note(n))
    with Vault(vault_path) as vault:
        vault.index()
    conn = sqlite3.connect(vault_path / ".vaultmem/index.db")
    with conn:  # every compressed text damaged, as a bad disk block might
        conn.execute("UPDATE chunk_rows SET text = x'01ffffffff' WHERE typeof(text) = 'blob'")
    conn.close()
    with Vault(vault_path) as vault:
        hits = vault.search("PostgreSQL", limit=3)
        assert hits and "PostgreSQL 16" in hits[0].text
        assert any("rebuilt from the files" in notice for notice in vault.notices)
    assert_texts_are_the_notes(vault_path)
