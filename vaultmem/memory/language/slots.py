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

from vaultmem.memory.language import slot_words as w
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
    for sentence in w.SENTENCE.split(text) if w.SENTENCE_HINT.search(text) else [text]:
        if sentence.strip():
            for slot in _sentence_slots(strip_triggers(sentence[:MAX_SENTENCE_CHARS])):
                found.setdefault(_as_said_by(slot, speaker), None)
    return list(found)


def _speaker(text: str) -> tuple[str, str]:
    """``("caroline", rest)`` for a conversation turn "Caroline: I ..."; the owner is the
    speaker then, so two speakers' "I live in ..." are not one person's."""
    match = w.SPEAKER.match(text)
    if match is None:
        return "", text
    name = match.group("name")
    if name.casefold() in w.TRIGGERS or name in w.CJK_TRIGGERS:
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
    tokens = frozenset(t.strip(".") for t in w.ASCII_WORD.findall(lowered))
    line = Line.lowered(lowered)
    for gate, cue, read in _READERS:
        if gate.admits(line) and cue.search(lowered):
            yield from read(sentence)
    if tokens & w.ROLE_CUE_WORDS or w.CUE_ROLE_CJK.search(sentence):
        yield from _roles(sentence)
    if tokens & w.TOOL_CUE_WORDS or w.CUE_TOOL_CJK.search(sentence):
        yield from _tools(sentence)


# -- attributes ---------------------------------------------------------------------------


def _residence(sentence: str) -> Iterator[Slot]:
    for pattern in w.RESIDENCE:
        for match in pattern.finditer(sentence):
            value = _place(match.group("value"))
            if not value:
                continue
            clause = clause_before(sentence, match.start())
            negated = takes_back(clause) or bool(match.group("past")) or _spent(match, sentence)
            yield Slot(subject_before(sentence[: match.start()]), "residence", value, negated)
    for match in w.RESIDENCE_FROM.finditer(sentence):
        value = _place(match.group("value") or match.group("cjk"))
        if value:
            subject = subject_before(sentence[: match.start()])
            yield Slot(subject, "residence", value, True)


def _place(phrase: str) -> str:
    """A place named after "live in", "moved to": its capitalised words ("New York" of
    "New York for the new job"), or one or two plain words that are not vague ("a new
    flat"); empty for a time ("moved to Tuesday") or nothing placeable."""
    if w.CJK.match(phrase.lstrip()[:1] or " "):
        return cjk_value(phrase)
    if w.TIME_WORD.match(phrase.lstrip()):
        return ""
    tokens: list[str] = []
    for token in w.TOKEN.findall(w.CLAUSE_BREAK.split(phrase)[0]):
        if token.casefold() in w.VALUE_STOP:
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
    plain = [t for t in tokens if t.casefold() not in w.ARTICLES]
    if 0 < len(plain) <= 2 and not any(t.casefold() in w.VAGUE_PLACES for t in plain):
        return normal(" ".join(plain))
    return ""


def _employer(sentence: str) -> Iterator[Slot]:
    for match in w.EMPLOYER_LEFT.finditer(sentence):
        yield Slot(
            subject_before(sentence[: match.start()]), "employer", normal(match["value"]), True
        )
    for pattern in (w.EMPLOYER, w.CJK_EMPLOYER):
        for match in pattern.finditer(sentence):
            found = match.groupdict()
            doing = found.get("doing")
            if doing and w.CJK_NOT_EMPLOYER.search(doing):
                continue
            value = normal(found["value"] or found["joined"] or doing or "")
            if not value or value in w.NOT_AN_EMPLOYER:
                continue
            subject = subject_before(sentence[: match.start()])
            negated = takes_back(clause_before(sentence, match.start())) or _spent(match, sentence)
            yield Slot(subject, "employer", value, negated)


def _spent(match: re.Match[str], sentence: str) -> bool:
    """Whether a stay or a job is told as over: "lived in Tokyo for two years", "worked at
    Google in my twenties"."""
    return bool(w.SPENT.search(match.group())) and bool(w.PAST_SPAN.search(sentence, match.start()))


