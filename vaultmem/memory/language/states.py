"""States: the standing facts about someone that change over time, read coarsely.

A slot (``slots.py``) reads a value exactly ("I live in Berlin": residence, berlin) and
two values of one slot contradict whatever the wording. Most changes are not said so: "Got
my own studio downtown, no more curfews" ends "I'm living with my parents"; "Starting
Monday I'm on the design team at Figma" ends "I work as a barista"; "戒烟三个月了" ends
"我一天得抽一包烟". They share no value and often no word, but they fill one kind of
standing fact (a home, a job, a habit) of one person, and the later one says a change.

So a fact's states are ``(subject, kind, event)``: whose, which kind (``state_words``:
job, home, partner, pet, school, a habit, a plan or a date, a price, a project's tools...),
and what the clause says of it: it holds (``is``), it is empty (``none``: "I'm single",
"我没养宠物"), or it ``starts``, ``ends`` or ``moves`` to another value. A clause says no
change when it asks, wishes, guesses ("should we get a dog?", "要不要"), tells the past
("back in college", "实习过"), something passing ("just for today", "这周在北京出差") or
going on ("still", "照常"), or opens with "when" or "if"; "also", "too", "兼职" make a new
value an addition. ``conflicts.judge`` decides whether a change of the new fact ends a
state of the old one.

The subject is the speaker for the first person, a person named at the clause's start
("Grandma", "王磊", "my sister"), or the sentence's subject when the clause has none
("Sold the Civic, I'm on a bike now"). Things (a plan, a price, a project's tools, a role)
are the speaker's, and the two facts must name the same thing (``conflicts``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from sys import intern
from typing import Protocol

from vaultmem.memory.language import slot_words
from vaultmem.memory.language import state_words as w
from vaultmem.memory.language.gates import Line, fold
from vaultmem.memory.language.people import COMMON_WORDS
from vaultmem.memory.language.slot_phrases import OWNER


@dataclass(frozen=True, slots=True)
class State:
    """``subject``'s state of ``kind``: it holds, is empty, starts, ends or moves."""

    subject: str
    kind: str
    event: str


NO_STATES: tuple[State, ...] = ()


class Readings(Protocol):
    """What ``ended`` reads of a fact (``conflicts.Fact``)."""

    @property
    def states(self) -> tuple[State, ...]: ...
    @property
    def names(self) -> frozenset[str]: ...
    @property
    def words(self) -> frozenset[str]: ...
    @property
    def units(self) -> frozenset[str]: ...


_OPENING = 120  # characters of a fact read for its subject (``parties``)
NO_PARTIES = ("", "", "")  # a fact's parties not read
THING = ""  # the subject of a clause about a thing ("the launch"): no person's state
PRONOUN = "?"  # "she", "他": whoever was named before


def states(text: str, speaker: str = "") -> tuple[State, ...]:
    """Every state the text says, each once (``speaker``: whose "I" it is; a
    conversation's "Name: ..." names its own). A capture request ("Remember: ...") is
    no part of what it says: ``triggers.strip_triggers`` it first."""
    name, text = spoken(text)
    owner = name or speaker or OWNER
    text = text.strip()
    patterns, whole = _searched(text)
    phrases = _phrases(text)
    if not patterns and not phrases:
        return NO_STATES
    found: dict[State, None] = {}
    sentences = w.SENTENCE.split(text)
    for sentence in sentences:
        clauses = [c.strip() for c in w.CLAUSE.split(sentence) if c and c.strip()]
        if not clauses or w.QUESTION.search(sentence):
            continue
        # A sentence telling the past tells it in each clause ("大学时我谈过一个女朋友，
        # 毕业就分了"), unless a clause says "now" (read once a clause says a state).
        past: bool | None = None
        opened = _subject(clauses[0], owner, opener=True)
        subject = owner if opened is None else opened  # THING ("") stays a thing
        for clause in clauses:
            named = _subject(clause, owner, opener=False)
            if named == PRONOUN:  # "she", "they": the one named before, never the owner
                subject = THING if subject == owner else subject
            elif named is not None:
                subject = named
            alone = len(sentences) == 1 and len(clauses) == 1 and text.startswith(clause)
            known = whole + phrases if alone else None
            said_here = _clause_states(clause, subject, owner, patterns, bool(phrases), known)
            if not said_here:
                continue
            if past is None:
                past = any(w.PAST.search(other) for other in clauses)
            if past and not w.NOW.search(clause):
                continue
            for state in said_here:
                found.setdefault(state, None)
    return tuple(found)


