"""Every pattern that reads a person's words runs in time linear in their length, and a
query has bounds, with a clear error past them.

The growth tests run each function that reads user text (a query, a note, a daily line,
a fact, a transcript message) on adversarial inputs of n and 10n characters (runs of one
character, repeated pairs, digits, spaces, CJK, "n't"...) and assert that the work grows
about linearly: the 10n input may cost at most 30 times the n one (a quadratic pattern
costs 100 times). That is a ratio of CPU times, measured as the least of a few runs and
measured again before a failure is believed: a growth test, not a wall-clock bar.
"""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import GROWTH_N, MOST_GROWTH, growth, write

from vaultmem import Vault
from vaultmem.cli import cli
from vaultmem.errors import QueryTooLongError
from vaultmem.index.terms import bigrams, split_cjk
from vaultmem.memory.language.changes import cue
from vaultmem.memory.language.conflicts import replaced, units, words
from vaultmem.memory.language.dates import resolve_dates
from vaultmem.memory.language.extract import extract
from vaultmem.memory.language.gates import Line
from vaultmem.memory.language.people import about, people
from vaultmem.memory.language.scoring import entities, score
from vaultmem.memory.language.slots import slots
from vaultmem.memory.language.states import parties, states, thing_names
from vaultmem.memory.language.triggers import strip_triggers
from vaultmem.memory.pipeline.facts import Entry, Fact, parse_entry
from vaultmem.memory.pipeline.transcript_formats import clean
from vaultmem.notes.parse import parse_document
from vaultmem.search.query import (
    MAX_QUERY_CHARS,
    MAX_QUERY_TERMS,
    highlight_spans,
    parse_query,
    query_problem,
)
from vaultmem.search.results import MENTION
from vaultmem.search.word_forms import forms_of

DAY = dt.date(2026, 11, 23)