def _roles(sentence: str) -> Iterator[Slot]:
    for pattern in w.ROLE_PATTERNS:
        for match in pattern.finditer(sentence):
            groups = match.groupdict()
            role = w.ROLE_OF[groups["role"].casefold()] if groups.get("role") else "lead"
            holder = normal(groups["holder"])
            org = groups.get("org")
            if not org:
                subject = OWNER
            elif w.CJK.search(org):
                # "数据平台组现在" (由陈刚负责): the group, and 我的 the owner's.
                subject = cjk_subject(org)
            else:
                subject = clean_name(w.CJK_ORG_SUFFIX.sub("", org)).removeprefix("the ")
            if subject in w.POSSESSIVE_OWNER or subject in w.FIRST_PERSON:
                continue
            if holder and holder not in w.FIRST_PERSON:
                negated = takes_back(clause_before(sentence, match.start()))
                yield Slot(subject, f"role:{role}", holder, negated)


def _favourites(sentence: str) -> Iterator[Slot]:
    for pattern in w.FAVOURITE_PATTERNS:
        for match in pattern.finditer(sentence):
            whose = match.group("whose").casefold()
            if whose in w.FIRST_PERSON or whose in w.POSSESSIVE_OWNER or "我" in whose:
                subject = OWNER
            elif whose in w.PRONOUNS:
                subject = UNKNOWN
            else:
                subject = cjk_subject(whose) if w.CJK.search(whose) else clean_name(whose)
            thing = normal(singular(match.group("thing").casefold()))
            value = value_after(match.group("value"))
            if value and thing:
                yield Slot(subject, f"favourite:{thing}", value)


def _versions(sentence: str) -> Iterator[Slot]:
    for pattern in w.VERSION_PATTERNS:
        for match in pattern.finditer(sentence):
            software = normal(match.group("software"))
            if software in w.NOT_SOFTWARE:
                continue
            if "." not in match.group("value") and software not in w.BARE_VERSION:
                continue
            scope = _scope(sentence, {software}) or _context(sentence, software)
            yield Slot(software, "version", match.group("value"), scope=scope)


def _context(sentence: str, software: str) -> str:
    """The thing a version is installed on, when no project is named: "on the server"."""
    for match in w.CONTEXT_NOUN.finditer(sentence):
        noun = singular(match.group("noun").casefold())
        if noun != software and noun not in w.NOT_CONTEXT:
            return noun
    return ""


def _project(sentence: str, exclude: set[str]) -> str:
    """The project a sentence is about: its first name (``_names``)."""
    return next(_names(sentence, exclude), "")


def _names(sentence: str, exclude: set[str]) -> Iterator[str]:
    """The capitalised names of a sentence, in order, that are not a known tool, a common
    word at the start of a sentence, a month or a weekday."""
    for match in w.CAPITALISED.finditer(sentence):
        name = normal(match.group())
        if name in exclude or name in w.KIND_OF or name in w.PURPOSE_OF:
            continue
        if not w.NOT_A_PROJECT.fullmatch(name):
            yield name


def _scope(sentence: str, exclude: set[str]) -> str:
    """What a version or a tool is for: a named project ("Atlas", "天穹项目"), else the
    part of a system or the team ("frontend", "后端")."""
    found = _project(sentence, exclude)
    if found:
        return found
    for match in w.CJK_PROJECT.finditer(sentence):
        name = match.group("name")
        if name not in w.NOT_A_CJK_PROJECT and name not in w.CJK_FIRST_PERSON:
            return name
    area = w.AREA.search(sentence)
    if area is None:
        return ""
    word = area.group().casefold()
    return w.AREA_OF.get(word, word.replace("-", "").replace(" ", ""))


def _schedules(sentence: str) -> Iterator[Slot]:
    line = Line.of(sentence)
    for pattern, gate in zip(w.SCHEDULE_PATTERNS, _SCHEDULE_GATES, strict=True):
        if not gate.admits(line):
            continue
        for match in pattern.finditer(sentence):
            phrase = match.group("value")
            # The time must come first ("is at 9:30", "改到周三"), not somewhere later
            # ("Alice is at the gym on Mondays" says where she is, not when an event is).
            start = phrase[:5] if w.CJK.match(phrase[:1] or " ") else " ".join(phrase.split()[:2])
            if not _when(start):
                continue
            event = match.group("event")
            if w.CJK.search(event):
                subject = cjk_subject(event)
            else:
                subject = noun_phrase(w.TOKEN.findall(event))
            if subject in (OWNER, UNKNOWN) or subject in w.NOT_AN_EVENT:
                continue
            yield Slot(subject, "time", _when(phrase))


