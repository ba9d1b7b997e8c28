"""Search: any typed string is a valid query, English and CJK both find what is there."""

from __future__ import annotations

import os

import pytest
from conftest import HIT_FIELDS, copy_mini_vault, copy_shared, write

from vaultmem import Vault
from vaultmem.search.keyword import Hit
from vaultmem.search.keyword import search as run_search
from vaultmem.search.query import parse_query


@pytest.fixture
def notes(vault: Vault) -> Vault:
    write(
        vault.root,
        "memory/2026-03-01.md",
        (
            "# 2026-03-01\n\n"
            "- The budget review moved to Friday ^a1\n"
            "- Deploy failed: connection refused on port 5432 #bug ^a2\n"
            "- 我们的预算是五万元 ^a3\n"
            "- 飞书的插件需要重新配置 ^a4\n"
            "- 插件已经更新 ^a5\n"
            "- 写一个 GitHub备份脚本 ^a6\n"
            "- 東京の出張は来月です ^a7\n"
            "- 다음 주 회의는 서울에서 합니다 ^a8\n"
        ),
    )
    write(
        vault.root,
        "facts/work.md",
        (
            "---\ntags: [work]\ncreated: 2026-01-15\n---\n# Work\n\n"
            "- Deployment checklist lives in the wiki #ops/deploy\n"
            "- The budgets are reviewed quarterly [created:: 2026-04-02]\n"
        ),
    )
    vault.index()
    return vault


def note_name(hit: Hit) -> str:
    """The note's file name: a hit holds a query word there too (see docs/search.md)."""
    return hit.path.rsplit("/", 1)[-1].removesuffix(".md")


def lines_of(hits: list) -> list[tuple[str, int]]:  # type: ignore[type-arg]
    return [(h.path, h.match_start) for h in hits]  # the matched line, not its context


def test_english_words_rank_by_bm25_with_stemming(notes: Vault) -> None:
    hits = notes.search("budget")
    # Both hold one form of the word; bm25 orders them by length (the note's names count).
    assert lines_of(hits) == [("facts/work.md", 8), ("memory/2026-03-01.md", 3)]
    assert hits[1].heading == "2026-03-01"
    assert hits[0].score >= hits[1].score > 0


def test_more_query_words_rank_first_and_none_is_required(notes: Vault) -> None:
    hits = notes.search("deploy port refused wiki")
    assert lines_of(hits)[0] == ("memory/2026-03-01.md", 4)  # holds three of the four
    assert ("facts/work.md", 7) in lines_of(hits)  # holds "wiki" (and "deployment")


def test_phrases_and_prefixes_keep_their_meaning(notes: Vault) -> None:
    assert lines_of(notes.search('"connection refused"')) == [("memory/2026-03-01.md", 4)]
    assert notes.search('"refused connection"') == []
    assert lines_of(notes.search("checkl*")) == [("facts/work.md", 7)]


@pytest.mark.parametrize(
    "query",
    [
        '"',
        '"unbalanced',
        "(((",
        ")",
        "a AND",
        "OR",
        "NOT NOT",
        "NEAR(a b",
        "*",
        "**",
        "-x",
        "^",
        "col:value",
        "budget:",
        "'; DROP TABLE chunks; --",
        "🙂",
        "🙂 budget",
        "{body}",
        "\\",
        "",
        "   ",
        'a"b"c',
        "%_",
        "NEAR",
        "x*y",
        "预算*",
        "\x00",
        "[[Alice]]",
        "#bug",
    ],
)
def test_any_typed_string_is_a_valid_query(notes: Vault, query: str) -> None:
    hits = notes.search(query, limit=50)
    assert isinstance(hits, list)
    for hit in hits:
        assert hit.path and hit.line_start >= 1


def test_operators_are_words_to_skip_not_syntax(notes: Vault) -> None:
    assert lines_of(notes.search("budget AND NOT friday"))[0] == ("memory/2026-03-01.md", 3)
    assert lines_of(notes.search("🙂 budget")) == lines_of(notes.search("budget"))


def test_two_character_chinese_word(notes: Vault) -> None:
    assert lines_of(notes.search("预算")) == [("memory/2026-03-01.md", 5)]
    assert sorted(lines_of(notes.search("插件"))) == [
        ("memory/2026-03-01.md", 6),
        ("memory/2026-03-01.md", 7),
    ]


def test_long_chinese_query_not_verbatim_finds_its_words_fullest_first(notes: Vault) -> None:
    hits = notes.search("飞书插件配置")
    assert lines_of(hits) == [("memory/2026-03-01.md", 6), ("memory/2026-03-01.md", 7)]


