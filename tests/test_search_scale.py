"""A query of common words costs what its result costs, not what the vault holds (issue 16).

A word in more rows than ``ranking.EXACT_ROWS`` is *common*: it is not ranked over every
row it matches. These vaults have a few thousand lines, enough to cross that line, so each
test runs both paths: the bounded one (``limit=10``) and the exact one (a limit above the
cap ranks everything).
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import write

from vaultmem import Vault
from vaultmem.search import ranking
from vaultmem.search.keyword import search as keyword_search
from vaultmem.search.query import parse_query
from vaultmem.search.ranking import EXACT_ROWS


def fill(vault: Vault, days: int, start: int = 1, lines: int = 50) -> None:
    """``days`` daily notes of ``lines`` lines, each line holding the common word "deploy"."""
    for day in range(start, start + days):
        date = f"2026-{1 + day // 28:02d}-{1 + day % 28:02d}"
        body = "".join(
            f"- deploy step {n} of run {day} went to host{n % 7} ^d{day}x{n}\n"
            for n in range(lines)
        )
        write(vault.root, f"memory/{date}.md", f"# {date}\n\n{body}")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An old topic note, then 3,000 newer daily lines that all say "deploy" (made once)."""
    root = tmp_path_factory.mktemp("busy") / "vault"
    Vault.init(root)
    with Vault(root) as vault:
        make_busy(vault)
    return root


@pytest.fixture
def busy(built: Path, tmp_path: Path) -> Iterator[Vault]:
    """A copy of the busy vault, opened (a test may add to it)."""
    shutil.copytree(built, tmp_path / "busy")
    with Vault(tmp_path / "busy") as vault:
        yield vault


def make_busy(vault: Vault) -> None:
    write(
        vault.root,
        "topics/zebra.md",
        "# Zebra\n\n- the zebra deploy is pinned to Tuesday\n\n- zebra crossings are striped\n",
    )
    vault.index()
    fill(vault, 60)
    vault.index()


def matched(vault: Vault, query: str, **kwargs: object) -> list[str]:
    return [h.matched for h in vault.search(query, **kwargs)]  # type: ignore[arg-type]


def test_the_vault_really_holds_more_common_rows_than_the_cap(busy: Vault) -> None:
    (count,) = busy.db.conn.execute(
        "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'deploy'"
    ).fetchone()
    assert count > EXACT_ROWS


def test_a_rare_word_beside_a_common_one_ranks_its_lines_first(busy: Vault) -> None:
    hits = matched(busy, "zebra deploy", limit=5)
    assert hits[0] == "- the zebra deploy is pinned to Tuesday"  # both words
    zebra_only = [i for i, line in enumerate(hits) if "deploy" not in line]
    assert "- zebra crossings are striped" in hits
    assert zebra_only == [1, 2]  # the rare word's other lines (and its note's title)


@pytest.mark.parametrize("limit", [10, EXACT_ROWS * 10])  # bounded, then exact
def test_lines_holding_every_word_come_first(busy: Vault, limit: int) -> None:
    top = matched(busy, "deploy host3 run", limit=limit)[:10]
    assert len(top) == 10
    assert all("deploy" in line and "host3" in line and " run " in line for line in top)


def test_an_old_line_behind_a_filter_is_found(busy: Vault) -> None:
    # The topic note's lines are older than every daily line: a common word's newest rows
    # never reach them, so the filter must go with the word into the index.
    assert matched(busy, "deploy", path="topics/*") == ["- the zebra deploy is pinned to Tuesday"]


def test_stop_words_alone_still_find_lines(busy: Vault) -> None:
    hits = matched(busy, "the of", limit=5)
    assert len(hits) == 5
    assert all(" the " in f" {h} " or " of " in f" {h} " for h in hits)


def test_a_large_limit_ranks_every_match(busy: Vault) -> None:
    hits = busy.search("deploy", limit=100_000)
    assert len(hits) > EXACT_ROWS  # nothing is cut at the cap when more is asked