def _when(text: str) -> str:
    """The day and time a phrase names, as ``day=mon;time=9:30`` (the parts it names)."""
    parts = []
    day = w.WEEKDAY.search(text)
    if day:
        name = day.group().casefold()
        parts.append("day=" + w.WEEKDAY_OF.get(name.rstrip("s"), w.WEEKDAY_OF.get(name, name)))
    time = _clock(text)
    if time:
        parts.append("time=" + time)
    else:
        part = w.DAYPART.search(text)
        if part:
            parts.append("part=" + w.DAYPART_OF[part.group().casefold()])
    return ";".join(parts)


def _clock(text: str) -> str:
    """``9:30``, ``14:00`` from "9:30", "2pm", "下午两点"; empty when no time is named."""
    for pattern in w.CLOCKS:
        match = pattern.search(text)
        if match is None:
            continue
        hour = w.number(match.group("hour"))
        minute = match.group("minute") or "0"
        late = (match.groupdict().get("ampm") or "").casefold()
        if late in ("p", "下午", "晚上", "傍晚") and hour < 12:
            hour += 12
        elif late in ("a", "晚上") and hour == 12:  # 12am, 晚上十二点: midnight
            hour = 0
        return f"{hour}:{30 if minute == '半' else w.number(minute):02d}"
    return ""


def _contacts(sentence: str) -> Iterator[Slot]:
    lowered = sentence.casefold()
    if w.PHONE_WORD.search(lowered):
        for match in w.PHONE.finditer(sentence):
            digits = re.sub(r"\D", "", match.group())
            if len(digits) >= 7 and not w.ISO_DATE.search(match.group()):
                kind = w.PHONE_KIND.search(lowered)
                scope = w.PHONE_KIND_OF[kind.group()] if kind else ""
                subject = _contact_subject(sentence[: match.start()])
                yield Slot(subject, "phone", digits[-8:], scope=scope)
    for match in w.EMAIL.finditer(sentence):
        subject = _contact_subject(sentence[: match.start()])
        kind = w.EMAIL_KIND.search(lowered)
        scope = w.EMAIL_KIND_OF[kind.group()] if kind else ""
        yield Slot(subject, "email", match.group().casefold(), scope=scope)
    for match in w.ADDRESS.finditer(sentence):
        value = normal(w.ADDRESS_END.split(match.group("value") or match.group("cjk"))[0])
        if value:
            yield Slot(_contact_subject(sentence[: match.start()] + " address"), "address", value)


def _contact_subject(before: str) -> str:
    """Whose number or address: the possessive before the contact word ("Alice's", "my"),
    else a name before it ("Alice has a new number"), else the owner ("New number: ...")."""
    found = list(w.CONTACT_WHOSE.finditer(before))
    if not found:
        if w.CJK.search(before):  # "妈妈换了新号码": who comes before the verb
            return cjk_subject(w.CJK_CONTACT_VERB.split(before)[0])
        names = list(_names(before, set()))
        return clean_name(names[-1]) if names else OWNER  # the nearest
    word = found[-1].group("whose")  # the nearest one
    lowered = word.casefold()
    if lowered in w.POSSESSIVE_OWNER or lowered in w.FIRST_PERSON or word.startswith("我"):
        return OWNER
    if lowered in w.PRONOUNS:
        return UNKNOWN
    if w.CJK.search(word):
        return cjk_subject(word.removesuffix("的"))
    return clean_name(word)


def _diet(sentence: str) -> Iterator[Slot]:
    return _state(sentence, w.DIETS, "diet")