def test_space_separated_chinese_terms_rank_by_how_many_they_hold(notes: Vault) -> None:
    hits = notes.search("飞书 配置 更新")
    assert lines_of(hits)[0] == ("memory/2026-03-01.md", 6)  # 飞书 and 配置
    assert ("memory/2026-03-01.md", 7) in lines_of(hits)  # 更新 alone still found


def test_single_character_mixed_japanese_korean(notes: Vault) -> None:
    assert ("memory/2026-03-01.md", 5) in lines_of(notes.search("元"))
    assert lines_of(notes.search("GitHub备份脚本"))[0] == ("memory/2026-03-01.md", 8)
    assert lines_of(notes.search("備份脚本 github")) == [("memory/2026-03-01.md", 8)]
    assert lines_of(notes.search("出張")) == [("memory/2026-03-01.md", 9)]
    assert lines_of(notes.search("회의")) == [("memory/2026-03-01.md", 10)]


def test_filters(notes: Vault) -> None:
    assert lines_of(notes.search("budget", path="facts/*")) == [("facts/work.md", 8)]
    assert lines_of(notes.search("deploy", tag="bug")) == [("memory/2026-03-01.md", 4)]
    assert lines_of(notes.search("deploy", tag="#ops")) == [("facts/work.md", 7)]  # nested tag
    assert lines_of(notes.search("checklist", tag="work")) == [
        ("facts/work.md", 7)
    ]  # frontmatter tag
    assert lines_of(notes.search("budget", since="2026-03-01")) == [
        ("facts/work.md", 8),
        ("memory/2026-03-01.md", 3),
    ]  # the fact's own [created:: 2026-04-02]
    assert lines_of(notes.search("budget", until="2026-03-31")) == [("memory/2026-03-01.md", 3)]
    assert notes.search("checklist", since="2026-02-01") == []  # file created 2026-01-15


def test_hits_carry_tags_and_json_fields(notes: Vault) -> None:
    hit = notes.search("checklist")[0]
    assert hit.tags == ["ops/deploy", "work"]
    assert set(hit.as_dict()) == HIT_FIELDS


def test_parse_query_never_passes_syntax_through() -> None:
    assert parse_query('budget OR "x y" NOT z*').match == (
        '({body heading name} : "budget"*) OR ({body heading name} : "x y")'
        ' OR ({body heading name} : "z"*)'
    )
    assert parse_query("meetings art").match == (
        '({body heading name} : "meet"*) OR ({body heading name} : "art")'
    )
    assert parse_query("飞书插件").match.startswith('({body name} : "飞书 书插 插件")')
    # stop words alone still search
    assert parse_query("the").match == '({body heading name} : "the")'


@pytest.mark.parametrize(
    ("query", "text", "share"),
    [
        ("Which meetings did Jolene's team skip?", "jolene's team skipped the meeting", 1.0),
        ("Which meetings did Jolene's team skip?", "The team met on Monday", 0.25),
        ('"green tea" budget', "a budget for green tea", 1.0),
        ('"green tea" budget', "the budget", 0.5),
        ("预算会议", "周三开预算会", 0.75),  # 预算 and 算会 cover three of its four characters
        ("预算会议", "预算表", 0.5),
        ("where does he live these days", "nothing of it", 0.0),
        ("the", "the", 1.0),  # stop words alone count when nothing else is asked
    ],
)
def test_a_query_knows_what_share_of_it_a_text_holds(query: str, text: str, share: float) -> None:
    # Hybrid search gives meaning the top 5 when no keyword hit holds half (search.md).
    assert parse_query(query).share(text) == pytest.approx(share)


@pytest.fixture(scope="module")
def mini_vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root = copy_mini_vault(tmp_path_factory.mktemp("mini") / "vault")
    (root / ".vaultmem").mkdir()
    vault = Vault(root)
    vault.index()
    return vault


def test_the_mini_vault_indexes_its_notes_and_not_its_templates(mini_vault: Vault) -> None:
    indexed = [r[0] for r in mini_vault.db.conn.execute("SELECT path FROM files ORDER BY path")]
    assert "Templates/Daily.md" not in indexed  # the template folder .obsidian names
    assert "zh/项目/青柠计划.md" in indexed and "Daily/2026-11-20.md" in indexed
    assert len(indexed) == 8


