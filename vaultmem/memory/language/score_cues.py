"""The cue tables ``scoring.py`` reads: the class of a line, the signals that add to or
take from its importance, the conversation cues, and the statements of likelihood.

Each cue is a pattern with its gate (``gates.py``). A class or signal names the key of
``[scoring]`` in ``.vaultmem/config.toml`` that holds its weight (``docs/scoring.md``).
"""

from __future__ import annotations

import re

from vaultmem.memory.language.gates import Gate, cue_gate

# A pattern with its gate (``gates.py``): searched only on a line the gate admits (any
# line when ``None``).
Cue = tuple[re.Pattern[str], Gate | None]
_DIGIT = Gate(digit=True)  # every match holds a digit


def _cues(*words: str, extra: str = "", extra_parts: tuple[str, ...] = ()) -> Cue:
    """English words match whole (any case); Chinese cues match anywhere; ``extra`` is one
    more regex alternative, every match of which holds one of ``extra_parts``."""
    latin = [re.escape(w) for w in words if w.isascii()]
    cjk = [re.escape(w) for w in words if not w.isascii()]
    parts = ([rf"\b(?:{'|'.join(latin)})\b"] if latin else []) + cjk + ([extra] if extra else [])
    return re.compile("|".join(parts), re.I), cue_gate(words, extra_parts)


# "like" as a verb ("I like", "she likes"), not "looks like" or "like this".
_LIKING = (
    r"\b(?:i|we|you|they|who)\s+(?:really\s+|also\s+|still\s+|do(?:n't)?\s+|"
    r"did(?:n't)?\s+|would\s+)?liked?\b|\b\w+\s+likes\b"
)
_LIKING_PARTS = ("like",)


CLASSES: list[tuple[str, str, Cue]] = [
    (
        "identity",
        "class_identity",
        _cues(
            "my name",
            "i was born",
            "born in",
            "i live in",
            "birthday",
            "my wife",
            "my husband",
            "my son",
            "my daughter",
            "my phone",
            "my number",
            "my mobile",
            "my email",
            "my e-mail",
            "my address",
            "home address",
            "work at",
            "works at",
            "work as",
            "works as",
            "work for",
            "works for",
            "my job",
            "我叫",
            "我的名字",
            "生日",
            "出生",
            "我的电话",
            "我的手机",
            "手机号",
            "我的邮箱",
            "我的地址",
            "家庭住址",
            "住在",
            "我住",
            "我的工作",
            "我的职业",
            extra=r"在[^，。,.\s]{1,12}(?:工作|上班|任职)",
            extra_parts=("工作", "上班", "任职"),
        ),
    ),
    (
        "health",
        "class_identity",
        _cues(
            "allergic",
            "allergy",
            "allergies",
            "medication",
            "medicine",
            "diagnosed",
            "doctor",
            "asthma",
            "diabetes",
            "pregnant",
            "过敏",
            "医生",
            "药",
            "诊断",
            "病",
        ),
    ),
    (
        "safety",
        "class_identity",
        _cues("emergency", "danger", "dangerous", "unsafe", "never share", "紧急", "危险", "安全"),
    ),
    (
        "preference",
        "class_preference",
        _cues(
            "prefer",
            "prefers",
            "preferred",
            "love",
            "loves",
            "hate",
            "hates",
            "favorite",
            "favourite",
            "喜欢",
            "讨厌",
            "偏好",
            "最爱",
            extra=_LIKING,
            extra_parts=_LIKING_PARTS,
        ),
    ),
    (
        "relationship",
        "class_preference",
        _cues(
            "friend",
            "colleague",
            "boss",
            "manager",
            "wife",
            "husband",
            "partner",
            "mother",
            "father",
            "sister",
            "brother",
            "team",
            # pets, and what someone or something is called: a name is kept for good
            "my cat",
            "my dog",
            "our cat",
            "our dog",
            "pet",
            "is called",
            "is named",
            "朋友",
            "同事",
            "老板",
            "家人",
            "妻子",
            "丈夫",
            "宠物",
            "猫叫",
            "狗叫",
        ),
    ),
    (
        "status change",
        "class_preference",
        _cues(
            "moved to",
            "switched",
            "started",
            "quit",
            "joined",
            "left",
            "promoted",
            "now uses",
            "took over",
            "adopted",
            "engaged",
            "got married",
            "broke up",
            "divorced",
            "retired",
            "graduated",
            "new job",
            "cancelled",
            "canceled",
            "postponed",
            "pushed back",
            "搬到",
            "换了",
            "开始",
            "辞职",
            "离职",
            "加入",
            "离开",
            "改用",
            "改成",
            "戒烟",
            "戒了",
            "不再",
            "推迟",
            "取消",
            "分手",
            "结婚",
            "领养",
            "转学",
            "升职",
            "退休",
            "毕业",
            "改喝",
            "改吃",
            extra=r"不(?:再)?[喝吃抽用玩住做去][^，。,.\s]{0,6}了",
            extra_parts=("不",),
        ),
    ),
    (
        "setup",
        "class_preference",
        _cues(
            "uses",
            "runs on",
            "built with",
            "written in",
            "deployed on",
            "deployed to",
            "hosted on",
            "depends on",
            "使用",
            "基于",
            "部署在",
            "跑在",
            "用的是",
        ),
    ),
    (
        "temporary",
        "class_temporary",
        _cues(
            "right now",
            "for now",
            "tonight",
            "this morning",
            "in a minute",
            "brb",
            "later today",
            "今晚",
            "马上",
            "一会儿",
            "稍后",
        ),
    ),
]

