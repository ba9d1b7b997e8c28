"""Slots: what a fact says about whom, read by rules as ``(subject, attribute, value)``.

"I moved to Paris" and "I live in Berlin" share one word, yet both fill the slot
``(owner, residence, ...)``; two facts filling one single-valued slot with different values
contradict each other whatever their wording (``conflicts.py`` decides). The attributes read
here are the ones a person has one value of at a time: residence, employer, a role's holder
(the lead of a project, one's manager or dentist), a favourite thing, a software version,
the day and time of a recurring event, a phone number, email or address, a diet, and the
tool chosen for a job (a database, CI, a frontend framework...). Things one has many of at
once (hobbies, allergies, friends, languages, likes) are left out on purpose: two of them
never contradict.

Each slot also carries:

* ``negated``: the fact says the value no longer holds ("no longer lives in Berlin",
  "used to", "not PostgreSQL", "不再");
* ``scope``: a qualifier that may or may not be the same slot: the project a version or a
  tool is for ("Atlas" runs on Python 3.11), the kind of phone ("work", "mobile"). Equal
  scopes are the same slot, two different ones are not, one missing is *doubtful*.

The subject is ``owner`` for the first person (I, we, my, 我), a name or a noun phrase
otherwise (``alice``, ``my sister``, ``standup``), and ``?`` for a bare pronoun (he, she).
English and Chinese. No IO, no state: word lists and patterns live in ``slot_words.py``,
the reading of subjects and values in ``slot_phrases.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from vaultmem.memory.language import slot_words
from vaultmem.memory.language.gates import Gate, Line
from vaultmem.memory.language.slot_phrases import (
    OWNER,
    UNKNOWN,
    cjk_subject,
    cjk_value,
    clause_before,
    clean_name,
    normal,
    noun_phrase,
    singular,
    subject_before,
    takes_back,
    value_after,
)
from vaultmem.memory.language.triggers import strip_triggers


@dataclass(frozen=True, slots=True)
class Slot:
    """One thing a fact states: ``subject``'s ``attribute`` is ``value``."""

    subject: str
    attribute: str
    value: str
    negated: bool = False
    scope: str = ""


# The most of one sentence the readers read. Each match reads the sentence before it
# again (its clause, whose contact it is, the project), so a sentence's cost grows with
# its length times its matches; a fact's sentences are far shorter (the longest of the
# benchmark's 57,508 has 551 characters), and a longer one is read up to here.
MAX_SENTENCE_CHARS = 1_000


def slots(text: str) -> list[Slot]:
    """Every slot a fact fills, in order, each once. A capture request opening the fact or
    one of its sentences ("Remember: ...", "记住：...") is no part of what it says. Each
    sentence is read up to ``MAX_SENTENCE_CHARS`` characters."""
    speaker, text = _speaker(strip_triggers(text))
    found: dict[Slot, None] = {}
    for sentence in (
        slot_words.SENTENCE.split(text) if slot_words.SENTENCE_HINT.search(text) else [text]
    ):
        if sentence.strip():
            for slot in _sentence_slots(strip_triggers(sentence[:MAX_SENTENCE_CHARS])):
                found.setdefault(_as_said_by(slot, speaker), None)
    return list(found)


def _speaker(text: str) -> tuple[str, str]:
    """``("caroline", rest)`` for a conversation turn "Caroline: I ..."; the owner is the
    speaker then, so two speakers' "I live in ..." are not one person's."""
    match = slot_words.SPEAKER.match(text)
    if match is None:
        return "", text
    name = match.group("name")
    if name.casefold() in slot_words.TRIGGERS or name in slot_words.CJK_TRIGGERS:
        return "", text[match.end() :]
    return clean_name(name), text[match.end() :]


def _as_said_by(slot: Slot, speaker: str) -> Slot:
    if not speaker:
        return slot
    if slot.subject == OWNER:
        return replace(slot, subject=speaker)
    if slot.subject.startswith("my "):
        return replace(slot, subject=f"{speaker}'s {slot.subject[3:]}")
    return slot


