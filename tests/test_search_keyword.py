"""Keyword search finds what a question means: possessives, month names, note names, and
front matter that is never a hit (issue 14)."""

from __future__ import annotations

import pytest
from conftest import write

from vaultmem import Vault


def texts(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [h.text for h in hits]


@pytest.fixture
def chat(vault: Vault) -> Vault:
    write(
        vault.root,
        "memory/2026-05-02.md",
        (
            "# 2026-05-02\n\n"
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