def repeat(unit: str, prefix: str = "", suffix: str = "") -> Callable[[int], str]:
    """Texts of about n characters: ``prefix``, ``unit`` repeated, ``suffix``."""
    return lambda n: prefix + unit * max(1, n // len(unit)) + suffix


# Shapes every reader is tried on: runs of one character, alternations, digits, spaces,
# punctuation runs, CJK, clitics.
SHAPES = [
    "x",
    "ab",
    "a'",
    "n't",
    "xn'",
    "1",
    "12:",
    " ",
    "\t",
    ".",
    "-",
    "a-",
    "A-",
    "Ab",
    ",1",
    "1,",
    "[[",
    "([[",
    "#",
    "*",
    '"',
    "中",
    "三",
    "不",
    "中文 ",
    "—",
    " -",
    "a@b.c ",
]


# Words that open every reader's gate (most readers look at a line only when it holds one
# of their cue words): the shapes are tried after them too.
CUES = (
    "instead of x is out, the Atlas project in a/b on 1 周五 I like tea with Tom and I, "
    "remember: my email a@b.c, python 3, I live in Paris, not "
    "I work as a nurse, Jira's gone, the rent dropped to $5, moved to May 3, 我住在 "
)
AFFIXES = [("", ""), ("", "!"), ("Tom ", " x"), (CUES, "!")]


def _ids(cases: list[tuple[str, str, str]]) -> list[str]:
    return [repr(prefix + unit + suffix)[:40] for prefix, unit, suffix in cases]


QUERY = parse_query('alice "green tea" meet* 预算表格 won\'t')
READERS: dict[str, Callable[[str], object]] = {
    "parse_query": parse_query,
    "query_problem": query_problem,
    "split_cjk": split_cjk,
    "bigrams": bigrams,
    "word forms": forms_of,
    "line gates": Line.of,
    "coverage": QUERY.coverage,
    "highlight_spans": lambda text: highlight_spans(QUERY, text),
    "score": score,
    "entities": entities,
    "extract": lambda text: extract(text, DAY),
    "resolve_dates": lambda text: resolve_dates(text, DAY),
    "people": people,
    "about": about,
    "slots": slots,
    "states": states,
    "parties": parties,
    "change cue": lambda text: cue(text, frozenset()),
    "names of things": thing_names,
    "conflict words": words,
    "conflict units": units,
    "replaced": replaced,
    "strip_triggers": strip_triggers.__wrapped__,  # not its cache
    "fact line": lambda text: parse_entry(f"- {text} ^f1a2b3"),
    "fact sources": lambda text: Fact("facts/a.md", _entry(text)).sources,
    "note": parse_document,
    "transcript message": clean,
    "MEMORY.md mention": MENTION.search,
}


def _entry(text: str) -> Entry:
    entry = parse_entry(f"- words [source:: {text}] ^f1a2b3")
    assert entry is not None
    return entry


@pytest.mark.parametrize("reader", list(READERS))
def test_every_reader_of_user_text_is_linear_on_every_shape(reader: str) -> None:
    func = READERS[reader]
    slow = {
        unit: ratio
        for unit in SHAPES
        for affix in AFFIXES
        if (ratio := growth(func, repeat(unit, *affix))) >= MOST_GROWTH
    }
    assert not slow, f"{reader} grows faster than linearly on {slow}"


# The shapes that were quadratic, each with the words that open its reader's gate.
WERE_QUADRATIC = [
    ("parse_query", "", "x", ""),  # the 20,000 x's: 16 s
    ("parse_query", "", "ab", ""),
    ("about", "Sarah", " ", "x"),  # "Sarah   ...   and I"
    ("about", "my friend", " ", ","),
    ("resolve_dates", "", "1", ""),  # "30天后" from every digit of a number
    ("resolve_dates", "周", "三", "!"),
    ("resolve_dates", "", "明天下午三点 ", ""),  # each date: the nearest time, by a walk
    ("resolve_dates", "Friday", " ", "x 3pm"),  # "Friday, at 3pm": the words between
    ("extract", "", "0", "!"),  # money: "5元" from every digit
    ("extract", "", ",1", ""),
    ("extract", "a/b ", "-/", "!"),  # paths: from every hyphen
    ("extract", "a/b ", "a-", "!"),
    ("extract", "", "A-", " x project"),  # a project's name: from every word start
    ("score", "", "00", "!"),  # money
    ("score", "周 ", "1", "!"),  # "12月5日"
    ("score", "", "1.", " x"),
    ("strip_triggers", "x", "—", " note x"),  # ", remember" at the end
    ("strip_triggers", "x", " -", " note x"),
    ("strip_triggers", "x, remember", " ", "x"),
    ("replaced", "x is out ", "a-", ""),  # "X is out"
    ("slots", "", "python 3 ", ""),  # each version: the sentence read again
    ("slots", "", "my email a@b.c ", ""),  # each address: what came before, again
    ("slots", "", "不", "我住在北京"),  # "不再": the clause, from each 不
    ("slots", "", "Ab", " is my manager"),
    ("slots", "", ".", "x. I live in Paris"),  # a run of stops: where a sentence ends
    ("note", "# a", " ", "#x"),  # a heading's closing hashes
    ("note", "# a", "\t", "# x"),
    ("MEMORY.md mention", "", "([[", ""),
]
# A host tag never closed: each opening costs little, so more of them are needed to see it.
WERE_QUADRATIC_LONGER = [("transcript message", "", "<command-args>", "")]


@pytest.mark.parametrize(
    "reader, prefix, unit, suffix", WERE_QUADRATIC, ids=_ids([c[1:] for c in WERE_QUADRATIC])
)
def test_the_shapes_that_were_quadratic_are_linear(
    reader: str, prefix: str, unit: str, suffix: str
) -> None:
    ratio = growth(READERS[reader], repeat(unit, prefix, suffix))
    assert ratio < MOST_GROWTH, f"{reader}: {ratio:.0f}x for 10x the text"


@pytest.mark.parametrize(
    "reader, prefix, unit, suffix",
    WERE_QUADRATIC_LONGER,
    ids=_ids([c[1:] for c in WERE_QUADRATIC_LONGER]),
)
def test_the_cheap_shapes_that_were_quadratic_are_linear_at_length(
    reader: str, prefix: str, unit: str, suffix: str
) -> None:
    ratio = growth(READERS[reader], repeat(unit, prefix, suffix), n=10 * GROWTH_N)
    assert ratio < MOST_GROWTH, f"{reader}: {ratio:.0f}x for 10x the text"


# -- how long a query may be -----------------------------------------------------------

OVER = [
    pytest.param("x" * (MAX_QUERY_CHARS + 1), "characters", id="chars"),
    pytest.param("x" * 20_000, "characters", id="issue-20k"),
    pytest.param("n't" * 40_000, "characters", id="issue-120k"),
    pytest.param("預算" * 1001, "characters", id="cjk"),
    pytest.param("a " * 1001, "characters", id="short-words"),
    pytest.param(" ".join(f"w{i}x" for i in range(MAX_QUERY_TERMS + 1)), "terms", id="terms"),
    pytest.param(
        " ".join(f'"p{i} q{i}"' for i in range(MAX_QUERY_TERMS + 1)), "terms", id="phrases"
    ),
    pytest.param(" ".join(f"w{i}x*" for i in range(MAX_QUERY_TERMS + 1)), "terms", id="prefixes"),
    pytest.param(
        " ".join(f"中{chr(0x4E00 + i)}" for i in range(MAX_QUERY_TERMS + 1)), "terms", id="runs"
    ),
]
WITHIN = [
    pytest.param("x" * MAX_QUERY_CHARS, id="chars"),
    pytest.param(" ".join(f"w{i}x" for i in range(MAX_QUERY_TERMS)), id="terms"),
    pytest.param(" ".join(["pottery", "the", "painting"] * 200)[:MAX_QUERY_CHARS], id="repeats"),
    pytest.param(" ".join(["the", "a", "of"] * 300)[:MAX_QUERY_CHARS], id="stop-words"),
]


@pytest.mark.parametrize("query, bound", OVER)
def test_the_python_api_refuses_a_query_over_the_bounds(
    vault: Vault, query: str, bound: str
) -> None:
    for ask in (vault.search, vault.context):
        with pytest.raises(QueryTooLongError, match=bound):
            ask(query)
    problem = query_problem(query)
    assert problem is not None and bound in problem
    assert query not in problem  # the query itself is not echoed back


@pytest.mark.parametrize("query", WITHIN)
def test_a_query_within_the_bounds_is_searched(vault: Vault, query: str) -> None:
    write(vault.root, "memory/2026-11-20.md", "- pottery and painting class at nine ^d1\n")
    vault.index()
    assert query_problem(query) is None
    assert isinstance(vault.search(query), list)
    assert vault.context(query).text


@pytest.mark.parametrize("query, bound", OVER)
@pytest.mark.parametrize("command", ["search", "context"])
def test_the_cli_says_a_query_is_over_the_bounds_as_a_usage_error(
    vault_path: Path, command: str, query: str, bound: str
) -> None:
    done = CliRunner().invoke(cli, [command, query, "--vault", str(vault_path)])
    assert done.exit_code == 2, done.output
    errors = [line for line in done.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and bound in errors[0] and "at most" in errors[0]
    assert "Traceback" not in done.output


@pytest.mark.parametrize(
    "args",
    [
        ["search", "x" * 20_000],  # the command: the fast path hands it to click
        ["search", "x" * 20_000, "--json"],
        ["search", "--limit", "5", " ".join(f"w{i}x" for i in range(100))],
        ["context", "n't" * 10_000],
    ],
    ids=["search", "search-json", "search-terms", "context"],
)
def test_a_real_process_refuses_a_long_query_at_once(vault_path: Path, args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "vaultmem", *args, "--vault", str(vault_path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,  # a hang guard: the 20,000 x's took 16 s
    )
    assert done.returncode == 2
    assert done.stdout == ""
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "a query holds at most" in errors[0], done.stderr


def test_the_bounds_count_terms_once_and_not_stop_words() -> None:
    repeated = " ".join(["alpha", "beta"] * 400)[:MAX_QUERY_CHARS]
    assert query_problem(repeated) is None
    many = " ".join(f"w{i}x" for i in range(MAX_QUERY_TERMS))
    assert query_problem(many + " the of and a an") is None
    problem = query_problem(many + " onemore")
    assert problem is not None and f"{MAX_QUERY_TERMS + 1} different terms" in problem