def _sentence_slots(sentence: str) -> Iterator[Slot]:
    # Each reader runs only when its cue words are in the sentence: a cheap test instead
    # of a dozen patterns (consolidation reads every fact of a large vault).
    lowered = sentence.casefold()
    tokens = frozenset(t.strip(".") for t in slot_words.ASCII_WORD.findall(lowered))
    line = Line.lowered(lowered)
    for gate, cue, read in _READERS:
        if gate.admits(line) and cue.search(lowered):
            yield from read(sentence)
    if tokens & slot_words.ROLE_CUE_WORDS or slot_words.CUE_ROLE_CJK.search(sentence):
        yield from _roles(sentence)
    if tokens & slot_words.TOOL_CUE_WORDS or slot_words.CUE_TOOL_CJK.search(sentence):
        yield from _tools(sentence)


# -- attributes ---------------------------------------------------------------------------


def _residence(sentence: str) -> Iterator[Slot]:
    for pattern in slot_words.RESIDENCE:
        for match in pattern.finditer(sentence):
            value = _place(match.group("value"))
            if not value:
                continue
            clause = clause_before(sentence, match.start())
            negated = takes_back(clause) or bool(match.group("past")) or _spent(match, sentence)
            yield Slot(subject_before(sentence[: match.start()]), "residence", value, negated)
    for match in slot_words.RESIDENCE_FROM.finditer(sentence):
        value = _place(match.group("value") or match.group("cjk"))
        if value:
            subject = subject_before(sentence[: match.start()])
            yield Slot(subject, "residence", value, True)


def _place(phrase: str) -> str:
    """A place named after "live in", "moved to": its capitalised words ("New York" of
    "New York for the new job"), or one or two plain words that are not vague ("a new
    flat"); empty for a time ("moved to Tuesday") or nothing placeable."""
    if slot_words.CJK.match(phrase.lstrip()[:1] or " "):
        return cjk_value(phrase)
    if slot_words.TIME_WORD.match(phrase.lstrip()):
        return ""
    tokens: list[str] = []
    for token in slot_words.TOKEN.findall(slot_words.CLAUSE_BREAK.split(phrase)[0]):
        if token.casefold() in slot_words.VALUE_STOP:
            break
        tokens.append(token)
    names: list[str] = []
    for token in tokens:
        if token[0].isupper():
            names.append(token)
        elif names:
            break
    if names:
        return normal(" ".join(names))
    plain = [t for t in tokens if t.casefold() not in slot_words.ARTICLES]
    if 0 < len(plain) <= 2 and not any(t.casefold() in slot_words.VAGUE_PLACES for t in plain):
        return normal(" ".join(plain))
    return ""


def _employer(sentence: str) -> Iterator[Slot]:
    for match in slot_words.EMPLOYER_LEFT.finditer(sentence):
        yield Slot(
            subject_before(sentence[: match.start()]), "employer", normal(match["value"]), True
        )
    for pattern in (slot_words.EMPLOYER, slot_words.CJK_EMPLOYER):
        for match in pattern.finditer(sentence):
            found = match.groupdict()
            doing = found.get("doing")
            if doing and slot_words.CJK_NOT_EMPLOYER.search(doing):
                continue
            value = normal(found["value"] or found["joined"] or doing or "")
            if not value or value in slot_words.NOT_AN_EMPLOYER:
                continue
            subject = subject_before(sentence[: match.start()])
            negated = takes_back(clause_before(sentence, match.start())) or _spent(match, sentence)
            yield Slot(subject, "employer", value, negated)


def _spent(match: re.Match[str], sentence: str) -> bool:
    """Whether a stay or a job is told as over: "lived in Tokyo for two years", "worked at
    Google in my twenties"."""
    return bool(slot_words.SPENT.search(match.group())) and bool(
        slot_words.PAST_SPAN.search(sentence, match.start())
    )


