"""``MEMORY.md``'s generated block: what an agent reads first, within a token budget.

A profile, not a pile of the latest facts (docs/memory.md, "MEMORY.md"). Sections, in
the order they are shown, each filled while the budget lasts, by priority
(``context.fit``): the vault's size (always), the owner (pinned facts, then the owner's
facts by what a profile needs first: identity, health and safety, then changes of job or
home, how their projects are set up, their people, their preferences), one section for
each person the facts are most about (the same order; a person is the speaker of a
conversation's line, "Caroline: I ...", or who a line is about), the active context (hot
topics and open tasks of the last two weeks), the owner's lessons (rules and errors
met: never someone else's words), and the facts of the last days. A fact is shown once,
dated, citing it by a link to its line (``cite``), and one of nearly the same words as a
fact shown is left out. Everything here is pure: consolidation gathers the facts, topics
and tasks and writes the block between the markers.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from collections.abc import Callable

from vaultmem.config import MemoryConfig
from vaultmem.memory.language.categories import is_lesson
from vaultmem.memory.language.people import about, speaker, speakers
from vaultmem.memory.language.score_cues import GREETING, REACTION
from vaultmem.memory.language.states import states
from vaultmem.memory.pipeline.facts import Fact
from vaultmem.memory.pipeline.tiers import TIERS, tier
from vaultmem.memory.pipeline.topics import Topic
from vaultmem.notes.generated_block import Section, count_tokens, fit

# What a profile needs first: a fact's kind, weighed (a kind not named weighs 1).
_KIND_WEIGHT = {
    "identity": 1.7,
    "health": 1.7,
    "safety": 1.7,
    "status change": 1.6,
    "setup": 1.4,
    "relationship": 1.2,
    "preference": 1.1,
    "belief": 0.9,
}
_SELF = re.compile(r"(?i:\b(?:i|i'm|i've|i'd|my|we|we're|we've|our)\b)|我")  # one's own news
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")
_WORD = re.compile(r"[^\W\d_]{4,}|[\u4e00-\u9fff]{2}")
_PEOPLE_SHOWN = 6  # people with a section of their own
_OWNER_LINES = 12
_PROFILE_POOL = 400  # a person's facts weighed by their sentences (``_profile``)
_RESERVE_TOKENS = 160  # of the budget, for the sections after the people's
_LEAST_PERSON_TOKENS = 150
_SHOWN_CHARS = 70  # of a fact's words: its gist (``_gist``), short, so that many fit
# What makes a line say something particular: a name, a number, a long word.
_SPECIFIC = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+|\b\d+\b|\b[a-z]{7,}\b|[\u4e00-\u9fff]{2}")
_NOTE = re.compile(
    r"(?<!\[)\[(?!\[)[^\[\]]{1,300}\](?!\])"
)  # "[shares a photo: ...]", not [[links]]
# Kinds of standing fact a profile holds (``states``): who one is with, where, as what.
_STANDING = frozenset(
    "job workplace shift home partner pet vehicle school diet medication hospital licence role "
    "membership hobby favourite habit:coffee habit:smoking habit:alcohol habit:exercise "
    "habit:sleep".split()
)


def build_block(
    live: list[Fact],
    score: Callable[[Fact], float],
    *,
    archived: int,
    topics: list[Topic],
    open_tasks: list[tuple[str, str]],
    today: dt.date,
    config: MemoryConfig,
) -> str:
    """The block for the live facts (``score`` rates a fact today), ``archived`` facts in
    the archive, the vault's topics and ``(words, date)`` of open tasks."""
    scores = {id(f): score(f) for f in live}  # once: sorting and counting need it
    scored = sorted(live, key=lambda f: (-scores[id(f)], f.id or ""))
    shown: set[int] = set()

    def lines(
        facts: list[Fact], limit: int | None = None, *, named: bool = True, tokens: int = 0
    ) -> list[str]:
        """The lines of ``facts`` not shown yet, at most ``limit`` of them, or as many as
        ``tokens`` hold."""
        out: list[str] = []
        said: list[frozenset[str]] = []
        for fact in facts:
            words = _words(fact.text)
            if id(fact) in shown or any(_alike(words, other) for other in said):
                continue
            line = _line(fact, named)
            tokens -= count_tokens(line)
            if tokens < 0 and limit is None:
                break
            shown.add(id(fact))
            said.append(words)
            out.append(line)
            if limit is not None and len(out) >= limit:
                break
        return out

    conversation = speakers(f.text for f in live)
    by_person: defaultdict[str | None, list[Fact]] = defaultdict(list)
    for fact in scored:
        by_person[_person(fact, conversation)].append(fact)
    pinned = [f for f in scored if f.pinned]
    rules = [f for f in by_person[None] if is_lesson(f.path, f.text)]
    told = [f for f in by_person[None] if not is_lesson(f.path, f.text)]
    owner = Section(
        "Owner and identity", lines(pinned + _profile(told), max(_OWNER_LINES, len(pinned))), 1
    )
    people = sorted((p for p in by_person if p is not None), key=lambda p: -len(by_person[p]))
    people = people[:_PEOPLE_SHOWN]
    # The people share what the owner's lines leave, less a reserve for the sections
    # after them (the vault line, the active context's first lines).
    room = config.budget_tokens - count_tokens("\n".join(owner.lines)) - _RESERVE_TOKENS
    sections = [owner]
    for person in people:
        share = max(_LEAST_PERSON_TOKENS, room // len(people))
        facts = _profile(by_person[person])
        sections.append(Section(person, lines(facts, named=False, tokens=share), 2))
    context = Section("Active context", _active_context(topics, open_tasks, today, config), 3)
    lessons = Section("Lessons", lines(rules, config.lessons), 4)
    recent = Section("Last days", lines(_highlights(live, today, config)), 5)
    counts = dict.fromkeys(TIERS, 0)
    for fact in live:
        counts[tier(scores[id(fact)], config)] += 1
    index = Section(
        "Vault",
        [
            f"{len(live)} facts ({counts['hot']} hot, {counts['warm']} warm, "
            f"{counts['cold']} cold), {archived} archived, {len(topics)}"
            " topics; find more with `vaultmem search`."
        ],
        0,
    )
    return fit([*sections, context, lessons, recent, index], config.budget_tokens)


def _person(fact: Fact, speakers: set[str]) -> str | None:
    """Whom a fact is about: the speaker of a conversation's line ("Caroline: I ..."),
    unless it names another of the conversation's speakers as its subject; else the
    person a line names or speaks of ("Alice is allergic", "my wife"); else the owner
    (``None``)."""
    said_by = speaker(fact.text)
    named = about(fact.text, speakers)
    if said_by is not None and said_by in speakers:
        return named if named in speakers else said_by
    return named


def _profile(facts: list[Fact]) -> list[Fact]:
    """A person's facts in the order a profile wants them: by kind (``_KIND_WEIGHT``),
    one's own news before words about the world, then importance, the newest first; and
    among the ``_PROFILE_POOL`` first so, a standing fact (a job, a home, a partner, pets,
    school, a habit, a favourite: ``states``; a profile is made of them, so it weighs
    three times as much) before an event, a fact naming particular things (names,
    numbers, long words: ``_SPECIFIC``) before a vague one, one that only asks or reacts
    last. (Those three read each fact's sentences: a large vault's owner has some 90,000
    facts, and a section shows a few dozen.)"""

    def first_weight(fact: Fact) -> float:
        own = 1.5 if _SELF.search(_unnamed(fact.text)) else 1.0
        return _KIND_WEIGHT.get(fact.kind, 1.0) * own * fact.importance

    def weight(fact: Fact) -> float:
        words = _unnamed(fact.text)
        standing = 3.0 if any(s.kind in _STANDING for s in states(fact.text)) else 1.0
        told = 1.0 if _told(words) else 0.2
        specific = min(1.6, 0.7 + 0.1 * len(_SPECIFIC.findall(_gist(words))))
        return first_weight(fact) * standing * told * specific

    newest = sorted(facts, key=lambda f: f.day or dt.date.min, reverse=True)
    ranked = sorted(newest, key=first_weight, reverse=True)
    pool = ranked[:_PROFILE_POOL]
    return sorted(pool, key=weight, reverse=True) + ranked[_PROFILE_POOL:]


def _unnamed(text: str) -> str:
    """A conversation's line without its speaker's name (``Caroline: ``)."""
    said_by = speaker(text)
    return text.split(":", 1)[1].lstrip() if said_by else text


def _told(text: str) -> bool:
    """Whether a line tells something: a sentence that neither asks nor only reacts."""
    return any(not _asks_or_reacts(sentence) for sentence in _sentences(text))


def _sentences(text: str) -> list[str]:
    """The sentences of a line, without bracketed notes ("[shares a photo: ...]")."""
    return [s for s in _SENTENCE_END.split(_NOTE.sub(" ", text).strip()) if s.strip()]


def _asks_or_reacts(sentence: str) -> bool:
    if sentence.rstrip().endswith(("?", "？")):
        return True
    return not _SELF.search(sentence) and bool(REACTION.match(sentence) or GREETING.match(sentence))


def _gist(text: str) -> str:
    """What a line tells, for a profile: its sentence that says most of oneself (the most
    particular words: ``_SPECIFIC``), then the others that neither ask nor only react,
    in their order, up to ``_SHOWN_CHARS``; the whole line when none is left."""
    sentences = [s.strip() for s in _sentences(text) if not _asks_or_reacts(s)]
    if not sentences:
        return _news(text)
    best = max(sentences, key=lambda s: (bool(_SELF.search(s)), len(_SPECIFIC.findall(s))))
    kept = [best]
    for sentence in sentences:
        if sentence is not best and len(" ".join([*kept, sentence])) <= _SHOWN_CHARS:
            kept.append(sentence)
    return " ".join(sorted(kept, key=sentences.index))


def _news(text: str) -> str:
    """``text`` without the sentences it opens with that greet or react ("Hey Mel!",
    "Thanks, Melanie.", "Wow, that's stunning!") and tell nothing of the speaker; all of
    it when nothing else is left."""
    rest = text
    while (end := _SENTENCE_END.search(rest)) is not None:
        sentence = rest[: end.start()]
        if _SELF.search(sentence) or not (REACTION.match(sentence) or GREETING.match(sentence)):
            break
        rest = rest[end.end() :]
    return rest if rest.strip() else text


def _words(text: str) -> frozenset[str]:
    return frozenset(w.casefold() for w in _WORD.findall(text))


def _alike(words: frozenset[str], other: frozenset[str]) -> bool:
    """Nearly the same words: half of the smaller set in the other."""
    return bool(words and other) and 2 * len(words & other) >= min(len(words), len(other))


def _line(fact: Fact, with_name: bool) -> str:
    """``- words (DAY) (cite)``: the words without the greetings and reactions they open
    with; under a person's own heading, without their name."""
    words = _unnamed(fact.text)
    text = _gist(words)
    if with_name and words != fact.text:
        text = fact.text[: len(fact.text) - len(words)] + text
    text = _cut(text, _SHOWN_CHARS)
    day = fact.day.isoformat() if fact.day else ""
    if fact.id:
        return f"- {text} {cite(fact.path, fact.id, day)}"
    return f"- {text} ({day})" if day else f"- {text}"


def _cut(text: str, most: int) -> str:
    """``text`` in at most ``most`` characters: whole, or cut at its last clause break
    ("; ", ", ") past the middle, else at a word, with "…"."""
    if len(text) <= most:
        return text
    head = text[: most - 1]
    breaks = [head.rfind(mark) for mark in ("; ", ", ", " - ", " — ")]
    at = max(breaks)
    if at < most // 2:
        at = head.rfind(" ") if head.rfind(" ") > most // 2 else len(head)
    return head[:at].rstrip(" ,;-—") + "…"


def cite(path: str, ident: str, shown: str = "") -> str:
    """A fact cited by its id as a link Obsidian follows to the fact's line, shown as
    ``shown`` (the day it was learnt), else as the id:
    ``[[facts/health#^f09a4e5a171|2026-11-20]]``."""
    return f"[[{path.removesuffix('.md')}#^{ident}|{shown or ident}]]"


def _active_context(
    topics: list[Topic], open_tasks: list[tuple[str, str]], today: dt.date, config: MemoryConfig
) -> list[str]:
    hot = sorted(
        (t for t in topics if t.status(today, config) == "active"),
        key=lambda t: -t.hotness(today, config),
    )
    out = [
        f"- [[{t.path.removesuffix('.md')}|{t.name}]] ({t.kind}, hotness "
        f"{t.hotness(today, config):.2f})"
        for t in hot[:10]
    ]
    return out + [f"- [ ] {words} ({day})" for words, day in open_tasks]


def _highlights(live: list[Fact], today: dt.date, config: MemoryConfig) -> list[Fact]:
    """The most important facts of each of the last ``highlight_days`` days, newest day
    first, three a day."""
    first = today - dt.timedelta(days=config.highlight_days - 1)
    by_day: defaultdict[dt.date, list[Fact]] = defaultdict(list)
    for fact in live:
        if fact.day and first <= fact.day <= today:
            by_day[fact.day].append(fact)
    return [
        fact
        for day in sorted(by_day, reverse=True)
        for fact in sorted(by_day[day], key=lambda f: (-f.importance, f.id or ""))[:3]
    ]
