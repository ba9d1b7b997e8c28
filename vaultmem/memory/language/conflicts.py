"""Is a new fact a repeat of an old one, a contradiction of it, a fuller version of it, or news?

Two readings of a pair of facts, rules only (no model, no network):

* **Slots** (``slots.py``): what each fact says about whom, as (subject, attribute,
  value). The same subject and single-valued attribute with another value is a conflict
  whatever the wording and with no cue word: "I live in Berlin" / "I moved to Paris last
  month". The same value is agreement. "also", "too", "也" make a new value an addition.
* **Words**: content words (CJK as bigrams), compared by plain Jaccard and by the same
  overlap weighted by each word's rarity among all facts (idf, the weighting bm25 gives
  one-line documents); the higher counts. A contradiction cue counts only when the two
  facts say the same thing but for it: a negation flip ("not", "no longer", "不", "没") or
  a preference change (like / hate, 喜欢 / 讨厌) over the same words, or an explicit
  replacement ("instead of X", "switched from X to", "took over from X", "从X换成")
  naming a word of the old fact, the rest of it said again. A change cue ("now",
  "changed", "现在") over half of the old fact's words, each fact with words of its own,
  is a *doubtful* conflict ("the default branch is main now" / "... is master"); with
  "also" it is not: "I now also play chess" does not undo "I play tennis".

* **States** (``states.py``): a change of a standing fact of someone's (a job, a home, a
  partner, pets, a habit, a plan, a price...) ends the state the old fact says of the same
  subject and kind, though the two share no value and no word ("I'm living with my parents"
  / "Got my own studio downtown"); ``states.ended`` says when.

The verdicts, for the closest earlier fact: ``conflict`` (the new fact supersedes the old),
``subsumes`` (the new one says all the old one says and more: it supersedes it and cites
both sources), ``duplicate`` (it adds nothing: a repeat), ``similar`` (close, neither).
``Match.doubtful`` marks a verdict the rules are unsure of: same subject and attribute but
a scope only one fact names ("Python 3.12" against "Atlas runs on Python 3.11"), a pronoun
subject or one named more fully, a change no slot names, or a time-shift cue with "also";
an optional LLM pass may re-judge those. ``memory/pipeline/factset.py`` finds the closest
earlier fact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from sys import intern
from typing import Any

from vaultmem.index.stems import PLURAL, VERB, stem
from vaultmem.index.terms import bigrams, cjk_run
from vaultmem.memory.language import state_words
from vaultmem.memory.language.changes import changes
from vaultmem.memory.language.changes import read as read_change
from vaultmem.memory.language.gates import Gate, Gated, Line
from vaultmem.memory.language.gates import words as _words
from vaultmem.memory.language.slot_phrases import UNKNOWN
from vaultmem.memory.language.slots import Slot, slots
from vaultmem.memory.language.states import (
    NO_PARTIES,
    NO_STATES,
    State,
    ended,
    states,
    thing_names,
)
from vaultmem.memory.language.triggers import strip_triggers

_WORD = re.compile(r"[^\W_]+")
_STOP = frozenset(
    "a an the and or but if of to in on at by for with from as is are was were be been being "
    "am do does did have has had i me my we our you your he she it its they them their this "
    "that these those there here so very really just also too about into over than then "
    "what which who whom how when where why can could would should will shall may might "
    "s t d ll re ve m".split()
)
_NEGATION = re.compile(
    r"\b(?:no longer|not|no|never|none|nobody|nothing|neither|nor|cannot|without|anymore|"
    r"isn't|aren't|wasn't|weren't|don't|doesn't|didn't|won't|can't|couldn't|shouldn't|"
    r"haven't|hasn't|hadn't|dont|doesnt|didnt|isnt|cant|wont)\b|不再|从不|[不没]",
    re.I,
)
_LIKE = re.compile(
    r"\b(?:like[sd]?|love[sd]?|prefer(?:s|red)?|enjoy[sd]?|favou?rite)\b|喜欢|爱|偏好", re.I
)
_DISLIKE = re.compile(
    r"\b(?:hate[sd]?|dislike[sd]?|can't stand|detest[sd]?)\b|讨厌|不喜欢|受不了", re.I
)
# A change said in so many words; not "these days" or "nowadays", which tell a habit.
_SHIFT = re.compile(
    r"\b(?:now|switched|changed|moved to|instead|no longer|anymore|from now on|as of|"
    r"(?:since|starting|from) (?:last|next|this) (?:week|month|year)|"
    r"(?:is|are|was|went|gone|goes) (?:down|up) to|"
    r"(?:raised|lowered|increased|decreased|dropped|cut) to)\b"
    r"|现在|改用|换成|换了|换到|搬到|搬家|不再|从现在|改成|改为|改到|提前到|推迟到|升级|调到|变成",
    re.I,
)


# Words that say when or how surely, not what: left out when asking whether one fact holds
# all the words of another.
_FILLER = re.compile(
    r"\b(?:now|nowadays|currently|anymore|any more|these days|still|actually|really|"
    r"remember|note|please|fyi|important|again|today|from now on|as of now|by far|btw|"
    r"right now)\b|请记住|记住|注意|现在|目前|已经|还是|了",
    re.I,
)
# Particles and adverbs of degree or time ("very", "still", "all"): no part of what is said.
_CJK_PARTICLES = frozenset("的了是吗呢啊吧很还都")
_ADDITIVE = re.compile(r"\b(?:also|too|as well|another|in addition)\b|也", re.I)
# "instead of X", "switched from X to", ", not X", "took over from X", "migrated off X",
# "replaced X with", "sold the X", "stopped using X", "不再用X", "从X换成", "把X换成",
# "戒掉X", "从X离职": X is given up.
_ARTICLE = r"(?:the\s+|a\s+|an\s+|my\s+|our\s+)?"
_GIVEN_UP = r"(?P<{}>[^\W\d_][\w'-]*)"
_REPLACED = re.compile(
    r"\b(?:instead of|rather than|in place of)\s+"
    + _ARTICLE
    + _GIVEN_UP.format("a")
    + r"|\b(?:switched|changed|moved|went|migrated|swapped|converted|shifted)\s+"
    r"(?:[\w'-]+\s+){0,5}?from\s+"
    + _ARTICLE
    + _GIVEN_UP.format("b")
    + r"|,\s*not\s+(?:the\s+|a\s+)?(?P<c>[^\W\d_][\w'-]*)\s*[.!]?$"
    r"|\b(?:took|taken|taking|takes|take)\s+over\s+(?:[\w'-]+\s+){0,2}?from\s+"
    + _GIVEN_UP.format("f")
    + r"|\b(?:migrated|moved|switched|got|came|went)\s+(?:[\w'-]+\s+){0,3}?off\s+(?:of\s+)?"
    + _ARTICLE
    + _GIVEN_UP.format("g")
    + r"|\breplac(?:ed|ing|es|e)\s+"
    + _ARTICLE
    + _GIVEN_UP.format("h")
    + r"(?:\s+(?:with|by)\b|\s*[;.!]|$)"
    # "X is out": tried once per run of word characters, hyphens and apostrophes (where it
    # starts; its ending checked first), not from each word start in it: "a-a-a-..." was
    # read to its end from each "a".
    r"|(?<![\w'-])(?=[\w'-]++\s+(?:is|are)\s+out\b)[\w'-]*?\b(?P<m>[^\W\d_][\w'-]*)"
    r"\s+(?:is|are)\s+out\b"
    r"|\b(?:sold|ditched|dumped|abandoned|uninstalled|cancel+ed|gave\s+up(?:\s+on)?|"
    r"got\s+rid\s+of|stopped\s+(?:using|drinking|eating|taking|playing))\s+"
    + _ARTICLE
    + _GIVEN_UP.format("i")
    + r"|不再(?:用|是|去|住在|喝|吃)(?P<d>[^\s，。了]{1,6})"
    r"|从\s*(?P<e>[^\s，。]{1,8}?)\s*(?:换成|改成|改为|搬到|变成|换到|迁到|迁移到|转到|改用)"
    r"|把\s*(?P<j>[^\s，。从]{1,8}?)\s*(?:换成|改成|改为|替换成|换掉|卖)"
    r"|(?:戒掉了?|戒了|卖掉了?|放弃了?|退掉了?)\s*(?P<k>[^\s，。了的]{1,6})"
    r"|从\s*(?P<l>[^\s，。]{1,8}?)\s*(?:离职|辞职|退出)",
    re.I,
)
# Each pattern with its gate (``gates.py``): the words or parts any match holds. A fact is
# read once per run, but a large vault has some 100,000 of them, and most hold no cue.
_G_NEGATION = Gated(
    _NEGATION,
    Gate(
        _words("no not never none nobody nothing neither nor cannot without anymore dont doesnt")
        | _words("didnt isnt cant wont"),
        ("n't", "不", "没"),
    ),
)
_G_LIKE = Gated(
    _LIKE,
    Gate(
        _words("like likes liked love loves loved prefer prefers preferred enjoy enjoys enjoyed")
        | _words("favorite favourite"),
        ("喜欢", "爱", "偏好"),
    ),
)
_G_DISLIKE = Gated(
    _DISLIKE,
    Gate(
        _words("hate hates hated dislike dislikes disliked detest detests detested"),
        ("can't stand", "讨厌", "不喜欢", "受不了"),
    ),
)
_G_SHIFT = Gated(
    _SHIFT,
    Gate(
        # "no longer": "longer"; "from now on": "now"; "since last week": its last word
        _words("now switched changed moved instead longer anymore as week month year")
        | _words("down up raised lowered increased decreased dropped cut"),
        ("现在", "改用", "换成", "换了", "换到", "搬到", "搬家", "不再", "改成", "改为", "改到")
        + ("提前到", "推迟到", "升级", "调到", "变成"),
    ),
)
_G_FILLER = Gated(
    _FILLER,
    Gate(
        # "any more", "these days", "by far": their last word; "from now on", "as of now",
        # "right now": "now"
        _words("now nowadays currently anymore more days still actually really remember note")
        | _words("please fyi important again today far btw"),
        ("记住", "注意", "现在", "目前", "已经", "还是", "了"),
    ),
)
_G_ADDITIVE = Gated(_ADDITIVE, Gate(_words("also too well another addition"), ("也",)))
_G_REPLACED = Gated(
    _REPLACED,
    Gate(
        _words("instead rather place switched changed moved went migrated swapped converted not")
        | _words("shifted over off replaced replacing replaces replace sold ditched dumped")
        | _words("abandoned uninstalled cancelled canceled gave got stopped out"),
        ("不再", "从", "把", "戒", "卖", "放弃", "退掉"),
    ),
)
# The share of an old fact's other words a replacement must keep to restate it.
_RESTATES = 0.5
# How many more units than the old fact a change said over it may hold.
_LONGER = 8
NO_WORDS: frozenset[str] = frozenset()  # one empty set for every fact with no such words


def words(text: str, line: Line | None = None) -> frozenset[str]:
    """Content words, case-folded, a plural ``s`` dropped; CJK runs as bigrams (``line``:
    ``Line.of(text)`` when the caller has it)."""
    # Negations are left out so that "I like tea" and "I don't like tea" read as the same
    # subject (``_cue`` tells them apart).
    line = line or Line.of(text)
    text = _G_NEGATION.sub(_drop_negation, text, line)
    found = _latin_words(text)
    if not text.isascii():  # no CJK run in ASCII text
        for run in cjk_run().findall(text):
            found.update(map(intern, bigrams(run) if len(run) > 1 else [run]))
    return frozenset(found)


def _drop_negation(match: re.Match[str]) -> str:
    return "" if cjk_run().fullmatch(match.group()) else " "


def _latin_words(text: str) -> set[str]:
    # Interned: a large vault's facts repeat the same few thousand words, and a full run
    # holds every live fact's words (one copy of each word instead of one per fact).
    found: set[str] = set()
    latin = text if text.isascii() else cjk_run().sub(" ", text)
    for word in _WORD.findall(latin.casefold()):
        if word not in _STOP:
            found.add(intern(stem(word, PLURAL)))
    return found


def units(text: str, line: Line | None = None) -> frozenset[str]:
    """What a fact says, for containment: its content words without negations or filler
    ("now", "remember", "现在"), CJK as single characters (an inserted "和虾" breaks
    bigrams but keeps every character of "我对花生过敏")."""
    line = line or Line.of(text)
    unfilled = _G_FILLER.sub(" ", text, line)
    if unfilled != text:  # the gates read the text the pattern is searched in
        line = Line.of(unfilled)
    text = _G_NEGATION.sub(" ", unfilled, line)
    if text.isascii():
        return frozenset(_latin_words(text))
    cjk = {intern(c) for run in cjk_run().findall(text) for c in run}
    return frozenset(_latin_words(text) | (cjk - _CJK_PARTICLES))


def _core(text: str, found: frozenset[str], line: Line) -> frozenset[str]:
    """The units of a statement without its stance (like, hate; negations are never
    units), from its ``units``, as stems: "I enjoy running" / "I hate my runs"."""
    stance = " ".join(m.group() for p in (_G_LIKE, _G_DISLIKE) for m in p.finditer(text, line))
    return _stems(found - units(stance) if stance else found)


def _polarity(text: str, line: Line) -> bool | None:
    if _G_DISLIKE.search(text, line):
        return False
    if _G_LIKE.search(text, line):
        return not bool(_G_NEGATION.search(text, line))
    return None


def replaced(text: str, line: Line | None = None) -> frozenset[str]:
    """Words the text says were given up ("instead of X", "switched from X to", ", not X")."""
    found: set[str] = set()
    for match in _G_REPLACED.finditer(text, line or Line.of(text)):
        found |= words(next(g for g in match.groups() if g))
    return frozenset(found)


@dataclass(frozen=True, slots=True)
class Match:
    """The closest earlier fact and what the new one is to it."""

    key: str
    similarity: float
    verdict: str  # "duplicate" | "conflict" | "subsumes" | "similar"
    signal: str | None
    doubtful: bool = False  # the rules are unsure: worth a second opinion


@dataclass
class SlotCheck:
    """What the two facts' slots say about the pair."""

    conflict: bool = False
    agree: bool = False
    doubtful: bool = False
    signal: str | None = None