def _roles(sentence: str) -> Iterator[Slot]:
    for pattern in slot_words.ROLE_PATTERNS:
        for match in pattern.finditer(sentence):
            groups = match.groupdict()
            role = slot_words.ROLE_OF[groups["role"].casefold()] if groups.get("role") else "lead"
            holder = normal(groups["holder"])
            org = groups.get("org")
            if not org:
                subject = OWNER
            elif slot_words.CJK.search(org):
                # "数据平台组现在" (由陈刚负责): the group, and 我的 the owner's.
                subject = cjk_subject(org)
            else:
                subject = clean_name(slot_words.CJK_ORG_SUFFIX.sub("", org)).removeprefix("the ")
            if subject in slot_words.POSSESSIVE_OWNER or subject in slot_words.FIRST_PERSON:
                continue
            if holder and holder not in slot_words.FIRST_PERSON:
                negated = takes_back(clause_before(sentence, match.start()))
                yield Slot(subject, f"role:{role}", holder, negated)


def _favourites(sentence: str) -> Iterator[Slot]:
    for pattern in slot_words.FAVOURITE_PATTERNS:
        for match in pattern.finditer(sentence):
            whose = match.group("whose").casefold()
            if (
                whose in slot_words.FIRST_PERSON
                or whose in slot_words.POSSESSIVE_OWNER
                or "我" in whose
            ):
                subject = OWNER
            elif whose in slot_words.PRONOUNS:
                subject = UNKNOWN
            else:
                subject = cjk_subject(whose) if slot_words.CJK.search(whose) else clean_name(whose)
            thing = normal(singular(match.group("thing").casefold()))
            value = value_after(match.group("value"))
            if value and thing:
                yield Slot(subject, f"favourite:{thing}", value)


def _versions(sentence: str) -> Iterator[Slot]:
    for pattern in slot_words.VERSION_PATTERNS:
        for match in pattern.finditer(sentence):
            software = normal(match.group("software"))
            if software in slot_words.NOT_SOFTWARE:
                continue
            if "." not in match.group("value") and software not in slot_words.BARE_VERSION:
                continue
            scope = _scope(sentence, {software}) or _context(sentence, software)
            yield Slot(software, "version", match.group("value"), scope=scope)


def _context(sentence: str, software: str) -> str:
    """The thing a version is installed on, when no project is named: "on the server"."""
    for match in slot_words.CONTEXT_NOUN.finditer(sentence):
        noun = singular(match.group("noun").casefold())
        if noun != software and noun not in slot_words.NOT_CONTEXT:
            return noun
    return ""


def _project(sentence: str, exclude: set[str]) -> str:
    """The project a sentence is about: its first name (``_names``)."""
    return next(_names(sentence, exclude), "")


def _names(sentence: str, exclude: set[str]) -> Iterator[str]:
    """The capitalised names of a sentence, in order, that are not a known tool, a common
    word at the start of a sentence, a month or a weekday."""
    for match in slot_words.CAPITALISED.finditer(sentence):
        name = normal(match.group())
        if name in exclude or name in slot_words.KIND_OF or name in slot_words.PURPOSE_OF:
            continue
        if not slot_words.NOT_A_PROJECT.fullmatch(name):
            yield name


def _scope(sentence: str, exclude: set[str]) -> str:
    """What a version or a tool is for: a named project ("Atlas", "天穹项目"), else the
    part of a system or the team ("frontend", "后端")."""
    found = _project(sentence, exclude)
    if found:
        return found
    for match in slot_words.CJK_PROJECT.finditer(sentence):
        name = match.group("name")
        if name not in slot_words.NOT_A_CJK_PROJECT and name not in slot_words.CJK_FIRST_PERSON:
            return name
    area = slot_words.AREA.search(sentence)
    if area is None:
        return ""
    word = area.group().casefold()
    return slot_words.AREA_OF.get(word, word.replace("-", "").replace(" ", ""))


