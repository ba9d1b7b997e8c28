"""States: a later statement that a standing fact changed supersedes the earlier one,
though the two share no value and often no word ("I work as a barista" / "Starting Monday
I'm on the design team at Figma"); a question, a wish, the past, something passing, an
addition, another person or another thing never does. Rules only, English and Chinese.
``bench/update_eval.py`` scores the same rules on the blind update pairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vaultmem.config import MemoryConfig
from vaultmem.memory.language import states as states_module
from vaultmem.memory.language.states import State, states
from vaultmem.memory.pipeline.factset import FactSet

PAIRS = Path(__file__).parent.parent / "bench" / "data"


def verdict(old: str, new: str) -> str | None:
    """What consolidation calls the new fact against the old one alone."""
    memory = MemoryConfig()
    facts = FactSet()
    facts.add("old", old)
    match = facts.best(new, memory.duplicate_similarity, memory.conflict_similarity)
    return None if match is None else match.verdict


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "Ana: I work as a barista at the Blue Bottle.",
            "Ana: Starting Monday I'm on the design team at Figma.",
        ),
        (
            "Marco is a senior engineer at Stripe.",
            "Marco got laid off last week, he's looking around now.",
        ),
        (
            "Maya: I'm living with my parents while I save up.",
            "Maya: Got my own studio downtown, no more curfews lol",
        ),
        (
            "Nina: I'm single and honestly loving it.",
            "Nina: Met someone at the gym, it's official now.",
        ),
        ("Ahmed: My cat Luna is fourteen.", "Ahmed: We had to put Luna to sleep this morning."),
        ("I don't own a car.", "Picked up a used Golf yesterday, first car that's actually mine!"),
        ("Emma: Can't function before my two coffees.", "Emma: I've cut out coffee completely."),
        (
            "Ben: We're flying to Japan on 12 April.",
            "Ben: The Japan trip is off, the visa didn't come through.",
        ),
        (
            "Kim: We track everything in Jira.",
            "Kim: Jira's gone, the whole team lives in Linear since Monday.",
        ),
        ("User is dating someone named Chris.", "User and Chris broke up last month."),
        ("陈浩: 我在字节跳动做后端开发。", "陈浩: 下周一去腾讯报到，有点紧张。"),
        ("老马: 我一天得抽一包烟。", "老马: 戒烟三个月了，一根都没碰过。"),
        ("许静: 我没养宠物，公寓不让养。", "许静: 今天从救助站领回一只三花猫。"),
        ("邓琳: 这个项目的预算是50万。", "邓琳: 领导批了追加申请，预算一共80万了。"),
    ],
)
def test_a_change_of_a_standing_fact_supersedes_it(old: str, new: str) -> None:
    assert verdict(old, new) == "conflict"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # another person, another relative, another attribute
        ("Kenji: We live in Queens.", "Maya: I live in Brooklyn now."),
        ("Marco works at Stripe.", "Marco's wife Elena just started at Shopify."),
        ("我哥在成都读大学。", "我表妹今年考上了重庆大学。"),
        ("Clara: I live in Lisbon.", "Clara: I work remotely for a company in Berlin."),
        # a question, a wish, the past, something passing, an addition
        ("Mateo: I don't have a dog.", "Mateo: Should we get a dog? Been thinking about it."),
        ("Tess: I'm a nurse on the cardiac ward.", "Tess: Sometimes I wonder if I should retrain."),
        ("Maya: I live downtown in a studio.", "Maya: Lived in Tokyo for a year back in college."),
        ("Kenji: We live in Yonkers.", "Kenji: Staying at my in-laws' in Ohio for the holidays."),
        ("林晓: 我住在杭州。", "林晓: 这周在北京出差，住国贸附近的酒店。"),
        (
            "Nina: I work at the library on weekdays.",
            "Nina: Picked up weekend shifts at a café as well.",
        ),
        (
            "Olivia: We have a beagle called Biscuit.",
            "Olivia: We also adopted a kitten called Mochi.",
        ),
        # another thing of the same kind
        (
            "Lucy's birthday dinner is on Friday at 7.",
            "Dan's birthday dinner moved to Saturday at 8.",
        ),
        ("「青柠」项目月底交付。", "「蓝莓」项目的交付推迟到下个月中了。"),
        # something passing fills no empty state
        ("我没车。", "周末租了辆车带家人去郊区玩。"),
        # a conversation's small talk: "made" is no appointment, "let go" no firing
        (
            "Caroline: I'm president of the book club.",
            "Caroline: I made this bowl in my pottery class.",
        ),
        ("John: I work as a mechanic.", "John: I can't let go of my dream to make a difference."),
    ],
)
def test_what_says_no_change_of_that_state_supersedes_nothing(old: str, new: str) -> None:
    assert verdict(old, new) != "conflict"


def test_a_state_reads_whose_it_is_and_what_it_says() -> None:
    assert State("owner's grandma", "home", "starts") in states("Grandma moved into a care home.")
    assert State("ravi", "partner", "none") in states("Ravi: I'm very single, don't ask")
    assert State("owner", "job", "ends") in states("我上个月离职了。")
    # "now" makes a held state a (doubtful) change
    assert State("maya", "home", "now is") in states("Maya: I live in Brooklyn now.")
    assert states("Is the new MacBook Pro worth the upgrade?") == ()
    # a sentence about a thing is no one's home: the launch is a plan
    assert states("The launch is moving to March 3.") == (State("owner", "plan", "is"),)


def test_a_sentence_about_the_past_says_no_state() -> None:
    assert states("大学时我谈过一个女朋友，毕业就分了。") == ()
    assert states("Rita was engaged once before, back in her twenties.") == ()


def _texts() -> list[str]:
    texts = []
    for language in ("en", "zh"):
        data = json.loads((PAIRS / f"update_pairs_{language}.json").read_text(encoding="utf-8"))
        for pair in data["pairs"]:
            texts += [pair["old"], pair["new"]]
    return texts


def test_the_gates_skip_only_patterns_that_cannot_match(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pattern is tried only on a line holding one of its words (``_admitted``): every
    pair's text reads the same states with every pattern tried."""
    texts = _texts()
    gated = [states(text) for text in texts]
    monkeypatch.setattr(states_module, "_admitted", lambda text: list(states_module._PATTERNS))
    assert [states(text) for text in texts] == gated