def compare(new: list[Slot], old: list[Slot], additive: bool = False) -> SlotCheck:
    """Whether two facts fill one slot with different values (a conflict), with the same
    value (agreement), or share no slot; a sure conflict wins over a doubtful one."""
    check = SlotCheck()
    for n in new:
        for o in old:
            unsure = _same_slot(n, o)
            if unsure is None:
                continue
            same = agree(n.value, o.value, n.attribute)
            if same:
                clash = n.negated != o.negated
            else:
                clash = not n.negated and not o.negated and not additive
            if clash and (not check.conflict or (check.doubtful and not unsure)):
                signal = f"{n.attribute.split(':')[0]}: {o.value} -> {n.value}"
                if same:
                    signal = f"{n.attribute.split(':')[0]}: {n.value} taken back"
                check = SlotCheck(True, False, unsure, signal)
            elif same and not clash and not check.conflict:
                check.agree, check.doubtful = True, check.doubtful or unsure
    return check


def _same_slot(new: Slot, old: Slot) -> bool | None:
    """``None`` when two slots are not one slot, else whether that is unsure (a pronoun
    subject, or a scope only one of them names)."""
    if new.attribute != old.attribute:
        return None
    unsure = False
    if new.subject != old.subject:
        if UNKNOWN not in (new.subject, old.subject) and not _same_head(new.subject, old.subject):
            return None
        unsure = True
    if new.scope != old.scope:
        if new.scope and old.scope:
            return None
        unsure = True
    return unsure


