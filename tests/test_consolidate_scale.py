"""Consolidation at scale (issue 15, item 5): work bounded per line, progress reported.

Speed itself is measured by ``bench/consolidate_bench.py full``; these tests count work
(word comparisons, names read) and check what a run prints, on a terminal and off one.
"""

from __future__ import annotations

import datetime as dt
import gc
import math
import os
import pty
import random
import subprocess
import sys
import tracemalloc
import weakref
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import run_cli, write

from vaultmem import Vault
from vaultmem.cli import cli
from vaultmem.memory.pipeline import reading as reading_module
from vaultmem.memory.pipeline.facts import parse_entry
from vaultmem.memory.pipeline.factset import FactSet, _most_shared
from vaultmem.memory.pipeline.gc_pause import young_collections_only
from vaultmem.memory.pipeline.reading import People

DAY = dt.date(2026, 11, 22)
NOTES = 120  # over the 100 daily notes from which a terminal gets a bar


def name(n: int) -> str:
    """A person's name of its own for each ``n``: Pataa, Patab, ..."""
    return "Pat" + chr(ord("a") + n // 26) + chr(ord("a") + n % 26)


def many_notes(root: Path, count: int = NOTES) -> None:
    """``count`` daily notes of one fact each, each naming a new person."""
    start = dt.date(2026, 1, 1)
    for n in range(count):
        day = (start + dt.timedelta(days=n)).isoformat()
        write(
            root,
            f"memory/{day}.md",
            f"# {day}\n\n- **user** Remember that {name(n)} is allergic to item {n} ^m{n}\n",
        )


@pytest.fixture
def busy_vault(vault_path: Path) -> Path:
    many_notes(vault_path)
    return vault_path


def test_a_new_fact_finds_its_repeat_among_many_that_share_its_words() -> None:
    # How many of them are weighed is the lookup's cost (bench/consolidate_bench.py).
    facts = FactSet()
    # 300 facts sharing two words with the new one: each a candidate, none a repeat or a
    # contradiction of it.
    for n in range(300):
        facts.add(f"a{n:03d}", f"Atlas ticket {n} concerns widget{n} and gadget{n}")
    facts.add("repeat", "The Atlas ticket status is green")
    match = facts.best("Atlas ticket status", 0.8, 0.5)
    assert match is not None and (match.key, match.verdict) == ("repeat", "duplicate")


def test_the_weighted_similarity_is_summed_exactly_whatever_the_order_of_the_words() -> None:
    """Two copies of one set may give their words in different orders (a set and its copy
    from the reader's process): the weights are summed exactly, so facts of equal words
    tie exactly and rank by age, never by a last bit of rounding."""
    idf = {"a": 1.0, "b": 1e-16, "c": 1e-16} | {w: 0.1 for w in "defgh"}
    shared, union = frozenset("abc"), frozenset("abcdefgh")
    exact = math.fsum(idf[w] for w in shared) / math.fsum(idf[w] for w in union)
    in_order = sum((1.0, 1e-16, 1e-16)) / sum((1.0, 1e-16, 1e-16, 0.1, 0.1, 0.1, 0.1, 0.1))
    assert exact != in_order  # a plain sum gives another value in some order
    assert FactSet()._similarity(shared, union, dict(idf)) == exact


def test_each_new_fact_gets_the_verdict_its_relation_calls_for() -> None:
    """The verdicts the bounds that rule pairs out before weighing them must keep: a
    contradiction, an extension, a repeat, a change of stance, a repeat in fewer words."""
    texts = [
        "I live in Berlin",
        "Alice is allergic to peanuts",
        "We decided to use PostgreSQL 16 for Atlas",
        "My favourite color is blue",
        "Atlas ticket 4 concerns widget4 and gadget4",
        "I drink coffee every morning",
        "I like green tea",
    ]
    news = [
        "I moved to Paris, I live in Paris now",
        "Alice is allergic to peanuts and shellfish",
        "Actually we switched Atlas to MySQL 8, not PostgreSQL",
        "My favourite color is green",
        "Atlas ticket 4 concerns widget4 and gadget4",
        "I no longer drink coffee every morning",
        "I truly dislike green tea, frankly",  # a third of the words: the stance relates
        "Atlas widget4",
    ]
    facts = FactSet()
    for n, text in enumerate(texts):
        facts.add(f"k{n}", text)
    found = [facts.best(text, 0.8, 0.5) for text in news]
    assert [None if m is None else (m.key, m.verdict) for m in found] == [
        ("k0", "conflict"),
        ("k1", "subsumes"),
        ("k2", "conflict"),
        ("k3", "conflict"),
        ("k4", "duplicate"),
        ("k5", "conflict"),
        ("k6", "conflict"),
        ("k4", "duplicate"),
    ]


class CountingSet(set[str]):
    """A set that counts the names read out of it one by one."""

    read = 0

    def __iter__(self) -> Iterator[str]:
        for name in super().__iter__():
            CountingSet.read += 1
            yield name


def test_known_names_are_not_read_again_for_every_line(
    busy_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_score = reading_module.score

    def spy(text: str, weights: Any, known: Any, **options: Any) -> Any:
        return real_score(text, weights, CountingSet(known), **options)

    CountingSet.read = 0
    monkeypatch.setattr(reading_module, "score", spy)
    with Vault(busy_vault) as vault:
        report = vault.consolidate("full", today=DAY)
    assert report.collected == NOTES
    # Each line names a new person: folding the growing set of known names for every
    # line read 0 + 1 + ... + 119 names.
    assert CountingSet.read <= NOTES


def test_progress_is_told_of_every_daily_note(busy_vault: Path) -> None:
    seen: list[tuple[int, int]] = []
    with Vault(busy_vault) as vault:
        vault.consolidate(
            "full", today=DAY, progress=lambda done, total: seen.append((done, total))
        )
    assert seen == [(n, NOTES) for n in range(1, NOTES + 1)]


def summary_lines(output: str) -> list[str]:
    lines = output.splitlines()
    assert lines[0].startswith(f"consolidate (full): {NOTES} new facts")
    assert lines[1].startswith(f"{NOTES} lines collected, {NOTES} admitted;")
    return lines


def test_cli_without_a_terminal_prints_the_summary_and_no_bar(busy_vault: Path) -> None:
    result = CliRunner().invoke(
        cli,
        ["consolidate", "--mode", "full", "--today", "2026-11-22", "--vault", str(busy_vault)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0
    assert len(summary_lines(result.stdout)) == 2
    assert "consolidating" not in result.output


def test_a_process_without_a_terminal_prints_the_summary_and_no_bar(busy_vault: Path) -> None:
    result = run_cli(busy_vault, "consolidate", "--mode", "full", "--today", "2026-11-22")
    assert result.returncode == 0, result.stderr
    assert len(summary_lines(result.stdout)) == 2
    assert result.stderr == ""


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is POSIX")
def test_a_process_on_a_terminal_draws_a_bar(busy_vault: Path) -> None:
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "vaultmem", "consolidate", "--mode", "full"]
        + ["--today", "2026-11-22", "--vault", str(busy_vault)],
        stdout=subprocess.PIPE,
        stderr=terminal,
        text=True,
    )
    os.close(terminal)
    shown = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        shown += chunk
    stdout, _ = process.communicate(timeout=300)
    os.close(controller)
    assert process.returncode == 0
    assert b"consolidating" in shown and b"100%" in shown
    assert len(summary_lines(stdout)) == 2


@pytest.mark.parametrize("seed", range(20))
def test_candidates_by_shared_postings_are_those_of_a_full_sort(seed: int) -> None:
    """The keys picked are those of sorting every key: in two or more lists, by lists
    holding it (descending) then newest; then the keys of one list, rarest word's list
    first, newest first; whatever the sizes and overlaps of the lists."""
    rng = random.Random(seed)
    pool = range(rng.choice((5, 60, 400)))  # facts' numbers: the order they were added
    lists = [sorted(rng.sample(pool, rng.randint(0, len(pool)))) for _ in range(rng.randint(0, 4))]
    counts = Counter(number for numbers in lists for number in numbers)
    several = sorted((n for n in counts if counts[n] > 1), key=lambda n: (-counts[n], -n))
    single = [n for numbers in lists for n in reversed(numbers) if counts[n] == 1]
    for limit in (1, 3, 50, 1000):
        assert _most_shared(lists, limit) == (several + single)[:limit]


def test_a_parsed_fact_line_is_held_in_little_memory() -> None:
    """A full run holds every fact line of the vault parsed: its fields are kept in one
    flat tuple (a list of pairs took some 830 bytes a line, this some 500)."""
    lines = [
        f"- Caroline: I went to the support group number {n} yesterday [kind:: event] "
        f"[importance:: 0.6] [person:: Caroline] [when:: 2024-12-0{n % 9 + 1}] "
        f"[source:: [[memory/2024-12-02#^s{n}-3]]] ^f{n:010x}"
        for n in range(2000)
    ]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        entries = [parse_entry(line) for line in lines]
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    first = entries[0]
    assert first is not None and first.fields[:2] == [("kind", "event"), ("importance", "0.6")]
    assert first.values("source") == ["[[memory/2024-12-02#^s0-3]]"] and not first.tags
    assert held / len(lines) < 650


SAID = [
    "I live in Berlin",
    "I moved to Paris last month",
    "Remember: my dentist is Dr. Chen, on Friday 3pm",
    "Alice is allergic to peanuts",
    "Alice is allergic to peanuts and shellfish",
    "We decided to ship Atlas on Python 3.12",
    "I no longer drink coffee",
    "I drink coffee every morning",
    "我住在上海",
    "我现在住在北京",
    "lunch with Tom and Priya about the budget",
    "my api key is sk-live-abcdefghijklmnopqrstuvwx, keep it",
    "ok thanks",
]


def varied_notes(root: Path, count: int) -> None:
    """``count`` daily notes of lines that repeat, contradict and extend each other, with
    speakers, block ids and none, a sync conflict copy and a note that is no daily note."""
    rng = random.Random(11)
    start = dt.date(2026, 1, 1)
    for n in range(count):
        day = (start + dt.timedelta(days=n)).isoformat()
        lines = []
        for i in range(rng.randint(1, 6)):
            said = f"{rng.choice(SAID)} ({rng.choice(['', 'again', f'round {n % 7}'])})"
            block = f" ^m{n}-{i}" if rng.random() < 0.5 else ""
            speaker = rng.choice(["**user**", "**Caroline**:", ""])
            lines.append(f"- {speaker} {said}{block}".replace("-  ", "- "))
        write(root, f"memory/{day}.md", f"# {day}\n\n" + "\n".join(lines) + "\n")
    write(root, "memory/2026-01-03.sync-conflict-20260104-101010-ABCDEFG.md", "- I live in Rome\n")
    write(root, "memory/ideas.md", "- I live in Lisbon\n")


def test_a_run_read_in_a_child_process_writes_what_one_read_here_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large run reads and scores the daily notes in a forked child (``reading.py``)
    while it compares facts: the files, the memory log and the report are those of a run
    that reads them itself."""
    forks: list[bool] = []
    real_forked = reading_module.forked

    def spy(produce: Any, batch: int, ahead: int, fork: bool = True) -> Any:
        forks.append(fork)
        return real_forked(produce, batch, ahead, fork)

    monkeypatch.setattr(reading_module, "forked", spy)
    results = {}
    for how, least in (("child", 1), ("here", 10**9)):
        root = tmp_path / how
        Vault.init(root)
        varied_notes(root, 80)
        monkeypatch.setattr(reading_module, "FORK_MIN_NOTES", least)
        with Vault(root) as vault:
            report = vault.consolidate("full", today=DAY)
        files = {
            str(path.relative_to(root)): path.read_text(encoding="utf-8")
            for path in sorted(root.rglob("*.md"))
            if ".git" not in path.parts
        }
        log = [
            line.split("\t", 1)[1]  # without the time it was written
            for path in sorted((root / ".vaultmem" / "log").iterdir())
            for line in path.read_text(encoding="utf-8").splitlines()
        ]
        results[how] = (files, log, report.new_facts, report.superseded, report.notices)
    assert forks == [True, False]
    here = results["here"]
    assert all(result == here for result in results.values())
    files, log, new_facts, superseded, notices = here
    assert new_facts > 20 and superseded > 0 and len(log) > new_facts
    assert any("sync conflict copy" in notice for notice in notices)


def test_a_name_the_reader_learns_from_a_line_not_kept_makes_no_person(vault_path: Path) -> None:
    """A name is a person by being known only when a kept fact holds it: the reader (which
    reads ahead, in a child) also learns names from lines the run does not keep, here one
    that confirms a belief, and such a line is read again with the run's own names."""
    notes = {
        "2026-03-01": "I think the Atlas budget review will slip to March",
        "2026-03-02": "Quinn said the Atlas budget review will slip to March",
        "2026-03-03": "Quinn approved the hiring plan for the Atlas team",
    }
    for day, words in notes.items():
        write(vault_path, f"memory/{day}.md", f"# {day}\n\n- {words} [importance:: 0.9]\n")
    with Vault(vault_path) as vault:
        report = vault.consolidate("full", today=dt.date(2026, 3, 4))
    assert (report.new_facts, report.confirmed) == (2, 1)
    facts = "".join(p.read_text(encoding="utf-8") for p in (vault_path / "facts").rglob("*.md"))
    assert "Quinn approved the hiring plan" in facts
    assert "[person:: Quinn]" not in facts


def test_people_know_which_lines_the_two_sets_of_names_read_alike() -> None:
    people = People()
    people.add(["Alice"])
    people.start_reader()
    assert people.alike("Alice approved the plan")
    people.add(["Quinn"], reader=True)  # from a line the run did not keep
    assert not people.alike("Quinn approved the plan") and people.alike("Alice left")
    people.add(["Quinn"])  # a fact kept later holds it too: the sets agree again
    assert people.alike("Quinn approved the plan")
    people.add(["Zoe"])  # a name the run holds and the reader never learnt
    assert not people.alike("Zoe approved the plan")


def test_a_run_defers_full_collections_and_gives_the_setting_back(busy_vault: Path) -> None:
    """The collector's full walks over the run's growing heap of facts wait for the end of
    the run (``collector.py``); the process's own setting is back once it has ended."""
    before = gc.get_threshold()
    during: list[int] = []
    with Vault(busy_vault) as vault:
        vault.consolidate(
            "full", today=DAY, progress=lambda done, total: during.append(gc.get_threshold()[2])
        )
    assert during and min(during) > 1_000_000
    assert gc.get_threshold() == before


def test_young_collections_still_free_cycles_dropped_during_a_run() -> None:
    class Node:
        other: Node

    with young_collections_only():
        node = Node()
        node.other = node
        gone = weakref.ref(node)
        del node
        held = [[] for _ in range(100_000)]  # allocations enough for many young collections
        assert gone() is None
        del held


def test_overlapping_runs_give_the_setting_back_when_the_last_ends() -> None:
    before = gc.get_threshold()
    first = young_collections_only()
    second = young_collections_only()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert gc.get_threshold()[2] > 1_000_000  # the second run is still under way
    second.__exit__(None, None, None)
    assert gc.get_threshold() == before
    with pytest.raises(RuntimeError), young_collections_only():
        raise RuntimeError("a run that fails")
    assert gc.get_threshold() == before