@pytest.mark.parametrize(
    ("query", "path"),
    [
        ("飞书插件配置", "Daily/2026-11-20.md"),  # the line holding it whole comes first
        ("消息推送", "zh/项目/青柠计划.md"),
        ("快捷键", "zh/项目/青柠计划.md"),
        ("龙井", "zh/人物/王小明.md"),
        ("小明", "zh/人物/王小明.md"),  # an alias
        ("第三方插件", "zh/读书笔记/三体.md"),
        ("peanuts", "en/People/Maria Chen.md"),
        ("Project Atlas", "en/Projects/Atlas.md"),  # an alias
        ("project/atlas", "en/Projects/Atlas.md"),  # a nested tag
        ("lemon tart", "en/Recipes/Lemon tart.md"),
    ],
)
def test_the_mini_vault_is_searched_in_english_and_chinese(
    mini_vault: Vault, query: str, path: str
) -> None:
    assert mini_vault.search(query, limit=3)[0].path == path


CHINESE_WORDS = ["链接", "插件", "同步", "笔记", "模板", "快捷键", "文件夹", "核心插件", "命令面板"]


def assert_search_finds_what_a_scan_finds(vault: Vault, where: str, words: list[str]) -> None:
    """Every chunk (of those ``where`` selects) holding a word is among its search's hits,
    as ranked before ``results.py`` merges them."""
    texts = vault.db.conn.execute(
        "SELECT path, chunk_id, text, heading FROM chunks"
        f" WHERE {where} AND kind <> 'frontmatter'"  # front matter is never a hit
    ).fetchall()
    for word in words:
        truth = {(p, c) for p, c, t, h in texts if word in t or word in h}
        got = {(h.path, h.chunk_id) for h in run_search(vault.db.conn, word, limit=100_000)}
        assert truth and truth <= got, word


def test_chinese_search_in_the_mini_vault_finds_every_chunk_a_substring_scan_finds(
    mini_vault: Vault,
) -> None:
    assert_search_finds_what_a_scan_finds(mini_vault, "1", CHINESE_WORDS)


def test_a_chinese_question_finds_the_line_holding_its_words(mini_vault: Vault) -> None:
    # Not verbatim anywhere: one daily line holds 手机, 同步 and 笔记.
    best = mini_vault.search("如何在手机上同步笔记", limit=5)[0]
    assert best.path == "Daily/2026-11-20.md" and best.block_id == "d20-2"