def _same_head(a: str, b: str) -> bool:
    """Whether one subject is the other with words around it ("my team standup" and
    "standup"): maybe the same thing, named more or less fully."""
    short, long = sorted((a, b), key=len)
    if not short.isascii() and not long.isascii():
        # No spaces in Chinese: "周会" / "项目周会", "睡" / "睡觉"; not "老陈" / "老陈的女儿".
        return long.endswith(short) or (long.startswith(short) and "的" not in long)
    return " " not in short and "'" not in short and long.endswith(" " + short)


def agree(a: str, b: str, attribute: str) -> bool:
    """Two values the same: equal, one naming part of the other ("PostgreSQL 16" and
    "PostgreSQL"), or, for a time, no part (day, time) named differently."""
    if attribute == "time":
        parts_a = dict(part.split("=", 1) for part in a.split(";") if "=" in part)
        parts_b = dict(part.split("=", 1) for part in b.split(";") if "=" in part)
        return all(parts_b[k] == v for k, v in parts_a.items() if k in parts_b)
    if a == b:
        return True
    if not (a.isascii() and b.isascii()) and (a in b or b in a):
        return True  # "腾讯" and "腾讯深圳总部": Chinese names have no spaces to split at
    tokens_a, tokens_b = set(a.split()), set(b.split())
    return bool(tokens_a and tokens_b) and (tokens_a <= tokens_b or tokens_b <= tokens_a)


