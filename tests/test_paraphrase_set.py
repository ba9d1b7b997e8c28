"""The paraphrase set is what it claims to be: enough pairs of each kind, each question
sharing no word with its memory, and memories that land one per line in daily notes.
(``test_semantic_recall.py`` uses it to check that embeddings find what was meant.)"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from paraphrase import (
    KINDS,
    Pair,
    cjk_bigrams,
    content_words,
    load,
    shared_words,
    write_daily_notes,
)

from vaultmem import Vault

PAIRS, MEMORIES = load()


def test_the_set_has_enough_pairs_of_each_kind_and_distractors() -> None:
    counts = {kind: sum(p.kind == kind for p in PAIRS) for kind in KINDS}
    assert len(PAIRS) >= 40
    assert counts["en"] >= 10 and counts["zh"] >= 10 and counts["en-zh"] >= 10
    assert counts["zh-en"] >= 3
    answers = [p.memory.ident for p in PAIRS]
    assert len(set(answers)) == len(answers)  # one question per memory
    assert len({m.ident for m in MEMORIES}) == len(MEMORIES)
    distractors = [m for m in MEMORIES if m.ident not in set(answers)]
    assert len(distractors) >= 35
    assert {bool(cjk_bigrams(m.text)) for m in distractors} == {True, False}  # both languages


@pytest.mark.parametrize("pair", PAIRS, ids=[p.question for p in PAIRS])
def test_each_question_is_in_the_language_its_kind_says(pair: Pair) -> None:
    asked, answered = pair.kind.split("-") if "-" in pair.kind else [pair.kind] * 2
    for text, lang in ((pair.question, asked), (pair.memory.text, answered)):
        assert bool(cjk_bigrams(text)) == (lang == "zh"), text


@pytest.mark.parametrize("pair", PAIRS, ids=[p.question for p in PAIRS])
def test_no_question_shares_a_word_with_its_memory(pair: Pair) -> None:
    assert shared_words(pair.question, pair.memory.text) == set()


def test_the_shared_word_check_catches_forms_prefixes_and_bigrams() -> None:
    assert shared_words("When is my birthday?", "Birthdays are in June") == {"birthday/birthdays"}
    assert shared_words("Who is my doctor?", "Doc Okafor at Riverside") == {"doctor/doc"}
    assert shared_words("我的生日是哪天？", "生日在三月") == {"生日"}
    assert shared_words("What is it?", "It is what it is") == set()  # function words
    assert content_words("my daughter's bike") == {"daughter", "bike"}


def test_the_memories_are_one_daily_note_line_each(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    Vault.init(root)
    where = write_daily_notes(root, MEMORIES)
    with Vault(root) as vault:
        vault.index()
        chunks = {
            (path, line): text
            for path, line, text in vault.db.conn.execute(
                "SELECT path, line_start, text FROM chunks WHERE line_start = line_end"
            )
        }
    for memory in MEMORIES:
        path, line = where[memory.ident]
        dt.date.fromisoformat(path.removeprefix("memory/").removesuffix(".md"))
        assert chunks[(path, line)] == f"- {memory.text}"


MEANING = Path(__file__).parents[1] / "bench" / "data" / "meaning_pairs.json"


def test_the_meaning_set_is_paraphrase_with_a_frozen_third_of_each_kind() -> None:
    """``bench/meaning_eval.py``'s set (issue 37): at least 150 pairs, none sharing a word
    with its memory, in the languages its kind says, a third of each kind frozen."""
    data = json.loads(MEANING.read_text(encoding="utf-8"))
    pairs = data["pairs"]
    assert len(pairs) >= 150 and len(data["distractors"]) >= 100
    for pair in pairs:
        assert shared_words(pair["question"], pair["memory"]) == set(), pair["id"]
        asked, answered = pair["kind"].split("-") if "-" in pair["kind"] else [pair["kind"]] * 2
        assert bool(cjk_bigrams(pair["question"])) == (asked == "zh"), pair["id"]
        assert bool(cjk_bigrams(pair["memory"])) == (answered == "zh"), pair["id"]
    for kind in KINDS:
        splits = [p["split"] for p in pairs if p["kind"] == kind]
        assert len(splits) >= 30 and abs(splits.count("frozen") - len(splits) / 3) <= 1
    memories = [p["memory"] for p in pairs] + data["distractors"]
    assert len(set(memories)) == len(memories)