SIGNALS: list[tuple[str, str, Cue]] = [
    (
        "asked to remember",
        "remember",
        _cues(
            "remember",
            "don't forget",
            "do not forget",
            "keep in mind",
            "note that",
            "please note",
            "fyi",
            "for the record",
            "记住",
            "请注意",
            "以后都",
            "别忘了",
            "记得",
        ),
    ),
    (
        "preference",
        "preference",
        _cues(
            "prefer",
            "prefers",
            "love",
            "hate",
            "hates",
            "dislike",
            "喜欢",
            "讨厌",
            "偏好",
            "不喜欢",
            extra=_LIKING,
            extra_parts=_LIKING_PARTS,
        ),
    ),
    (
        "money",
        "money",
        (
            re.compile(
                # Each run of digits, commas and dots is tried once, from where it starts:
                # tried from each of its digits, it was read to its end from each.
                r"[$€£¥]\s?\d|(?<![\d,.])[,.]*\d[\d,.]*+\s?(?:万|元|块|美元|欧元|千|亿)"
                r"|(?<![\d,.])(?=[\d,.]*+\s?(?:usd|eur|gbp|rmb|dollars?|euros?)\b)"
                r"(?:(?<!\w)|[\d,.]*?[,.])\d",
                re.I,
            ),
            _DIGIT,
        ),
    ),
    (
        "important",
        "importance",
        _cues(
            "important", "must", "critical", "crucial", "essential", "重要", "必须", "务必", "关键"
        ),
    ),
    ("need", "need", _cues("need", "needs", "want", "wants", "需要", "想要")),
    (
        "error",
        "error",
        _cues(
            "bug",
            "error",
            "errors",
            "exception",
            "failed",
            "failure",
            "crash",
            "traceback",
            "报错",
            "错误",
            "失败",
            "崩溃",
            "异常",
        ),
    ),
    (
        "decision or rule",
        "decision",
        _cues(
            "decided",
            "decision",
            "always",
            "never",
            "policy",
            "rule",
            "agreed",
            "from now on",
            "决定",
            "总是",
            "从不",
            "规则",
            "约定",
            "以后",
        ),
    ),
    ("version", "version", (re.compile(r"\bv?\d+\.\d+(?:\.\d+)?\b"), _DIGIT)),
    (
        "configuration",
        "configuration",
        _cues(
            "config",
            "configuration",
            "setting",
            "settings",
            "environment variable",
            "port",
            "配置",
            "设置",
            "参数",
        ),
    ),
    (
        "done",
        "success",
        _cues(
            "done",
            "fixed",
            "succeeded",
            "success",
            "shipped",
            "released",
            "completed",
            "完成",
            "成功",
            "搞定",
            "上线",
        ),
    ),
    (
        "date",
        "date",
        (
            re.compile(
                r"\b\d{4}-\d{2}-\d{2}\b|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|"
                r"\btomorrow\b|\bnext (?:week|month|year)\b|明天|后天|下周|下个月|"
                r"(?<!\d)\d+月\d+[日号]|"  # a number from its first digit, not from each
                r"周[一二三四五六日]",
                re.I,
            ),
            Gate(
                frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
                | {"tomorrow", "next"},
                ("明天", "后天", "周", "下个月"),
                digit=True,
            ),
        ),
    ),
    ("by the way", "by_the_way", _cues("by the way", "btw", "顺便说一下", "顺便", "随便说说")),
]
# Conversation signals: something that happened (an event told in the first person) is
# worth keeping; a question asks rather than tells; reactions and pleasantries are chatter.
CONVERSATION: list[tuple[str, str, Cue]] = [
    (
        "event",
        "event",
        (
            re.compile(
                r"\b(?:i|we|my \w+)\s+(?:just\s+|recently\s+|finally\s+|already\s+|also\s+)?"
                r"(?:[a-z]{2,}ed|went|got|bought|made|took|won|lost|met|ran|built|wrote|read|saw|"
                r"found|had|did|will|am going|'m going|have been|'ve been|began|began|gave|sold|"
                r"spent|taught|thought|felt|left|kept|brought|caught|became|drew|flew|grew|threw|"
                r"chose|rode|swam|sang|won)\b"
                r"|\b(?:i'm|i am|we're|we are)\s+(?:now\s+|currently\s+|also\s+)?[a-z]{3,}ing\b"
                r"|\b(?:yesterday|last (?:week|weekend|month|year|night|summer|winter|spring|fall)|"
                r"(?:a few|two|three|\d+) (?:days|weeks|months|years) ago)\b"
                r"|我(?:刚|已经|昨天|上周|今天)?(?:去了|买了|做了|参加了|完成了|搬到|开始|报名|见了|学了|拿到)",
                re.I,
            ),
            # "i", "we", "my" before the verb; "i'm" is "i" and "m" as words
            Gate(frozenset({"i", "we", "my", "yesterday", "last", "ago"}), ("我",)),
        ),
    ),
    ("question", "question", (re.compile(r"[?？]\s*$|吗\s*$"), Gate(parts=("?", "？", "吗")))),
    (
        "chatter",
        "chatter",
        (
            re.compile(
                r"^(?:hey|hi|hello|thanks|thank you|wow|aw+|omg|haha|lol|bye|see ya|take care|"
                r"congrat\w*|that's (?:great|awesome|amazing|cool|so)|"
                r"sounds (?:great|fun|amazing)|glad)"
                r"\b|^(?:哈哈|哇|太好了|真棒|谢谢|不错)",
                re.I,
            ),
            None,  # anchored at the start: cheap as it is
        ),
    ),
]