@dataclass(frozen=True, slots=True)
class Fact:
    """A fact as compared, every reading done once: a fact is judged against many."""

    text: str
    words: frozenset[str]
    slots: list[Slot] = field(default_factory=list)
    units: frozenset[str] = frozenset()
    core: frozenset[str] = frozenset()  # units without stance (like, hate, not), as stems
    negated: bool = False
    likes: bool | None = None
    shift: bool = False
    additive: bool = False
    given_up: frozenset[str] = frozenset()
    states: tuple[State, ...] = NO_STATES
    names: frozenset[str] = frozenset()  # the things it names ("Lucy's", "「青柠」")
    asks: bool = False  # it holds a question ("Should we get a dog?")
    change: str = ""  # the change it says, if any ("switched to": ``changes.cue``)
    # Its speaker, subject and addressee (``states.parties``).
    parties: tuple[str, str, str] = NO_PARTIES

    def __reduce__(self) -> tuple[type[Fact], tuple[Any, ...]]:
        # Pickled as its fields, made again by one call: a slots dataclass is otherwise
        # set field by field in Python (a large run's reader sends some 90,000).
        return Fact, tuple(getattr(self, name) for name in _FACT_FIELDS)

    @classmethod
    def read(cls, text: str) -> Fact:
        """The readings of what the text says: a capture request still in it (a fact
        written by hand, or before requests were stripped) is no part of that, and its
        "Don't" ("Don't forget I live in Berlin") is no negation."""
        said = strip_triggers(text)
        line = Line.of(said)
        said_words = words(said, line)
        # Text in Latin script without filler has its words as its units: read once, and
        # one set, not two (a full run holds every live fact's).
        if said.isascii() and not _G_FILLER.search(said, line):
            found = said_words
        else:
            found = units(said, line)
            if found == said_words:
                found = said_words
        given_up = replaced(said, line)
        said_states = states(said)
        change, said_parties = read_change(said, said_words)
        return cls(
            text,
            said_words,
            slots(said),
            found,
            _core(said, found, line),
            bool(_G_NEGATION.search(said, line)),
            _polarity(said, line),
            bool(_G_SHIFT.search(said, line)),
            bool(_G_ADDITIVE.search(said, line)),
            given_up or NO_WORDS,
            said_states,
            thing_names(said),
            "?" in said or "？" in said,
            change,
            said_parties,
        )


