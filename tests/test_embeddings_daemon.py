"""The watch daemon's background embedding: after each batch it embeds the chunks of the
batch's paths only (not the whole vault), and whatever sequence of edits, renames, moves
and deletes it saw, a ``vaultmem embed`` afterwards finds nothing left to embed.

Real parts: the real daemon (``running_watcher``: a watchdog observer on real files under
``tmp_path``), real SQLite files, and the OpenAI-compatible test server on 127.0.0.1
(``embed_server``), whose word-hash model is fast and deterministic.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import wait_for, write
from embed_server import EmbedServer, embed_server
from test_embeddings import use_server

from vaultmem import Vault
from vaultmem.cli import cli
from vaultmem.daemon.watch import running_watcher
from vaultmem.embeddings import matrix as matrices
from vaultmem.embeddings.store import EMBEDDABLE, embedded_text, text_hash
from vaultmem.index.text import TextStore


@pytest.fixture
def server(vault_path: Path) -> Iterator[EmbedServer]:
    """A vault of 40 small notes, embedded, pointed at the local embeddings server."""
    for i in range(40):
        write(vault_path, f"notes/n{i:02}.md", f"# Note {i}\n\n- alpha {i}\n- beta {i}\n")
    with embed_server() as running:
        use_server(vault_path, running)
        with Vault(vault_path) as vault:
            vault.embed()
        yield running


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    TextStore.register(conn)
    try:
        yield conn
    finally:
        conn.close()


def unembedded(root: Path) -> set[str]:
    """Texts of the index that have no vector in the store (read here, not by vaultmem)."""
    with read_only(root / ".vaultmem" / "index.db") as conn:
        rows = conn.execute(f"SELECT heading, text FROM chunks WHERE {EMBEDDABLE}").fetchall()
    with read_only(root / ".vaultmem" / "vectors.db") as conn:
        have = {r[0] for r in conn.execute("SELECT hash FROM vectors")}
    texts = {text_hash(embedded_text(h, t)): t for h, t in rows}
    return {text for digest, text in texts.items() if digest not in have}


def caught_up(root: Path, searcher: Vault) -> bool:
    """The index matches every file, and every text in it has a vector."""
    return not searcher.status().stale and not unembedded(root)


def embed_finds_nothing_left(root: Path) -> None:
    result = CliRunner().invoke(cli, ["embed", "--json", "--vault", str(root)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["embedded"] == 0


def embedded_lines(log: list[str]) -> list[str]:
    return [line for line in log if line.startswith("embedded:")]


def test_an_edit_embeds_the_chunks_of_its_note_not_the_whole_vault(
    vault_path: Path, server: EmbedServer
) -> None:
    log: list[str] = []
    # A note nobody embedded yet: the daemon's first run (the whole vault) embeds it and
    # says so, and the edit below comes after that run.
    write(vault_path, "while-down.md", "- written while the daemon was down\n")
    with running_watcher(Vault(vault_path), log.append):
        wait_for(lambda: len(embedded_lines(log)) == 1)
        note = vault_path / "notes/n07.md"
        note.write_text(note.read_text() + "- gamma seven\n")
        wait_for(lambda: len(embedded_lines(log)) == 2)
    first, edit = embedded_lines(log)
    assert first.startswith("embedded: 82 chunks: 1 texts embedded, 81 already were"), first
    # n07.md now has three chunks that get a vector (its heading gets none), the vault 83.
    assert edit.startswith("embedded: 3 chunks: 1 texts embedded, 2 already were"), edit
    embed_finds_nothing_left(vault_path)


def test_after_edits_renames_moves_and_deletes_nothing_is_left_to_embed(
    vault_path: Path, server: EmbedServer
) -> None:
    root = vault_path
    with running_watcher(Vault(root)), Vault(root) as searcher:
        # The note written last holds the highest row ids; deleted, its ids are given to
        # the next note indexed: a "rows above the last id seen" rule would skip that note.
        write(root, "last.md", "- lemur orbit\n- lemur tango\n")
        wait_for(lambda: caught_up(root, searcher))
        (root / "last.md").unlink()
        wait_for(lambda: not searcher.search("lemur", mode="keyword"))
        write(root, "reused.md", "- walrus piano\n- walrus drum\n")
        wait_for(lambda: caught_up(root, searcher))

        # A burst that coalesces into a few batches: edits, a rename with an edit, a note
        # moved into a new folder, a folder renamed, a folder deleted, a name that is not
        # UTF-8, and a note written then deleted before the daemon read it.
        for i in range(10):
            write(root, f"notes/n{i:02}.md", f"# Note {i}\n\n- alpha {i} edited\n- delta {i}\n")
        (root / "notes/n10.md").rename(root / "notes/renamed.md")
        write(root, "notes/renamed.md", "- renamed and rewritten\n")
        (root / "moved").mkdir()
        (root / "notes/n11.md").rename(root / "moved/n11.md")
        write(root, "moved/n11.md", "- moved, then edited\n")
        write(root, "sub/deep/a.md", "- kiwi one\n")
        (root / "sub").rename(root / "sub2")
        write(root, "sub2/deep/b.md", "- kiwi two\n")
        write(root, "gone/x.md", "- ephemeral line\n")
        shutil.rmtree(root / "gone")
        write(root, os.fsdecode(b"caf\xe9.md"), "- latin one name\n")
        write(root, "brief.md", "- here and gone\n")
        (root / "brief.md").unlink()
        for i in range(20, 30):
            (root / f"notes/n{i:02}.md").unlink()
        wait_for(lambda: caught_up(root, searcher))
        assert searcher.search("kiwi", mode="keyword")[0].path.startswith("sub2/deep/")
    embed_finds_nothing_left(root)


def test_a_vector_store_deleted_while_the_daemon_runs_is_filled_again_after_the_next_edit(
    vault_path: Path, server: EmbedServer
) -> None:
    # No event tells the daemon; its next run finds the store is not as it left it, and
    # embeds every chunk, not only those of the note just edited.
    root = vault_path
    log: list[str] = []
    write(root, "while-down.md", "- written while the daemon was down\n")
    with running_watcher(Vault(root), log.append), Vault(root) as searcher:
        wait_for(lambda: embedded_lines(log))  # the daemon's first run is over
        for name in ("vectors.db", "vectors.db-wal", "vectors.db-shm", "vectors.matrix"):
            (root / ".vaultmem" / name).unlink(missing_ok=True)
        write(root, "notes/n03.md", "# Note 3\n\n- alpha 3\n- beta 3\n- epsilon\n")
        wait_for(lambda: (root / ".vaultmem/vectors.db").exists() and caught_up(root, searcher))
    embed_finds_nothing_left(root)


def test_once_edits_pause_the_daemon_refreshes_the_search_matrix(
    vault_path: Path, server: EmbedServer
) -> None:
    # A run after an edit leaves the matrix (it reads every row); the daemon refreshes it
    # when no edit came for a while, so the next search finds it ready.
    root = vault_path
    log: list[str] = []
    with running_watcher(Vault(root), log.append):
        write(root, "notes/n05.md", "# Note 5\n\n- alpha 5\n- beta 5\n- zeta five\n")
        wait_for(lambda: embedded_lines(log))

        def matrix_is_current() -> bool:
            matrix = matrices.load(root / ".vaultmem" / matrices.MATRIX_FILE)
            with read_only(root / ".vaultmem/index.db") as index:
                (made_for,) = index.execute("SELECT value FROM meta WHERE key = 'generation'")
            with read_only(root / ".vaultmem/vectors.db") as store:
                (store_at,) = store.execute("SELECT value FROM meta WHERE key = 'generation'")
            return matrix is not None and matrix.generations == (made_for[0], store_at[0])

        wait_for(matrix_is_current)
