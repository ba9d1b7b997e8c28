"""Anchored changes: a short later line that says something changed, about a specific
thing an earlier line of the same person named, supersedes it, whatever kind of fact it
is ("Dropped Jenkins" after "We deploy with Jenkins"). Another speaker, another person, a
wish, "still", an addition, a moment told, or a long story sharing the word never does.
``bench/update_eval.py`` scores these rules with the states on the blind update pairs."""

from __future__ import annotations

import datetime as dt

import pytest
from conftest import write

from vaultmem import Vault
from vaultmem.config import MemoryConfig
from vaultmem.memory.language.changes import Phrases, cue, specific
from vaultmem.memory.language.conflicts import words
from vaultmem.memory.language.states import parties
from vaultmem.memory.pipeline.facts import parse_entries
from vaultmem.memory.pipeline.factset import FactSet


def verdict(old: str, new: str) -> tuple[str, str | None] | None:
    """What consolidation calls the new fact against the old one alone, and why."""
    memory = MemoryConfig()
    facts = FactSet()
    facts.add("old", old)
    match = facts.best(new, memory.duplicate_similarity, memory.conflict_similarity)
    return None if match is None else (match.verdict, match.signal)


@pytest.mark.parametrize(
    ("old", "new", "anchor"),
    [
        (
            "We deploy with Jenkins.",
            "Dropped Jenkins, deploys run on GitHub Actions now.",
            "jenkin",
        ),
        (
            "Sofia: My bouldering gym is Klimmhal.",
            "Sofia: Cancelled Klimmhal, too far.",
            "klimmhal",
        ),
        ("我们的需求都记在禅道里。", "禅道停掉了，需求改记到飞书。", "禅道"),
        # the one the new line opens with is named in the old one, not as its opener
        ("年糕吃的是进口狗粮。", "兽医让年糕改吃处方粮了。", "年糕"),
    ],
)
def test_a_change_of_a_thing_both_name_supersedes_it(old: str, new: str, anchor: str) -> None:
    found = verdict(old, new)
    assert found is not None and found[0] == "conflict"
    assert found[1] is not None and anchor in found[1]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # another speaker's line
        ("Ana: We deploy with Jenkins.", "Ben: Dropped Jenkins, deploys run on Bitrise now."),
        # a wish, something going on, an addition
        ("We deploy with Jenkins.", "Thinking about dropping Jenkins for GitHub Actions."),
        ("We deploy with Jenkins.", "Still on Jenkins, sadly, switching is a lot of work."),
        ("We deploy with Jenkins.", "Dropped Jenkins for the mobile builds too, they use Bitrise."),
        # another person's start is no change of the thing (the example vault's)
        (
            "The Atlas project kickoff is on Thursday; Alice leads the backend.",
            "Bob joined the Atlas team as the frontend developer.",
        ),
        # a moment told is no standing fact
        ("Went to the Klimmhal open day yesterday.", "Cancelled Klimmhal, too far."),
        # a long story sharing a word
        (
            "John: I volunteer at the Riverside shelter.",
            "John: The Riverside shelter folks finally got the roof they needed after the storm "
            "last month, and honestly everyone there was so relieved about it, me included.",
        ),
        # the name of whom a line is said to is no thing it is about
        ("Tim: Thanks, Maria! Loved the pottery.", "Tim: Thanks, Maria! I quit my job."),
    ],
)
def test_what_changes_no_thing_of_that_fact_supersedes_nothing(old: str, new: str) -> None:
    found = verdict(old, new)
    assert found is None or found[0] != "conflict", found


def test_a_change_is_read_only_where_a_change_is_said() -> None:
    def said(text: str) -> str:
        return cue(text, words(text))

    assert said("Switched to oat milk.") == "switched to"
    assert said("I don't drink coffee anymore") != ""  # a cue with a gap
    assert said("换成燕麦奶了。") != ""
    assert said("Might switch to oat milk.") == ""  # a guess
    assert said("Still switching between the two.") == ""
    assert said("In college I switched majors twice.") == ""  # the past
    long_turn = (
        "I switched to oat milk after my sister visited, and we spent the whole afternoon "
        "baking bread, walking the dogs along the river and planning her wedding"
    )
    assert said(long_turn) == ""  # a long turn is not read for a change


def test_phrases_are_found_by_their_words_longest_first() -> None:
    phrases = Phrases(["moved", "moved to", "not ... anymore", "改用"])
    assert phrases.find("We moved to Lisbon") == "moved to"
    assert phrases.find("I'm not into it anymore") == "not ... anymore"
    assert phrases.find("I'm not anymore") == ""  # the gap holds one word or more
    assert phrases.find("下个月改用新系统") == "改用"
    assert phrases.find("Removed the dock") == ""  # whole words only


def test_parties_are_the_speaker_the_subject_and_the_one_addressed() -> None:
    assert parties("Tim: Thanks, Maria! I quit my job.") == ("tim", "tim", "maria")
    assert parties("Marco's wife started at Shopify.") == ("owner", "marco's wife", "")
    assert parties("She moved to Lisbon.") == ("owner", "?", "")  # whoever was named before
    assert parties("The launch moved to May.") == ("owner", "", "")  # a thing
    assert parties("User's phone number ends in 4421.") == ("owner", "owner", "")


def test_specific_words_are_those_not_among_the_most_frequent_of_chat() -> None:
    said = words("I switched from coffee to matcha at work, 现在喝抹茶")
    assert {"matcha", "抹茶"} <= specific(said)
    assert not {"work", "switched", "现在"} & specific(said)


def test_consolidation_strikes_the_old_line_and_links_both_ways(vault: Vault) -> None:
    for day, line in (
        ("2026-03-02", "- **user** Remember: our builds run on Jenkins. ^a1"),
        ("2026-05-11", "- **user** Remember: we dropped Jenkins, builds run on Buildkite now. ^b1"),
    ):
        write(vault.root, f"memory/{day}.md", f"---\ndate: {day}\n---\n\n{line}\n")
    report = vault.consolidate(today=dt.date(2026, 5, 12))
    assert (report.new_facts, report.superseded) == (2, 1)
    lines = [
        entry.raw
        for path in (vault.root / "facts").rglob("*.md")
        for entry in parse_entries(path.read_text(encoding="utf-8"))
    ]
    old = next(line for line in lines if "run on Jenkins" in line)
    new = next(line for line in lines if "Buildkite" in line)
    assert old.startswith("- ~~") and "[superseded_by:: " in old
    assert "~~" not in new and "[supersedes:: " in new