_FACT_FIELDS = tuple(f.name for f in fields(Fact))


def judge(
    new: Fact, old: Fact, similarity: float, duplicate: float, conflict: float
) -> Match | None:
    """The verdict on a pair (``key`` left empty); ``None`` when they are not related."""
    if new.asks:  # a question states nothing: at most it repeats an old fact's words
        return Match("", similarity, "duplicate", None) if similarity >= duplicate else None
    check = compare(new.slots, old.slots, new.additive) if new.slots and old.slots else None
    if check is not None and check.conflict:
        return Match("", similarity, "conflict", check.signal, check.doubtful)
    doubtful = check is not None and check.doubtful
    agreed = check is not None and check.agree  # the slots both fill hold one value
    cue = _cue(new, old)
    if cue in ("preference change", "negation flip") and _same_core(new.core, old.core):
        return Match("", similarity, "conflict", cue)
    given_up = new.given_up & old.words
    if given_up and not given_up & old.given_up and _restates(new, old, given_up):
        return Match("", similarity, "conflict", "replaces " + ", ".join(sorted(given_up)))
    changed = ended(new, old) if new.states and old.states else None
    if changed is not None and not agreed:
        return Match(
            "",
            similarity,
            "conflict",
            changed.kind + ": " + changed.event,
            changed.event == state_words.NOW_IS,
        )
    anchored = changes(new, old)
    if anchored is not None and not agreed:
        return Match("", similarity, "conflict", f"{new.change}: {anchored}", True)
    if check is None and _updates(new, old):
        return Match("", similarity, "conflict", "update", True)
    extra = new.units - old.units
    if old.units and extra and old.units <= new.units and cue != "negation flip":
        return Match("", similarity, "subsumes", None, doubtful)
    if (new.units and not extra and (len(new.units) > 1 or agreed)) or (
        similarity >= duplicate and cue is None
    ):
        return Match("", similarity, "duplicate", None, doubtful)
    if similarity >= conflict:
        return Match("", similarity, "similar", cue, cue == "time shift" or doubtful)
    return None