def steps(vault: Vault, run: Callable[[], object], every: int = 100) -> int:
    """SQLite virtual-machine steps a call takes (in units of ``every``): the work,
    counted, not timed."""
    counter = [0]

    def tick() -> int:
        counter[0] += 1
        return 0

    conn: sqlite3.Connection = vault.db.conn
    conn.set_progress_handler(tick, every)
    try:
        run()
    finally:
        conn.set_progress_handler(None, 0)
    return counter[0]


def test_a_common_word_costs_the_same_in_a_vault_twice_as_big(busy: Vault) -> None:
    before = steps(busy, lambda: busy.search("deploy step", limit=10))
    fill(busy, 60, start=61)  # twice the common rows
    busy.index()
    after = steps(busy, lambda: busy.search("deploy step", limit=10))
    exact_after = steps(busy, lambda: busy.search("deploy step", limit=EXACT_ROWS * 10))
    assert after < before * 1.3
    assert exact_after > after * 2  # what ranking every row would have cost


def keyword_cost(vault: Vault, query: str) -> tuple[int, list[str]]:
    """The work of a keyword search for 10 hits (``steps``), and its hits."""
    hits: list[str] = []
    cost = steps(vault, lambda: hits.extend(matched(vault, query, limit=10, mode="keyword")))
    return cost, hits


def test_rows_holding_every_word_stop_the_gathering(busy: Vault) -> None:
    # "release" and "notes" are each in 1,100 lines, all of them holding both: common
    # words. Then each is in 1,100 newer lines of its own: the lines holding both still
    # fill the pool, so the newer ones are never read, and the search costs what it did.
    body = "".join(f"- release notes batch {n}\n" for n in range(1100))
    write(busy.root, "topics/log.md", f"# Log\n\n{body}")
    busy.index()
    before, hits = keyword_cost(busy, "release notes")
    assert len(hits) == 10 and all("release notes" in h for h in hits)
    body = "".join(f"- {('release', 'notes')[n % 2]} again {n}\n" for n in range(2200))
    write(busy.root, "topics/more.md", f"# More\n\n{body}")
    busy.index()
    after, hits = keyword_cost(busy, "release notes")
    assert after < before * 1.1  # reading the pool again for each word: a third more
    assert len(hits) == 10 and all("release notes" in h for h in hits)


def test_hybrid_s_longer_keyword_list_is_ranked_from_a_keyword_search_s_pool(busy: Vault) -> None:
    # Fusion reads 3x as many keyword hits as a search shows; ranking a pool 3x as large
    # for them cost 3x the time. The list starts with the keyword search's own hits.
    conn = busy.db.conn

    def cost(**wanted: int) -> int:
        return steps(busy, lambda: keyword_search(conn, "deploy step", **wanted))

    longer = keyword_search(conn, "deploy step", limit=120, ranked_for=40)
    assert len(longer) == 120
    shown = keyword_search(conn, "deploy step", limit=40)
    assert [(h.path, h.line_start) for h in longer[:40]] == [(h.path, h.line_start) for h in shown]
    assert cost(limit=120, ranked_for=40) < cost(limit=40) * 1.3
    # What ranking a pool for all 120 costs: enough more that the two can be told apart.
    assert cost(limit=120) > cost(limit=120, ranked_for=40) * 1.5


def test_a_rare_chinese_run_of_common_bigrams_reads_only_its_own_lines(busy: Vault) -> None:
    # 版本控制 is in 1,100 lines: its bigrams 版本 and 控制 are common. Then they are in
    # 4,200 newer lines of 版本发布 and 质量控制: the lines of 版本控制 still fill the pool by
    # themselves, so the newer ones are never read, and the search costs what it did.
    body = "".join(f"- 版本控制 第{n}条\n" for n in range(1100))
    write(busy.root, "topics/记录.md", f"# 记录\n\n{body}")
    busy.index()
    before, hits = keyword_cost(busy, "版本控制")
    assert len(hits) == 10 and all("版本控制" in h for h in hits)
    lines = ["版本发布", "质量控制"] * 2100
    body = "".join(f"- {text} 又{n}条\n" for n, text in enumerate(lines))
    write(busy.root, "topics/记录二.md", f"# 记录二\n\n{body}")
    busy.index()
    after, hits = keyword_cost(busy, "版本控制")
    assert after < before * 1.1
    assert len(hits) == 10 and all("版本控制" in h for h in hits)


