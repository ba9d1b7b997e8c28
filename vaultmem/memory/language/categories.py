"""Where a fact goes: the category tree under ``facts/``, routed by rules.

The tree vaultmem writes (at most 2 deep, 10 children at the root; people may add their
own files and folders, up to 4 deep, and ``vaultmem tree`` shows them all)::

    facts/identity.md   facts/health.md    facts/safety.md    facts/preferences.md
    facts/people.md     facts/money.md     facts/general.md
    facts/life/{events,changes}.md
    facts/work/{decisions,projects}.md
    facts/tech/{errors,tools}.md

The first rule that matches wins (``docs/facts.md`` has the table). Identity, health
and safety are the owner's: what a line says of someone else (``Metadata.about``: "Alice
is allergic to peanuts", "my wife is vegan") goes to ``facts/people.md``.

Lessons (``MEMORY.md``'s section) are what teaches how to act next time: errors met, and
the rules among the decisions ("we always deploy on Tuesdays", "lesson learned: ...").
A choice ("we decided to use PostgreSQL 16") is a decision, kept in ``work/decisions``
and not a lesson.
"""

from __future__ import annotations

import re

from vaultmem.memory.language.extract import Metadata
from vaultmem.memory.language.gates import Gate, Gated, Line
from vaultmem.memory.language.gates import words as _words
from vaultmem.memory.language.scoring import Score

MAX_DEPTH = 4
MAX_CHILDREN = 10
PEOPLE = "facts/people.md"
# Classes that say what a person is, has or likes: the owner's unless about someone else.
_PERSONAL = frozenset(
    {"identity", "health", "safety", "preference", "relationship", "status change"}
)
# A lesson learnt, said as one: a decision file's fact and a lesson.
_LESSON = re.compile(
    r"(?i:\blessons?\s+learn(?:ed|t)\b|\blesson:|\bwe\s+learn(?:ed|t)\b)|教训|切记|不要再"
)
# A rule: how to act from now on, not a one-off choice.
_RULE = re.compile(
    r"(?i:\b(?:always|never|from\s+now\s+on|going\s+forward|policy|rule|rules|"
    r"make\s+sure|must\s+not|don'?t\s+ever)\b)"
    r"|以后都|以后|总是|从不|永远不|规则|约定|务必"
)
# "Next time" is a lesson only with a rule in it ("next time, make sure ..."): alone it is
# a plan ("Next time I visit Paris I want to see the Louvre", "下次去北京要吃烤鸭").
_NEXT_TIME = re.compile(r"(?i:\bnext\s+time\b)|下次")
# A choice made for work: the team picked, switched or moved something.
_CHOICE = re.compile(
    r"(?i:\b(?:we|the\s+team|our\s+team|team)\s+(?:\w+\s+)?(?:switched|chose|picked|settled\s+on|"
    r"went\s+with|adopted|migrated|standardi[sz]ed\s+on|moved\s+\w+\s+to)\b)"
    r"|(?:我们|团队)\S{0,6}(?:改用|选用|选择了|换成|迁移到)"
)
# With their gates (``gates.py``): a full consolidation routes some 90,000 facts, and
# most hold no lesson, "next time" or choice.
_G_LESSON = Gated(
    _LESSON, Gate(_words("lesson lessons learned learnt"), ("教训", "切记", "不要再"))
)
_G_NEXT_TIME = Gated(_NEXT_TIME, Gate(_words("next"), ("下次",)))
_G_CHOICE = Gated(
    _CHOICE,
    Gate(
        _words("switched chose picked settled went adopted migrated moved")
        | _words("standardized standardised"),
        ("改用", "选用", "选择了", "换成", "迁移到"),
    ),
)


def route(score: Score, meta: Metadata, text: str = "") -> str:
    """The vault-relative file a fact belongs in (``text``: the fact's words)."""
    kind, signals = score.kind, score.signals
    if meta.about and kind in _PERSONAL:
        return PEOPLE
    if kind in ("identity", "health", "safety"):
        return f"facts/{kind}.md"
    if "error" in signals:
        return "facts/tech/errors.md"
    line = Line.of(text)
    if "decision" in signals or _teaches(text, line) or _G_CHOICE.search(text, line):
        return "facts/work/decisions.md"
    if kind == "preference" or "preference" in signals:
        return "facts/preferences.md"
    if "money" in signals or meta.amounts:
        return "facts/money.md"
    return _by_topic(score, meta)


def _by_topic(score: Score, meta: Metadata) -> str:
    """The rules after the owner's classes, errors, decisions, preferences and money."""
    if score.kind == "relationship":
        return PEOPLE
    if score.kind == "status change":
        return "facts/life/changes.md"
    if meta.commands or meta.repositories or meta.paths or "configuration" in score.signals:
        return "facts/tech/tools.md"
    if meta.projects:
        return "facts/work/projects.md"
    if "event" in score.signals:
        return "facts/life/events.md"
    if meta.people:
        return PEOPLE
    return "facts/general.md"


def is_lesson(path: str, text: str) -> bool:
    """Facts that teach how to act next time: errors met, and rules (not every choice)
    among the decisions."""
    if path.endswith("tech/errors.md"):
        return True
    if not path.endswith("work/decisions.md"):
        return False
    return bool(_RULE.search(text) or _LESSON.search(text))


def _teaches(text: str, line: Line) -> bool:
    """A lesson said as one, or a rule for next time; not a plan for next time (``line``:
    ``Line.of(text)``)."""
    return bool(
        _G_LESSON.search(text, line) or (_G_NEXT_TIME.search(text, line) and _RULE.search(text))
    )