@pytest.fixture(scope="module")
def help_vault(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    root = copy_shared("corpora/obsidian-help", tmp_path_factory.mktemp("corpus") / "help")
    (root / ".vaultmem").mkdir()
    vault = Vault(root)
    vault.index()
    return vault


def test_the_obsidian_help_vault_indexes_whole(help_vault: Vault) -> None:
    on_disk = sorted(
        p.relative_to(help_vault.root).as_posix() for p in help_vault.root.rglob("*.md")
    )
    conn = help_vault.db.conn
    indexed = [r[0] for r in conn.execute("SELECT path FROM files ORDER BY path")]
    assert indexed == sorted(on_disk)
    assert len(indexed) == 347
    empty = [r[0] for r in conn.execute("SELECT path FROM files WHERE chunks = 0 AND size > 0")]
    assert empty == []


@pytest.mark.parametrize(
    "query, path_part",
    [
        ("callout", "Callouts"),
        ("Obsidian Sync", "Sync"),
        ("wikilink", "link"),
        ("双向链接", "zh/"),
        ("插件", "zh/"),
        ("同步", "zh/"),
        ("快捷键", "zh/"),
    ],
)
def test_known_phrases_are_found_in_the_help_vault(
    help_vault: Vault, query: str, path_part: str
) -> None:
    hits = help_vault.search(query, limit=20)
    assert hits, query
    assert any(path_part in h.path for h in hits)


def test_chinese_search_finds_every_chunk_a_substring_scan_finds(help_vault: Vault) -> None:
    words = [*CHINESE_WORDS, "第三方插件"]
    assert_search_finds_what_a_scan_finds(help_vault, "path LIKE 'zh/%'", words)


def test_long_chinese_sentence_from_the_corpus(help_vault: Vault) -> None:
    # Not verbatim anywhere; one line of the Chinese help holds all three words 同步, 笔记
    # and 手机, 45 hold two of them, over a thousand hold one.
    words = ["同步", "笔记", "手机"]
    hits = help_vault.search("如何在手机上同步笔记", limit=50)
    held = [sum(w in h.text + note_name(h) for w in words) for h in hits]
    assert held[0] == 3
    assert all(count >= 2 for count in held[:5])
    # The function words of the question (如何在, 上) count a little too, so further down a
    # chunk with one of the three words and "如何在" can come before one with two.


def test_space_separated_terms_in_the_corpus_rank_fuller_first(help_vault: Vault) -> None:
    words = ["同步", "笔记", "手机"]
    hits = help_vault.search("同步 笔记 手机", limit=30)
    held = [sum(w in h.text + h.heading + note_name(h) for w in words) for h in hits]
    assert held == sorted(held, reverse=True)
    assert held[0] == 3 and held[-1] >= 1


def test_prefixes_are_exact(vault: Vault) -> None:
    write(
        vault.root, "a.md", "- the flies were loud\n- selvik and sellunze\n- Abilene trip in May\n"
    )
    vault.index()
    assert [h.matched for h in vault.search("flies*")] == ["- the flies were loud"]
    assert vault.search("ses*") == []
    assert [h.matched for h in vault.search("abilit* zebra")] == []
    assert [h.matched for h in vault.search("abil*")] == ["- Abilene trip in May"]


def test_word_forms_match(vault: Vault) -> None:
    write(vault.root, "a.md", "- meeting notes\n- we created it\n- art show\n- artist talk\n")
    vault.index()
    assert [h.matched for h in vault.search("meetings")] == ["- meeting notes"]
    assert [h.matched for h in vault.search("creation")] == []  # "creat" is not a prefix of it
    assert [h.matched for h in vault.search("creates")] == ["- we created it"]
    assert [h.matched for h in vault.search("art")] == ["- art show"]


def test_a_phrase_does_not_match_across_cjk_text(vault: Vault) -> None:
    write(vault.root, "a.md", "- First alpha 预算 beta second.\n- alpha beta together\n")
    vault.index()
    assert [h.matched for h in vault.search('"alpha beta"')] == ["- alpha beta together"]


def test_prefix_longer_than_a_stem(vault: Vault) -> None:
    write(vault.root, "a.md", "- ability to generalize\n- happiness matters\n- abide by it\n")
    vault.index()
    assert [h.matched for h in vault.search("abilit*")] == ["- ability to generalize"]
    assert [h.matched for h in vault.search("generaliz*")] == ["- ability to generalize"]
    assert [h.matched for h in vault.search("happines*")] == ["- happiness matters"]
    assert sorted(h.matched for h in vault.search("abi*")) == [
        "- abide by it",
        "- ability to generalize",
    ]


def test_quoted_phrase_mixing_scripts_needs_every_part(vault: Vault) -> None:
    write(
        vault.root,
        "a.md",
        "- budget 表格 here\n- budget only\n- 表格 only\n- 预算 表 x\n- 表 alone\n",
    )
    vault.index()
    assert [h.matched for h in vault.search('"budget 表格"')] == ["- budget 表格 here"]
    assert [h.matched for h in vault.search('"预算 表"')] == ["- 预算 表 x"]


def test_tags_match_case_insensitively_beyond_ascii(vault: Vault) -> None:
    write(vault.root, "a.md", "---\ntags: [Éclair]\n---\n- angry note #Ärger\n")
    vault.index()
    assert len(vault.search("angry", tag="ärger")) == 1
    assert len(vault.search("angry", tag="ÄRGER")) == 1
    assert len(vault.search("angry", tag="éclair")) == 1


def test_dates_come_only_from_real_dates(vault: Vault) -> None:
    write(
        vault.root,
        "facts/a.md",
        ("- linked date [created:: [[2026-02-04]]]\n- junk date [date:: tomorrow]\n"),
    )
    vault.index()
    assert [h.matched for h in vault.search("date", until="2026-02-28")] == [
        "- linked date [created:: [[2026-02-04]]]"
    ]
    since = [h.matched for h in vault.search("date", since="2026-03-01")]
    assert "- linked date [created:: [[2026-02-04]]]" not in since


def test_undated_notes_follow_their_modification_time(vault: Vault) -> None:
    note = write(vault.root, "facts/alice.md", "- alice likes tea\n")
    os.utime(note, (1772323200, 1772323200))  # 2026-03-01
    vault.index()
    assert len(vault.search("alice", since="2026-01-01")) == 1
    os.utime(note, (1577836800, 1577836800))  # 2020-01-01: same content, new stat
    vault.index()
    assert vault.search("alice", since="2026-01-01") == []
    vault.reindex()
    assert vault.search("alice", since="2026-01-01") == []


def test_huge_limits_are_capped(notes: Vault) -> None:
    assert len(notes.search("budget", limit=10**18)) == 2
