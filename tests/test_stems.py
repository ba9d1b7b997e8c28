"""The one English stemmer (``vaultmem/index/stems.py``) and its three rules."""

from __future__ import annotations

import pytest

from vaultmem.index.stems import PLURAL, SEARCH, VERB, Rule, stem


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("meetings", "meet"),  # "ings" before "ing" and "s"
        ("meeting", "meet"),
        ("created", "creat"),  # a prefix of create, created, creator
        ("creates", "creat"),
        ("happily", "happi"),
        ("amazingly", "amaz"),
        ("repeatedly", "repeat"),
        ("stories", "stor"),
        ("studied", "stud"),
        ("class", "clas"),  # a prefix may cut more than a stem
        ("glasses", "glass"),
        ("users", "user"),
        ("make", "mak"),
        ("sings", "sing"),  # "ings" would leave one letter: "s" is the first that fits
        ("sing", "sing"),
        ("bed", "bed"),
        ("art", "art"),
        ("schöne", "schön"),  # any letters
        ("", ""),
    ],
)
def test_search_drops_the_first_ending_that_leaves_three_letters(word: str, expected: str) -> None:
    assert stem(word, SEARCH) == expected


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("runs", "run"),
        ("meetings", "meeting"),
        ("glass", "glass"),  # never the "ss" of a singular
        ("bus", "bus"),  # three letters stay
        ("cafés", "café"),
        ("running", "running"),
        ("s", "s"),
    ],
)
def test_plural_drops_an_s(word: str, expected: str) -> None:
    assert stem(word, PLURAL) == expected


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("running", "run"),  # the doubled consonant undone
        ("planned", "plan"),
        ("stopped", "stop"),
        ("drinking", "drink"),
        ("enjoyed", "enjoy"),
        ("passed", "pass"),  # s and l double in the word itself
        ("called", "call"),
        ("agreed", "agre"),
        ("sing", "sing"),  # one letter would be left
        ("bed", "bed"),
        ("ended", "end"),
        ("fééd", "fééd"),  # ASCII words only
        ("meetings", "meetings"),  # after PLURAL: "meeting" -> "meet"
    ],
)
def test_verb_drops_ing_and_ed_undoubling(word: str, expected: str) -> None:
    assert stem(word, VERB) == expected


def test_running_and_runs_share_a_stem_after_plural_then_verb() -> None:
    # How conflicts.py compares two statements' cores ("I enjoy running" / "I hate my runs").
    def core_stem(w: str) -> str:
        return stem(stem(w, PLURAL), VERB)

    assert core_stem("running") == core_stem("runs") == core_stem("run") == "run"
    assert core_stem("meetings") == core_stem("meeting") == "meet"


@pytest.mark.parametrize("rule", [SEARCH, PLURAL, VERB])
def test_a_word_without_an_ending_comes_back_as_it_is(rule: Rule) -> None:
    word = "".join(["pyth", "on"])  # built, so not the interned literal
    assert stem(word, rule) is word
