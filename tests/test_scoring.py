"""The rule table, in English and Chinese: classes, signals, penalties, dropped lines."""

from __future__ import annotations

import pytest

from vaultmem.config import ScoringConfig
from vaultmem.memory.language.scoring import entities, score


@pytest.mark.parametrize(
    "text, kind",
    [
        ("My name is Dana and I live in Porto", "identity"),
        ("我叫小明，今年三十岁了", "identity"),
        ("She is allergic to peanuts and shellfish", "health"),
        ("医生说我对青霉素过敏，不能用", "health"),
        ("In an emergency call my sister first", "safety"),
        ("I prefer short answers with code first", "preference"),
        ("我更喜欢用 Vim 写代码而不是 VS Code", "preference"),
        ("My colleague reviews every release branch", "relationship"),
        ("Alice moved to Berlin last spring", "status change"),
        ("我们团队已经改用飞书来沟通", "status change"),
        ("I am stepping out for lunch right now", "temporary"),
        ("The build server is in the basement room", "general fact"),
        ("My phone number is +49 151 2345 6789", "identity"),
        ("我的手机号是 13800138000", "identity"),
    ],
)
def test_classes(text: str, kind: str) -> None:
    assert score(text).kind == kind


@pytest.mark.parametrize(
    "text, reason",
    [
        ("Please remember the wifi name is Orchard", "asked to remember"),
        ("记住，以后都用中文回复我", "asked to remember"),
        ("FYI the staging database password rotates every 90 days", "asked to remember"),
        ("Please note the office closes at 6 on Fridays", "asked to remember"),
        ("The quote came to $40 for the whole set", "money"),
        ("这个项目预算是 5 万元左右吧", "money"),
        ("这次采购一共花了 100 元人民币", "money"),
        ("This is important for the audit next year", "important"),
        ("这个接口必须在周五之前完成对接", "important"),
        ("We need a new domain for the staging site", "need"),
        ("我想要一台更安静的机械键盘用来工作", "need"),
        ("The deploy failed with a timeout error", "error"),
        ("测试环境又报错了，日志里全是超时", "error"),
        ("We decided to always squash merge into main", "decision or rule"),
        ("Upgraded the database to 16.4 this afternoon", "version"),
        ("Changed the config so the port is 8080 again", "configuration"),
        ("The migration succeeded on the first attempt", "done"),
        ("数据迁移已经成功完成，没有丢数据", "done"),
        ("The review is on 2026-12-01 in the big room", "date"),
        ("By the way the coffee machine is broken again", "by the way"),
        ("顺便说一下，楼下新开了一家面馆挺好吃", "by the way"),
    ],
)
def test_signals(text: str, reason: str) -> None:
    assert any(r.startswith(reason) for r in score(text).reasons), score(text).reasons


def test_weights_add_up_and_are_clamped() -> None:
    result = score("We decided to always use SQLite for storage and search")
    # general, decision, something happened ("we decided"), brief (55 chars)
    assert result.value == pytest.approx(0.5 + 0.2 + 0.15 - 0.1)
    assert score("Please remember: I am allergic to penicillin, this is important").value == 1.0
    assert score("By the way the lift squeaks in the mornings").value == pytest.approx(
        0.5 - 0.2 - 0.1
    )


def test_short_text_counts_half_with_cjk_weighted() -> None:
    assert score("lunch at noon").value == pytest.approx(0.25)
    assert "short text x0.5" not in score("记住我对花生过敏").reasons  # 8 CJK characters


@pytest.mark.parametrize(
    "text", ["ok", "OK!", "thanks", "Thank you.", "好的", "嗯嗯", "收到", "👍", "  "]
)
def test_acknowledgements_are_dropped(text: str) -> None:
    result = score(text)
    assert result.dropped is not None and result.value == 0.0


@pytest.mark.parametrize(
    "text",
    [
        "We decided to always use SQLite for storage and search",
        "lunch at noon",
        "Lunch with Carol on the terrace",
        "记住我对花生过敏",
        "Please remember: I am allergic to penicillin, this is important",
    ],
)
def test_a_score_without_reasons_is_the_same_score(text: str) -> None:
    explained, bare = score(text), score(text, explain=False)
    assert explained.reasons and bare.reasons == ()
    assert (bare.value, bare.kind, bare.signals) == (
        explained.value,
        explained.kind,
        explained.signals,
    )


def test_first_mention_of_an_entity() -> None:
    assert any(
        r.startswith("first mention of Carol")
        for r in score("Lunch with Carol on the terrace").reasons
    )
    assert not any(
        r.startswith("first mention")
        for r in score("Lunch with Carol on the terrace", known=["carol"]).reasons
    )
    assert entities("Met [[Bob Stone]] and Carol at Tate Modern") == [
        "Bob Stone",
        "Carol",
        "Tate Modern",
    ]


def test_every_weight_comes_from_config() -> None:
    weights = ScoringConfig(class_general=0.1, decision=0.05, brief=0.0, event=0.0)
    assert score("We decided to keep the old router in the hall", weights).value == pytest.approx(
        0.15
    )


@pytest.mark.parametrize(
    "text, reason",
    [
        ("I just signed with a new team and the season starts in March", "event"),
        ("我昨天参加了一个关于长期记忆的研讨会，收获很大", "event"),
        ("Did you ever go back to that little bakery near the station?", "question"),
        ("你下周还去上海出差吗", "question"),
        ("Wow, that sounds like a lot of fun for the whole family!", "chatter"),
        ("哈哈，太好笑了，你们那边的猫也太可爱了吧", "chatter"),
        ("x" * 130, "detailed"),
        ("The printer on the second floor jams a lot", "brief"),
    ],
)
def test_conversation_signals(text: str, reason: str) -> None:
    assert any(r.startswith(reason) for r in score(text).reasons), score(text).reasons


@pytest.mark.parametrize(
    "text",
    [
        "Your painting is gorgeous, the colours really pop in that light!",
        "Congrats on the new job, that must feel incredible after all that waiting.",
        "Sounds like a fantastic trip, the mountains must have been breathtaking.",
        "Taking care of yourself matters so much, and we should all remember that.",
        "你这次比赛的表现真的太出色了，教练一定很满意吧",
    ],
)
def test_a_line_that_only_speaks_to_the_listener_counts_less(text: str) -> None:
    reasons = score(text).reasons
    assert "to the listener -0.30" in reasons, reasons


@pytest.mark.parametrize(
    "text",
    [
        "I moved to Lisbon last spring and I work at a bakery there now.",
        "Wow, we went to the Grand Canyon with the kids last weekend!",  # news: an event
        "Helios uses PostgreSQL 16 and the staging database listens on port 5433.",
        "Carol leads the design team since the reorganisation in March.",
        "我下个月搬去深圳，新公司在南山区。",
    ],
)
def test_a_line_that_tells_of_someone_is_not_taken_for_small_talk(text: str) -> None:
    reasons = score(text).reasons
    assert not any(r.startswith("to the listener") for r in reasons), reasons


@pytest.mark.parametrize(
    "text",
    [
        "I'm here for you, whatever happens with the move.",
        "Your support means a lot, I'll keep it up.",
        "Good luck with the exam tomorrow, you can do it!",
        "考试加油，有需要随时找我。",
    ],
)
def test_encouragement_counts_less(text: str) -> None:
    reasons = score(text).reasons
    assert "encouragement -0.20" in reasons, reasons