def _updates(new: Fact, old: Fact) -> bool:
    """Whether the new fact says the old one again as a change ("the api repo's default
    branch is main now", "the deadline changed to 28 June"): a time-shift cue the old fact
    lacks, at least half of the old fact's units (two or more) restated, and each fact
    holding units the other does not (the old value, the new one). Doubtful: no slot
    names what changed."""
    if not new.shift or old.shift or new.additive:
        return False
    if new.parties[0] != old.parties[0]:
        return False  # another speaker's line
    if new.names and old.names and new.names.isdisjoint(old.names):
        return False  # "「青柠」 ships this month" / "「蓝莓」 slipped to next month"
    if len(new.units) > len(old.units) + _LONGER:  # a long turn sharing words, no restatement
        return False
    shared = len(new.units & old.units)
    if shared < 2 or shared * 2 < len(old.units):
        return False
    return not old.units <= new.units and not new.units <= old.units


def _cue(new: Fact, old: Fact) -> str | None:
    """The cue that the new fact contradicts the old one, if any, from their readings."""
    if new.likes is not None and old.likes is not None and new.likes != old.likes:
        return "preference change"
    if new.negated != old.negated:
        return "negation flip"
    if new.shift and not old.shift:
        return "time shift"
    return None


def _same_core(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two statements say the same but for their stance (``a``, ``b``: their
    ``core``, stemmed when read, as a fact is compared with many): one's words nearly all
    in the other, and at least half of all their words shared ("I drink coffee every
    morning" / "I no longer drink coffee"; not a short thank-you against a long turn
    that shares its few words)."""
    return bool(a and b) and cores_alike(len(a & b), len(a), len(b))


def cores_alike(shared: int, a: int, b: int) -> bool:
    """``_same_core`` by sizes: ``shared`` stems of two cores of ``a`` and ``b`` stems
    (both not empty)."""
    return shared >= 0.75 * min(a, b) and shared * 2 >= a + b - shared


def _stems(found: frozenset[str]) -> frozenset[str]:
    """Latin words without "-ing" or "-ed" (``VERB``); the plural "s" is gone already.
    ``found`` itself when no word changes (one set held, not two)."""
    stems = frozenset(intern(stem(word, VERB)) for word in found)
    return found if stems == found else stems


def _restates(new: Fact, old: Fact, given_up: frozenset[str]) -> bool:
    """Whether the new fact says the old one again with the given-up words replaced: at
    least half of the old fact's other words in it, compared by stem ("I drive a Toyota"
    / "I drive a Tesla now instead of the Toyota"; not "since I moved from my home
    country" against any fact that says "home")."""
    # CJK units are characters: a given-up word's characters go with it.
    gone = given_up | {char for word in given_up if not word.isascii() for char in word}
    rest = _stems(old.units - gone)
    return not rest or len(rest & _stems(new.units)) / len(rest) >= _RESTATES
