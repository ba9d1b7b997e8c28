"""Keyword search finds what a question means: possessives, month names, note names, and
front matter that is never a hit (issue 14)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import copy_shared, write

from vaultmem import Vault


def texts(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [h.matched for h in hits]  # the matched lines, without their context


@pytest.fixture
def chat(vault: Vault) -> Vault:
    write(
        vault.root,
        "memory/2026-06-02.md",
        (
            "# 2026-06-02\n\n"
            "- Jolene started yoga three years ago ^c1\n"
            "- it's raining again, it's cold ^c2\n"
            "- I'm tired and I'd rather stay in ^c3\n"
            "- We won the cup at the tournament ^c4\n"
            "- In May we visited Ohio ^c5\n"
            "- the server could break tonight ^c6\n"
        ),
    )
    vault.index()
    return vault


@pytest.mark.parametrize("apostrophe", ["'", "\u2019"])
@pytest.mark.parametrize("clitic", ["s", "m", "d", "ll", "re", "ve"])
def test_an_english_clitic_is_not_a_search_term(chat: Vault, apostrophe: str, clitic: str) -> None:
    hits = chat.search(f"Jolene{apostrophe}{clitic} yoga")
    assert texts(hits) == ["- Jolene started yoga three years ago ^c1"]


@pytest.mark.parametrize("word", ["won't", "Can\u2019t", "don't", "isn't"])
def test_a_negated_auxiliary_is_a_function_word(chat: Vault, word: str) -> None:
    # "won't" must not ask for "won" (or the stray "t"): only "cold" is a search term.
    assert texts(chat.search(f"{word} cold")) == ["- it's raining again, it's cold ^c2"]


def test_a_capitalised_month_name_is_a_search_term(chat: Vault) -> None:
    assert texts(chat.search("Where did we go in May?")) == ["- In May we visited Ohio ^c5"]


def test_may_the_lowercase_verb_stays_a_stop_word(chat: Vault) -> None:
    assert texts(chat.search("what may break")) == ["- the server could break tonight ^c6"]


@pytest.mark.parametrize(
    ("question", "line"),
    [
        ("When did Mel buy shoes?", "- Mel bought a pair of new running shoes at the mall ^f1"),
        ("Did she swim in the lake?", "- We swam in the lake by the old mill at dawn ^f2"),
        ("what do the children love", "- my child loves the zoo by the river every Sunday ^f3"),
        ("Who won the chess match?", "- Sam will win every chess match at the club this year ^f4"),
    ],
)
def test_a_word_is_found_in_its_irregular_forms(vault: Vault, question: str, line: str) -> None:
    # Each line shares one word fewer with the question than its shorter neighbour does,
    # unless the irregular form counts: then it holds every word and ranks first.
    near = ["Mel likes shoes ^d1", "the lake is cold ^d2", "children sleep ^d3", "chess match ^d4"]
    lines = [line, *(f"- {text}" for text in near)]
    write(vault.root, "memory/2026-06-03.md", "# 2026-06-03\n\n" + "\n".join(lines) + "\n")
    vault.index()
    assert texts(vault.search(question, mode="keyword"))[0] == line


def test_light_verbs_and_forms_that_mean_something_else_are_not_asked(vault: Vault) -> None:
    # "went" or "got" is in every other line of a conversation; "saw" is also a tool.
    write(
        vault.root,
        "memory/2026-06-03.md",
        "# 2026-06-03\n\n- he cut the plank with a saw ^f5\n- we went home early ^f6\n",
    )
    vault.index()
    assert vault.search("see", mode="keyword") == []
    assert vault.search("go", mode="keyword") == []


# -- a note is found by its names: file name, title, aliases --------------------------------

ZELDA = "References/The Legend of Zelda Breath of the Wild.md"


@pytest.fixture
def library(vault: Vault) -> Vault:
    write(
        vault.root,
        ZELDA,
        (
            "---\naliases: [BotW]\ntags: [games]\nstatus: drafting\ndate: 2024-03-09\n---\n"
            "An open-world game I finished last winter.\n\n"
            "- Best moment: the first glider jump\n"
        ),
    )
    write(vault.root, "Books/The Machine Stops.md", "A short story by E. M. Forster, 1909.\n")
    write(
        vault.root,
        "memory/2026-01-10.md",
        "# 2026-01-10\n\n- the coffee machine broke again ^m1\n- it stops raining at noon ^m2\n",
    )
    write(vault.root, "笔记/项目计划.md", "第一阶段在三月完成。\n")
    vault.index()
    return vault


def test_a_note_is_found_by_a_word_of_its_file_name(library: Vault) -> None:
    hits = library.search("Zelda")
    assert hits and {h.path for h in hits} == {ZELDA}


def test_a_note_named_by_the_query_comes_before_lines_holding_its_words(library: Vault) -> None:
    assert library.search("The Machine Stops")[0].path == "Books/The Machine Stops.md"


def test_a_note_is_found_by_its_alias_and_by_a_cjk_file_name(library: Vault) -> None:
    assert library.search("botw")[0].path == ZELDA
    assert library.search("项目计划")[0].path == "笔记/项目计划.md"
    assert library.search("计划")[0].path == "笔记/项目计划.md"


def test_front_matter_is_never_a_hit_but_its_fields_still_filter(library: Vault) -> None:
    assert library.search("drafting") == []  # a value only the front matter holds
    assert library.search("aliases status") == []
    assert {h.path for h in library.search("glider", tag="games")} == {ZELDA}
    assert {h.path for h in library.search("glider", since="2024-03-09")} == {ZELDA}
    assert library.search("glider", until="2024-03-08") == []


def test_front_matter_that_is_not_yaml_is_searched_as_text(vault: Vault) -> None:
    write(vault.root, "broken.md", "---\nstatus: [drafting\n---\nBody.\n")
    vault.index()
    assert [h.match_start for h in vault.search("drafting")] == [2]


def test_a_renamed_note_or_an_edited_alias_is_found_by_its_new_name_only(library: Vault) -> None:
    old = library.root / ZELDA
    new = library.root / "References/Tears of the Kingdom.md"
    text = old.read_text().replace("[BotW]", "[TotK]")
    old.unlink()
    new.write_text(text.replace("last winter", "last spring"))
    library.index()
    assert library.search("Zelda") == []
    assert library.search("BotW") == []
    assert {h.path for h in library.search("TotK")} == {"References/Tears of the Kingdom.md"}
    # Renamed with unchanged content: the chunks keep their rows, their names change.
    moved = library.root / "References/Kingdom.md"
    new.rename(moved)
    library.index()
    assert library.search("Tears") == []
    assert {h.path for h in library.search("Kingdom")} == {"References/Kingdom.md"}
    # The contentless FTS table was handed the exact old values on each change: it holds
    # the same terms as an index built from scratch.
    updated = fts_terms(library)
    library.reindex()
    assert updated == fts_terms(library)


def fts_terms(vault: Vault) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(vault.index_path)
    conn.execute("CREATE VIRTUAL TABLE temp.terms USING fts5vocab(main, chunks_fts, 'col')")
    rows = conn.execute("SELECT term, col, doc, cnt FROM temp.terms ORDER BY 1, 2").fetchall()
    conn.close()
    return rows


def test_a_daily_note_is_found_by_its_date_in_words(vault: Vault) -> None:
    write(vault.root, "memory/2023-12-04.md", "# 2023-12-04\n\n- Sam went hiking ^a1\n")
    write(vault.root, "memory/2023-11-20.md", "# 2023-11-20\n\n- Sam went swimming ^b1\n")
    vault.index()
    hits = vault.search("What was Sam doing on December 4, 2023?")
    assert hits[0].matched == "- Sam went hiking ^a1"
    assert vault.search("Where did Sam go in November?")[0].matched == "- Sam went swimming ^b1"


def test_obsidian_help_notes_are_found_by_a_title_word_missing_from_their_body(
    tmp_path: Path,
) -> None:
    root = copy_shared("corpora/obsidian-help/en", tmp_path / "help")
    note = root / "Obsidian Sync/Frequently asked questions.md"
    assert "frequently" not in note.read_text().lower()
    Vault.init(root)
    vault = Vault(root)
    vault.index()
    assert vault.search("frequently")[0].path == "Obsidian Sync/Frequently asked questions.md"
    hits = vault.search("Social media link previews")
    assert hits[0].path == "Obsidian Publish/Social media link previews.md"


def test_a_deleted_note_leaves_no_search_term_behind_once_its_front_matter_was_fixed(
    vault: Vault,
) -> None:
    # Closed by '----', the front matter is not read as YAML: its lines are searched.
    write(vault.root, "draft.md", "---\nstatus: zqxword\n----\nBody.\n")
    vault.index()
    assert [h.path for h in vault.search("zqxword")] == ["draft.md"]
    # Fixed, the same lines are read as YAML, so they are no longer searched ...
    write(vault.root, "draft.md", "---\nstatus: zqxword\n---\nBody.\n")
    vault.index()
    assert vault.search("zqxword") == []
    # ... and deleting the note hands FTS5 back exactly the rows it holds: a later note,
    # which may reuse the freed chunk row, is never found by the old note's words.
    (vault.root / "draft.md").unlink()
    vault.index()
    write(vault.root, "other.md", "unrelated words here\n")
    vault.index()
    assert vault.search("zqxword") == []
    assert [h.matched for h in vault.search("unrelated")] == ["unrelated words here"]


LONG_YAML = "".join(f"key{i}: value{i} long enough to fill a line of yaml\n" for i in range(80))


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("---\nstatus: zqxword\n----\nBody.\n", "---\nstatus: zqxword\n---\nBody.\n"),
        ("---\nstatus: zqxword\n---\nBody.\n", "---\nstatus: zqxword\n----\nBody.\n"),
        ("---\nstatus: [zqxword\n---\nBody.\n", "---\nstatus: [zqxword]\n---\nBody.\n"),
        # Front matter split into parts (over chunk_max_chars): only its last part is
        # edited, yet the edit decides whether every part is searched.
        (f"---\n{LONG_YAML}tail: ok\n---\nBody.\n", f"---\n{LONG_YAML}tail: [broken\n---\nBody.\n"),
        (f"---\n{LONG_YAML}tail: [broken\n---\nBody.\n", f"---\n{LONG_YAML}tail: ok\n---\nBody.\n"),
    ],
    ids=["fixed-closer", "broken-closer", "fixed-yaml", "long-broken", "long-fixed"],
)
def test_front_matter_turning_readable_or_not_keeps_the_index_as_a_rebuild_would_be(
    vault: Vault, tmp_path: Path, before: str, after: str
) -> None:
    write(vault.root, "note.md", before)
    vault.index()
    write(vault.root, "note.md", after)
    vault.index()
    assert fts_terms(vault) == rebuilt_fts_terms(vault, tmp_path / "edited")
    (vault.root / "note.md").rename(vault.root / "renamed.md")  # its names change
    vault.index()
    assert fts_terms(vault) == rebuilt_fts_terms(vault, tmp_path / "renamed")
    (vault.root / "renamed.md").unlink()
    vault.index()
    assert fts_terms(vault) == rebuilt_fts_terms(vault, tmp_path / "deleted")


def rebuilt_fts_terms(vault: Vault, copy: Path) -> list[tuple[object, ...]]:
    """The FTS terms of an index built from scratch on a copy of the vault, leaving the
    vault's own index as its updates made it."""
    shutil.copytree(vault.root, copy)
    with Vault(copy) as fresh:
        fresh.reindex()
        return fts_terms(fresh)