def _schedules(sentence: str) -> Iterator[Slot]:
    line = Line.of(sentence)
    for pattern, gate in zip(slot_words.SCHEDULE_PATTERNS, _SCHEDULE_GATES, strict=True):
        if not gate.admits(line):
            continue
        for match in pattern.finditer(sentence):
            phrase = match.group("value")
            # The time must come first ("is at 9:30", "改到周三"), not somewhere later
            # ("Alice is at the gym on Mondays" says where she is, not when an event is).
            start = (
                phrase[:5]
                if slot_words.CJK.match(phrase[:1] or " ")
                else " ".join(phrase.split()[:2])
            )
            if not _when(start):
                continue
            event = match.group("event")
            if slot_words.CJK.search(event):
                subject = cjk_subject(event)
            else:
                subject = noun_phrase(slot_words.TOKEN.findall(event))
            if subject in (OWNER, UNKNOWN) or subject in slot_words.NOT_AN_EVENT:
                continue
            yield Slot(subject, "time", _when(phrase))


def _when(text: str) -> str:
    """The day and time a phrase names, as ``day=mon;time=9:30`` (the parts it names)."""
    parts = []
    day = slot_words.WEEKDAY.search(text)
    if day:
        name = day.group().casefold()
        parts.append(
            "day="
            + slot_words.WEEKDAY_OF.get(name.rstrip("s"), slot_words.WEEKDAY_OF.get(name, name))
        )
    time = _clock(text)
    if time:
        parts.append("time=" + time)
    else:
        part = slot_words.DAYPART.search(text)
        if part:
            parts.append("part=" + slot_words.DAYPART_OF[part.group().casefold()])
    return ";".join(parts)


def _clock(text: str) -> str:
    """``9:30``, ``14:00`` from "9:30", "2pm", "下午两点"; empty when no time is named."""
    for pattern in slot_words.CLOCKS:
        match = pattern.search(text)
        if match is None:
            continue
        hour = slot_words.number(match.group("hour"))
        minute = match.group("minute") or "0"
        late = (match.groupdict().get("ampm") or "").casefold()
        if late in ("p", "下午", "晚上", "傍晚") and hour < 12:
            hour += 12
        elif late in ("a", "晚上") and hour == 12:  # 12am, 晚上十二点: midnight
            hour = 0
        return f"{hour}:{30 if minute == '半' else slot_words.number(minute):02d}"
    return ""


def _contacts(sentence: str) -> Iterator[Slot]:
    lowered = sentence.casefold()
    if slot_words.PHONE_WORD.search(lowered):
        for match in slot_words.PHONE.finditer(sentence):
            digits = re.sub(r"\D", "", match.group())
            if len(digits) >= 7 and not slot_words.ISO_DATE.search(match.group()):
                kind = slot_words.PHONE_KIND.search(lowered)
                scope = slot_words.PHONE_KIND_OF[kind.group()] if kind else ""
                subject = _contact_subject(sentence[: match.start()])
                yield Slot(subject, "phone", digits[-8:], scope=scope)
    for match in slot_words.EMAIL.finditer(sentence):
        subject = _contact_subject(sentence[: match.start()])
        kind = slot_words.EMAIL_KIND.search(lowered)
        scope = slot_words.EMAIL_KIND_OF[kind.group()] if kind else ""
        yield Slot(subject, "email", match.group().casefold(), scope=scope)
    for match in slot_words.ADDRESS.finditer(sentence):
        value = normal(slot_words.ADDRESS_END.split(match.group("value") or match.group("cjk"))[0])
        if value:
            yield Slot(_contact_subject(sentence[: match.start()] + " address"), "address", value)


def _contact_subject(before: str) -> str:
    """Whose number or address: the possessive before the contact word ("Alice's", "my"),
    else a name before it ("Alice has a new number"), else the owner ("New number: ...")."""
    found = list(slot_words.CONTACT_WHOSE.finditer(before))
    if not found:
        if slot_words.CJK.search(before):  # "妈妈换了新号码": who comes before the verb
            return cjk_subject(slot_words.CJK_CONTACT_VERB.split(before)[0])
        names = list(_names(before, set()))
        return clean_name(names[-1]) if names else OWNER  # the nearest
    word = found[-1].group("whose")  # the nearest one
    lowered = word.casefold()
    if (
        lowered in slot_words.POSSESSIVE_OWNER
        or lowered in slot_words.FIRST_PERSON
        or word.startswith("我")
    ):
        return OWNER
    if lowered in slot_words.PRONOUNS:
        return UNKNOWN
    if slot_words.CJK.search(word):
        return cjk_subject(word.removesuffix("的"))
    return clean_name(word)