def spoken(text: str) -> tuple[str, str]:
    """A conversation's line split: ``(name, words)`` of "Name: words" (the name
    casefolded), ``("", text)`` for any other text ("Remember: ..." is a request)."""
    said = slot_words.SPEAKER.match(text)
    if said is None or said.group("name").casefold() in slot_words.TRIGGERS:
        return "", text
    return said.group("name").casefold(), text[said.end() :]


def parties(text: str) -> tuple[str, str, str]:
    """Who says a fact, whom it is about and whom it is said to, as its opening tells:
    ``(speaker, subject, addressee)``. The speaker is a conversation's "Name" (else the
    owner); the subject the person the first clause names ("Grandma", "Marco's wife",
    "用户"), else the speaker; ``PRONOUN`` when it opens with "she", "they" (anyone named
    before), ``THING`` ("") with a thing ("The launch"); the addressee the name a greeting
    or a comma sets off ("Thanks, Maria!"), or ""."""
    named, text = spoken(text)
    speaker = named or OWNER
    # The opening alone: a subject is named in the first clause's first words.
    opening = text.lstrip()[:_OPENING]
    cut = w.CLAUSE_BREAK.search(opening)
    clause = (opening if cut is None else opening[: cut.start()]).strip()
    subject = _subject(clause, speaker, opener=True) if clause else None
    if subject is None:
        subject = speaker
    called = w.ADDRESSED.search(opening)
    addressee = "" if called is None else (called.group("greeted") or called.group("named"))
    return speaker, subject, addressee.casefold()


def thing_names(text: str) -> frozenset[str]:
    """The names a fact gives the things it is about (``state_words.THING_NAME``:
    "Lucy's dinner", "the Atlas launch", "「青柠」"), case-folded."""
    if text.islower() and not w.QUOTE.search(text):
        return frozenset()  # no capital, no quote: no name (most facts say none)
    found = set()
    for match in w.THING_NAME.finditer(text):
        name = next(group for group in match.groups() if group)
        if name not in COMMON_WORDS:
            found.add(intern(name.casefold()))
    return frozenset(found)


def _searched(text: str) -> tuple[list[_Pattern], list[tuple[str, str, int]]]:
    """The patterns that match the text, and ``(kind, event, where)`` of their matches in
    its script. Most facts say no state: the patterns their words admit are tried on the
    whole text before it is cut into clauses; most facts are one clause, read so once."""
    folded = fold(text)
    cjk = w.HAS_CJK.search(text) is not None
    patterns, whole = [], []
    for pattern in _admitted(text):
        match = pattern[3].search(text if pattern[3] in w.CASED else folded)
        if match is not None:
            patterns.append(pattern)
            if pattern[2] == cjk:
                whole.append((pattern[0], pattern[1], match.start()))
    return patterns, whole


def _clause_matches(
    clause: str, patterns: list[_Pattern], phrases: bool
) -> list[tuple[str, str, int]]:
    """``(kind, event, where)`` of each pattern (and lexicon phrase) the clause holds."""
    cjk = w.HAS_CJK.search(clause) is not None
    folded = fold(clause)
    matches = [
        (kind, event, match.start())
        for kind, event, is_cjk, pattern in patterns
        if is_cjk == cjk
        and (match := pattern.search(clause if pattern in w.CASED else folded)) is not None
    ]
    if phrases:  # the whole text holds a lexicon phrase: which clause
        matches += _phrases(clause)
    return matches


def _clause_states(
    clause: str,
    subject: str,
    owner: str,
    patterns: list[_Pattern],
    phrases: bool,
    known: list[tuple[str, str, int]] | None = None,
) -> list[State]:
    """The states one clause says of ``subject`` (its own, or the sentence's); ``known``:
    its matches, when the clause is the whole text (searched already)."""
    matches = known if known is not None else _clause_matches(clause, patterns, phrases)
    # A wish or a guess says no state; nor does something passing ("租了辆车", "staying
    # at my in-laws' for the holidays"): it fills no empty one.
    if not matches or w.UNSURE.search(clause) or w.PASSING.search(clause):
        return []
    still = w.SUBORDINATE.match(clause) or w.GOES_ON.search(clause)
    also = w.ALSO.search(clause) is not None
    intent = w.INTENT.search(clause) is not None
    now = w.NOW.search(clause) is not None
    out: list[State] = []
    # "I don't have a dog" says none, not also "have a dog".
    empty = {kind for kind, event, _ in matches if event == w.NONE}
    for kind, event, start in matches:
        if event == w.IS and kind in empty:
            continue
        if kind in w.HABITS and event == w.IS:
            event = _habit_event(clause)
        if event == w.IS and now:
            event = w.NOW_IS
        if event in w.CHANGES:
            negated = w.NEGATED_CUE.search(clause[:start]) is not None
            if still or negated or (intent and kind != "plan") or (also and event != w.ENDS):
                event = w.IS
        if any(state.kind == kind and state.event == event for state in out):
            continue  # a pattern and a phrase of one kind and event: said once
        if kind in w.OF_A_THING:
            out.append(State(owner, kind, event))
        elif kind == "partner" and w.FIRST_PERSON_OBJECT.search(clause):
            out.append(State(owner, kind, event))  # "Luis is my boyfriend": the speaker's
        elif subject != THING:
            out.append(State(subject, kind, event))
    return out