def _relationship(sentence: str) -> Iterator[Slot]:
    return _state(sentence, w.RELATIONSHIP, "relationship")


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
            if w.UNASSERTED.search(before):
                continue
            negated = takes_back(clause_before(sentence, match.start()))
            yield Slot(subject_before(before), attribute, value, negated)


def _tools(sentence: str) -> Iterator[Slot]:
    """The tool chosen for a job: "decided to use X (for Y)", "switched Y to X",
    "改用X"; a tool named after "not", "instead of", "from" is negated."""
    named: dict[int, bool] = {}
    for patterns, negated in ((w.TOOL_CHOICE, False), (w.TOOL_DROP, True)):
        for pattern in patterns:
            for match in pattern.finditer(sentence):
                named[match.start("value")] = negated
    purpose = w.PURPOSE.search(sentence)
    for start, dropped in sorted(named.items()):
        tool = w.TOOL_NAME.match(sentence, start)
        if tool is None:
            continue
        name = normal(tool.group())
        kind = w.KIND_OF.get(name) or w.KIND_OF.get(name.split()[0])
        if kind is None:
            wanted = normal(purpose.group("purpose")) if purpose else ""
            kind = w.PURPOSE_OF.get(wanted) or w.PURPOSE_OF.get(wanted.split(" ")[0])
        if kind is None:
            continue
        negated = dropped or takes_back(clause_before(sentence, start))
        scope = _scope(sentence, {name, name.split()[0]})
        yield Slot("tools", f"tool:{kind}", name, negated, scope)


# A reader runs only when its cue matches the lower-cased sentence, and a cue is searched
# only when the sentence holds one of its literal parts (``gates.py``): most sentences
# hold none, and a failed search walks the whole sentence.
def _parts(words: str, digit: bool = False) -> Gate:
    return Gate(parts=tuple(words.split("|")), digit=digit)


_READERS = (
    (
        _parts("liv|resid|based|settled|locat|mov|住|搬|定居|生活在|家在"),
        w.CUE_RESIDENCE,
        _residence,
    ),
    (
        _parts(
            "work|employ|job|position|started|hired|intern|joined|left|quit|resigned|laid off"
            "|工作|上班|任职|实习|入职|跳槽|加入|做|当|担任"
        ),
        w.CUE_EMPLOYER,
        _employer,
    ),
    (_parts("favorite|favourite|最喜欢"), w.CUE_FAVOURITE, _favourites),
    (
        _parts("version|upgraded|bumped|updated|pinned|downgraded|版本|升级|降级", digit=True),
        w.CUE_VERSION,
        _versions,
    ),
    (
        _parts(
            "mon|tue|wed|thu|fri|sat|sun|week|noon|morning|afternoon|evening|night"
            "|周|星期|礼拜|上午|下午|晚上|早上|中午|点",
            digit=True,
        ),
        w.CUE_SCHEDULE,
        _schedules,
    ),
    (
        _parts("@|phone|number|mobile|cell|tel|call me|whatsapp|address|手机|电话|号码|地址"),
        w.CUE_CONTACT,
        _contacts,
    ),
    (
        _parts("veg|plant|meat|pesc|fish|keto|eat|omnivore|carnivore|diet|素|肉|生酮|什么都吃"),
        w.CUE_DIET,
        _diet,
    ),
    (
        _parts(
            "single|dating|going out|relationship|friend|engaged|fianc|married|knot|hitched"
            "|divorced|separated|broke up|split up|单身|分手|恋爱|在一起|朋友|订婚|结婚|已婚|成家"
            "|离婚|离异"
        ),
        w.CUE_RELATIONSHIP,
        _relationship,
    ),
)
# The verbs each schedule pattern needs, as whole words (English) or anywhere (Chinese).
_MOVED = frozenset(
    "moved moves move moving rescheduled changed changes shifted shifts pushed postponed brought "
    "bumped".split()
)
_SCHEDULE_GATES = (
    Gate(frozenset("is are happens happen takes take starts start runs run will".split())),
    Gate(_MOVED),
    Gate(_MOVED),
    _parts("改到|改在|改成|挪到|推迟到|提前到|调到|换到|定在|在|是"),
    Gate(frozenset("wake get go work eat have start finish leave".split())),
    _parts("点|點"),
)