# Encouragement and pleasantries: kind words to the listener, not news of anyone.
SUPPORT: Cue = _cues(
    "here for you",
    "means a lot",
    "mean a lot",
    "means so much",
    "means the world",
    "let me know",
    "proud of you",
    "keep it up",
    "keep up the",
    "keep going",
    "you got this",
    "we got this",
    "good luck",
    "take care",
    "appreciate it",
    "appreciate you",
    "appreciate that",
    "no worries",
    "you're welcome",
    "hang in there",
    "happy for you",
    "you deserve",
    "you can do it",
    "have fun",
    "talk soon",
    "catch up soon",
    "加油",
    "辛苦了",
    "保重",
    "随时找我",
    "为你骄傲",
    "不客气",
    "祝你",
)
# Whose a line is: first-person singular words tell of the speaker; second-person ones,
# with none of those, speak to the listener (as does a line opening with a reaction).
FIRST_PERSON = frozenset("i me my mine myself".split())
SECOND_PERSON = frozenset("you your yours yourself yourselves ya".split())
REACTION = re.compile(
    r"^\W*(?:wow|whoa|congrat\w*|nice|great|awesome|cool|amazing|sounds|that's|that is|"
    r"so glad|glad|sorry|oh|aw+|yay|definitely|absolutely|totally|exactly|no worries|"
    r"good luck|bet|must be|haha|lol|yeah|yes|yep|sure|true|agreed|ooh|omg)\b"
    r"|^\W*(?:哇|太好了|真棒|哈哈|恭喜|不错|好厉害)",
    re.I,
)

# An agent telling what it does or did ("Noted: ...", "Let me check", "Cloned. ...",
# "已记录：..."): its own work, not the owner's memory (the owner's words are their own line).
# The agent's roles are ``roles.AGENT_ROLES``.
NARRATION = re.compile(
    r"^\W*(?:noted|saved|stored|recorded|remembered|done|got it|will do|on it|okay|ok|sure|"
    r"i'll|i will|i've|i have|i'm going to|let me|let's|now i|next,? i|running|ran|cloned|"
    r"created|updated|added|fixed|checking|checked|looking|searching|reading|here's|here is)"
    r"\b|^\W*(?:已记录|已保存|已记住|记住了|好的|收到|我来|我会|让我|已完成|已更新)",
    re.I,
)


# A greeting or thanks opening a message (before its news).
GREETING = re.compile(
    r"^\W*(?:hey|hi|hello|thanks|thank you|long time no see)\b|^\W*(?:嗨|你好|谢谢)", re.I
)


# A statement of likelihood is a belief, held with the confidence its words express.
LIKELIHOOD: list[tuple[Cue, float]] = [
    (_cues("almost certainly", "most likely", "大概率", "多半"), 0.8),
    (_cues("probably", "likely", "大概", "估计"), 0.7),
    (_cues("i think", "i believe", "i guess", "我觉得", "我认为", "可能"), 0.6),
    (_cues("maybe", "perhaps", "possibly", "也许", "或许", "说不定"), 0.5),
    (_cues("might", "not sure", "不确定"), 0.4),
]