def _habit_event(clause: str) -> str:
    """A habit said to end ("quit", "戒") or start ("took up"), or to hold."""
    if w.HABIT_ENDS.search(clause):
        return w.ENDS
    return w.STARTS if w.HABIT_STARTS.search(clause) else w.IS


_Pattern = tuple[str, str, bool, re.Pattern[str]]  # kind, event, CJK, pattern
# Every pattern, English then Chinese, with whether it reads CJK text.
_PATTERNS: tuple[_Pattern, ...] = tuple(
    [(kind, event, False, pattern) for kind, event, pattern in w.STATES]
    + [(kind, event, True, pattern) for kind, event, pattern in w.CJK_STATES]
)
# The patterns by their pieces (``state_words.pieces``): Latin words whole, stems by their
# first three letters; CJK characters; a price by its sign ("$29").
_BY_WORD: dict[str, list[int]] = {}
_BY_STEM: dict[str, list[tuple[str, int]]] = {}
_BY_CHARACTER: dict[str, list[int]] = {}
_WITH_SYMBOL: list[int] = []
for _number, (_kind, _event, _cjk, _pattern) in enumerate(_PATTERNS):
    for _piece, _stem in w.pieces(_pattern.pattern).items():
        if _stem:
            _BY_STEM.setdefault(_piece[:3], []).append((_piece, _number))
        else:
            _BY_WORD.setdefault(_piece, []).append(_number)
    for _character in w.cjk_characters(_pattern.pattern):
        _BY_CHARACTER.setdefault(_character, []).append(_number)
    if w.CURRENCY.search(_pattern.pattern):
        _WITH_SYMBOL.append(_number)
_WORDS = frozenset(_BY_WORD)
_LATIN_WORD = re.compile(r"[a-z0-9]+")  # not ``Line.tokens``: "是我last" is one \w run


def _admitted(text: str) -> list[_Pattern]:
    """The patterns the text may match, in table order: its words' and characters'."""
    line = Line.of(text)
    numbers: set[int] = set()
    tokens = line.tokens if line.ascii else frozenset(_LATIN_WORD.findall(line.folded))
    for token in tokens & _WORDS:
        numbers.update(_BY_WORD[token])
    for token in tokens:
        stems = _BY_STEM.get(token[:3])
        if stems is not None:
            for piece, number in stems:
                if token.startswith(piece):
                    numbers.add(number)
    if line.digit and w.CURRENCY.search(text):
        numbers.update(_WITH_SYMBOL)
    if not line.ascii:
        for character in set(text).intersection(_BY_CHARACTER):
            numbers.update(_BY_CHARACTER[character])
    return [_PATTERNS[number] for number in sorted(numbers)]


def _phrases(text: str) -> list[tuple[str, str, int]]:
    """``(kind, event, where)`` of each lexicon phrase in the text (``state_words``):
    English ones as whole words, Chinese ones anywhere."""
    found: list[tuple[str, str, int]] = []
    if text.isascii() or w.HAS_CJK.search(text) is None:
        if Line.of(text).tokens.isdisjoint(w.PHRASE_WORDS):
            return found  # no phrase's longest word: no phrase
        folded = text.casefold().replace("’", "'")
        words = [(m.group(), m.start()) for m in w.EN_WORD.finditer(folded)]
        for first, (word, where) in enumerate(words):
            key: tuple[str, ...] = (word,)
            step = first + 1
            while key in w.PHRASE_PREFIXES:  # a phrase starts so: read on
                for kind, event in w.PHRASES_EN.get(key, ()):
                    found.append((kind, event, where))
                if step == len(words):
                    break
                key += (words[step][0],)
                step += 1
        return found
    for start in range(len(text) - 1):
        for phrase, kind, event in w.PHRASES_ZH.get(text[start : start + 2], ()):
            if text.startswith(phrase, start):
                found.append((kind, event, start))
    return found