def test_a_common_word_asked_as_a_prefix_is_read_by_its_whole_forms(busy: Vault) -> None:
    # FTS5 reads every row of every term a prefix covers before it returns one ("user"*
    # took 60 ms at 100,000 notes), so a word whose whole forms are common is gathered by
    # them: "deploying" is asked as "deploy"*, and "deploy" alone is in 3,000 lines.
    (unit,) = parse_query("deploying").units
    assert unit.fts.endswith('"deploy"*') and unit.exact is not None
    probe = ranking._probe(busy.db.conn, unit, EXACT_ROWS, ranking._id_span(busy.db.conn))
    assert probe.common and probe.fts == unit.exact
    hits = matched(busy, "deploying", limit=10)
    assert len(hits) == 10 and all("deploy" in h for h in hits)


def test_a_rare_word_asked_as_a_prefix_still_finds_its_other_forms(busy: Vault) -> None:
    write(busy.root, "topics/zoo.md", "# Zoo\n\n- two zebras crossed at noon\n")
    busy.index()
    (unit,) = parse_query("zebras").units
    probe = ranking._probe(busy.db.conn, unit, EXACT_ROWS, ranking._id_span(busy.db.conn))
    assert not probe.common and probe.fts == unit.fts  # the prefix: zebra, zebras, ...
    hits = matched(busy, "zebras", limit=10)
    assert "- two zebras crossed at noon" in hits
    assert "- zebra crossings are striped" in hits


def test_the_hits_front_matter_tags_cost_the_same_among_many_tagged_notes(
    tmp_path: Path,
) -> None:
    # Front matter tags have no chunk; SQLite once looked the hits' up among every tagged
    # note of the vault ("chunk IS NULL") instead of by the hits' paths.
    Vault.init(tmp_path / "v")
    with Vault(tmp_path / "v") as vault:
        for name in ("zebra", "okapi"):
            write(vault.root, f"topics/{name}.md", f"---\ntags: [{name}-tag]\n---\n# Z\n\nzebra\n")
        vault.index()
        before = steps(vault, lambda: vault.search("zebra"), every=1)
        for n in range(400):
            tags = ", ".join(f"t{n}x{k}" for k in range(5))
            write(vault.root, f"topics/other-{n}.md", f"---\ntags: [{tags}]\n---\n# O\n\nhorse\n")
        vault.index()
        hits = vault.search("zebra")
        after = steps(vault, lambda: vault.search("zebra"), every=1)
    assert sorted(tag for hit in hits for tag in hit.tags) == ["okapi-tag", "zebra-tag"]
    assert after < before * 1.3


def test_a_note_longer_than_sqlites_parameter_limit_is_found_and_reindexed(tmp_path: Path) -> None:
    # SQLite takes so many parameters a statement (32,766; 999 before 3.32): a search asked
    # for every hit, or a note's rows replaced after an edit, must not pass its ids in one
    # list. The connection's limit is lowered so that a note of 300 lines crosses it.
    root = tmp_path / "vault"
    Vault.init(root)
    body = "".join(f"- alpha line {n} #t\n\n" for n in range(300))
    write(root, "topics/long.md", f"# Long\n\n{body}")
    with Vault(root) as vault:
        vault.db.conn.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 100)
        vault.index()
        hits = vault.search("alpha", limit=100_000, mode="keyword", context=0)
        assert len(hits) == 300 and all(h.tags == ["t"] for h in hits)
        write(root, "topics/long.md", "# Long\n\n" + body.replace("alpha", "omega"))
        vault.index()  # every old row out, every new one in
        assert len(vault.search("omega", limit=100_000, mode="keyword", context=0)) == 300
        assert vault.search("alpha", mode="keyword") == []