def _diet(sentence: str) -> Iterator[Slot]:
    return _state(sentence, slot_words.DIETS, "diet")


def _relationship(sentence: str) -> Iterator[Slot]:
    return _state(sentence, slot_words.RELATIONSHIP, "relationship")


def _state(
    sentence: str, table: tuple[tuple[re.Pattern[str], str], ...], attribute: str
) -> Iterator[Slot]:
    """A state someone is in, one of ``table``'s at a time (a diet, single or married)."""
    taken: list[tuple[int, int]] = []
    for pattern, value in table:
        for match in pattern.finditer(sentence):
            if any(a < match.end() and match.start() < b for a, b in taken):
                continue
            taken.append(match.span())
            before = sentence[: match.start()]
            if slot_words.UNASSERTED.search(before):
                continue
            negated = takes_back(clause_before(sentence, match.start()))
            yield Slot(subject_before(before), attribute, value, negated)


def _tools(sentence: str) -> Iterator[Slot]:
    """The tool chosen for a job: "decided to use X (for Y)", "switched Y to X",
    "改用X"; a tool named after "not", "instead of", "from" is negated."""
    named: dict[int, bool] = {}
    for patterns, negated in ((slot_words.TOOL_CHOICE, False), (slot_words.TOOL_DROP, True)):
        for pattern in patterns:
            for match in pattern.finditer(sentence):
                named[match.start("value")] = negated
    purpose = slot_words.PURPOSE.search(sentence)
    for start, dropped in sorted(named.items()):
        tool = slot_words.TOOL_NAME.match(sentence, start)
        if tool is None:
            continue
        name = normal(tool.group())
        kind = slot_words.KIND_OF.get(name) or slot_words.KIND_OF.get(name.split()[0])
        if kind is None:
            wanted = normal(purpose.group("purpose")) if purpose else ""
            kind = slot_words.PURPOSE_OF.get(wanted) or slot_words.PURPOSE_OF.get(
                wanted.split(" ")[0]
            )
        if kind is None:
            continue
        negated = dropped or takes_back(clause_before(sentence, start))
        scope = _scope(sentence, {name, name.split()[0]})
        yield Slot("tools", f"tool:{kind}", name, negated, scope)


# A reader runs only when its cue matches the lower-cased sentence, and a cue is searched
# only when the sentence holds one of its literal parts (``slot_words``' ``_PARTS``).
def _parts(words: str, digit: bool = False) -> Gate:
    return Gate(parts=tuple(words.split("|")), digit=digit)


_READERS = (
    (_parts(slot_words.RESIDENCE_PARTS), slot_words.CUE_RESIDENCE, _residence),
    (_parts(slot_words.EMPLOYER_PARTS), slot_words.CUE_EMPLOYER, _employer),
    (_parts(slot_words.FAVOURITE_PARTS), slot_words.CUE_FAVOURITE, _favourites),
    (_parts(slot_words.VERSION_PARTS, digit=True), slot_words.CUE_VERSION, _versions),
    (_parts(slot_words.SCHEDULE_PARTS, digit=True), slot_words.CUE_SCHEDULE, _schedules),
    (_parts(slot_words.CONTACT_PARTS), slot_words.CUE_CONTACT, _contacts),
    (_parts(slot_words.DIET_PARTS), slot_words.CUE_DIET, _diet),
    (_parts(slot_words.RELATIONSHIP_PARTS), slot_words.CUE_RELATIONSHIP, _relationship),
)
_SCHEDULE_GATES = tuple(
    _parts(verbs) if isinstance(verbs, str) else Gate(verbs) for verbs in slot_words.SCHEDULE_VERBS
)