def _subject(clause: str, owner: str, opener: bool) -> str | None:
    """Whom a clause names as its subject, if it names one: the first person, a kin
    ("my sister", "我姐"), or (in a sentence's first clause) a person's name."""
    if w.HAS_CJK.match(clause):
        return _cjk_subject(w.CJK_LEAD.sub("", clause), owner, opener)
    head = slot_words.TOKEN.findall(clause)[:4]
    lowered = [token.casefold() for token in head]
    if not lowered:
        return None
    if lowered[0] in w.THIRD_PERSON:
        return PRONOUN
    if lowered[0].removesuffix("'s") in w.OWNER_WORDS or lowered[:2] == ["the", "user"]:
        return owner  # an assistant's notes: "User prefers tea"
    if any(token in slot_words.FIRST_PERSON for token in lowered):
        return owner
    if opener and lowered[0] in w.THING_OPENERS:
        return THING  # "The launch is moving to March": no one's home
    if len(head) > 1 and lowered[0] in ("my", "our"):
        kin = lowered[1].removesuffix("'s")
        return f"{owner}'s {kin}" if kin in w.KIN_WORDS else None
    if opener and len(head) > 1 and head[0][0].isupper():
        return _named(head[0], lowered, owner)
    return None


def _named(word: str, lowered: list[str], owner: str) -> str | None:
    """The person a sentence opens with ("Grandma moved", "Marco's wife", "Kate's
    divorce"), or ``None`` for a capitalised word that is no one's name."""
    first = lowered[0].removesuffix("'s")
    if first in w.KIN_WORDS:
        return f"{owner}'s {first}"
    if word.removesuffix("'s") in COMMON_WORDS:
        return None
    if lowered[0].endswith("'s") and lowered[1] not in w.AFTER_IS:
        # "Marco's wife": not Marco; "Kate's divorce": Kate
        return f"{first}'s {lowered[1]}" if lowered[1] in w.KIN_WORDS else first
    return first if w.AFTER_NAME.match(" ".join(lowered[1:])) else None


def _cjk_subject(clause: str, owner: str, opener: bool) -> str | None:
    """``_subject`` of a Chinese clause, its opening time words dropped."""
    kin = w.KIN.match(clause)
    if kin is not None:
        return f"{owner}'s {kin.group('kin')}"
    if w.CJK_OWNER.match(clause) or clause.startswith(("用户", "主人")):
        return owner
    found = w.CJK_NAME.match(clause) if opener else None
    if found is None or w.CJK_NUMERAL.search(found.group("name")):
        return None
    name: str = found.group("name")
    kin = w.KIN_AFTER_NAME.match(clause, found.end())
    return f"{name}'s {kin.group('kin')}" if kin else name


def ended(new: Readings, old: Readings) -> State | None:
    """The change of the new fact's that ends a state the old one says, if one does:
    the same subject and kind; for a kind one holds several of (pets), an empty state
    filled or the same one ended; for a thing (a plan, a price), the same thing named."""
    for n in new.states:
        for o in old.states:
            if o.kind != n.kind or o.subject != n.subject:
                continue
            # A change said, or an empty state filled ("I'm single" / "I have a girlfriend").
            if n.event not in w.CHANGES and not (n.event == w.IS and o.event == w.NONE):
                continue
            if n.kind in w.ANCHORED and not _same_thing(new, old):
                continue
            if n.kind in w.MULTIPLE:
                filled = o.event == w.NONE and n.event not in (
                    w.ENDS,
                    w.NONE,
                )
                ended = n.event == w.ENDS and o.event != w.NONE
                if not filled and not (ended and _shares_a_name(new, old)):
                    continue
            elif n.event == w.ENDS:
                if o.event == w.NONE:
                    continue
            elif new.units <= old.units or old.units <= new.units:
                continue  # said again (or confirmed with more), not changed
            return n
    return None


def _same_thing(new: Readings, old: Readings) -> bool:
    """Whether two facts are about one thing: a word both say that is not a word every
    such fact says (a day, a number, "plan", "trip"), and no two different names
    ("Lucy's dinner" / "Dan's dinner"; "「青柠」" / "「蓝莓」"; ``thing_names``)."""
    if new.names and old.names and new.names.isdisjoint(old.names):
        return False
    shared = (new.words & old.words) - w.GENERIC_WORDS
    if any(word.isascii() for word in shared):
        return True
    chars = (new.units & old.units) - w.GENERIC_CHARS
    return sum(1 for unit in chars if not unit.isascii()) >= 2


def _shares_a_name(new: Readings, old: Readings) -> bool:
    """Whether the new fact names what the old one holds ("Luna", "the Civic", "橘子")."""
    return bool((new.words & old.words) - w.GENERIC_WORDS) or _same_thing(new, old)
