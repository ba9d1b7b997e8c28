"""People a line names, and who a line is about: the owner or someone else.

A capitalised word is a person only with evidence (``docs/facts.md``):

- a verb or state of a person after it: "Alice said", "Bob is allergic", "Carol moved",
  "Dan's wife", "Eve and I", "Alice说", "Alice对花生过敏";
- a relation or title before it: "my friend Alice", "colleague Bob", "Dr. Chen", "我的朋友Alice";
- a meeting or message: "lunch with Alice", "met Bob", "emailed Carol", "a call from Dan",
  "talked to Eve" (not "moved to Paris": "to" and "from" count only after talking);
- a name already known as a person (an earlier fact's ``[person:: ]``).

Never from inside a word ("MySQL" holds no "My"), never a place (Paris, Berlin), never a
day, a month or a common word that starts a sentence ("Everyone said").

Who a line is about decides where its fact goes: "I live in Berlin" is the owner's
identity, "Alice is allergic to peanuts" belongs with the people. A line is about someone
else when its subject is a named person or the owner's relation ("my wife", "我妈妈"), or
when a named speaker said it of themself ("Caroline: I went to a support group"); a person
who only reports ("Alice said the release slips") makes the line about what was said.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable

from vaultmem.memory.language.gates import Gate, Gated, Line
from vaultmem.memory.language.roles import FULL_NAME, KEPT_ROLE, PLAIN_ROLES, kept_role

_RELATIONS = (
    "friend|best friend|colleague|coworker|co-worker|boss|manager|wife|husband|partner|son|"
    "daughter|mother|mom|mum|father|dad|sister|brother|cousin|uncle|aunt|niece|nephew|"
    "neighbour|neighbor|teacher|doctor|dentist|mentor|roommate|flatmate|girlfriend|boyfriend|"
    "fiance|fiancee|fiancé|fiancée|grandma|grandpa|grandmother|grandfather|kid|child|baby|"
    "client|customer|landlord|lead|teammate|classmate|intern|therapist|coach|tutor|"
    "parents|kids|children|family"
)
_ZH_RELATIONS = (
    "朋友|同事|老板|经理|妻子|老婆|丈夫|老公|儿子|女儿|妈妈|母亲|爸爸|父亲|哥哥|姐姐|弟弟|妹妹|"
    "爷爷|奶奶|外公|外婆|男朋友|女朋友|室友|邻居|老师|医生|客户|家人|孩子|领导"
)
# What people do and are ("Alice is allergic", "Bob prefers", "Carol's wife").
_PERSON_VERBS = (
    r"said|says|say|thinks|thought|told|tells|asked|asks|wants|wanted|needs|likes|liked|loves|"
    r"loved|hates|hated|prefers|preferred|leads|led|joined|joins|left|quit|lives|lived|works|"
    r"worked|moved|moves|studies|studied|feels|felt|believes|knows|mentioned|suggested|"
    r"recommended|agreed|replied|wrote|emailed|texted|called|visited|met|married|"
    r"got\s+married|got\s+engaged|was\s+born|is\s+allergic|was\s+diagnosed|"
    r"is\s+(?:now\s+|also\s+)?(?:allergic|vegetarian|vegan|pregnant|married|engaged|"
    r"divorced|retired|sick|ill|away|out|off|on\s+(?:leave|vacation|holiday)|"
    r"coming|visiting|moving|leaving|back|(?:my|our|the\s+new|the|a|an)\s+(?:new\s+)?"
    rf"(?:{_RELATIONS}|lead|head|ceo|cto|cfo|vp|director|engineer|designer|developer|owner|"
    r"maintainer|contact|emergency\s+contact|person|guy|woman|man|expert|vegetarian|vegan))|"
    rf"has\s+(?:a|an|two|three|\d+)\s+(?:{_RELATIONS}|kids?|sons?|daughters?|children|allergy)|"
    rf"'s\s+(?:{_RELATIONS}|birthday|phone|email|address|number|allergy|favou?rite|job|role)|"
    rf"and\s+I\b|,\s+(?:my|our)\s+(?:{_RELATIONS})"
)
# Verbs that report what someone said: the line is about what follows, not its speaker.
_REPORTING = re.compile(
    r"^(?:said|says|say|thinks|thought|told|tells|asked|asks|believes|knows|mentioned|"
    r"suggested|recommended|agreed|replied|wrote|emailed|texted|called|feels|felt)\b"
)
# Reported speech about the speaker themself: "says she is", "told me (that) he ...",
# "说她...": the line is about the one who said it.
_REPORTED_SELF = re.compile(
    r"^(?:(?:said|says|told|tells|mentioned|mentions|explained|wrote|texted|emailed)"
    r"(?:\s+(?:me|us))?\s*,?\s+(?:that\s+)?(?:she|he|they)\b(?!\s+(?:said|says|told))"
    r"|(?:说|告诉我们?|提到|提起)(?:过)?[，,]?(?:她|他)(?![们的]))"
)
_ZH_VERBS = (
    r"说|觉得|认为|告诉|问|想|要|喜欢|讨厌|爱|住在|住|搬到|搬家|在\S{0,8}工作|加入|离开|辞职|"
    rf"对\S{{0,8}}过敏|过敏|是(?:我的)?(?:{_ZH_RELATIONS}|素食|新的|负责人)|吃素|怀孕|结婚|的生日"
)
_SOCIAL = (
    r"lunch|dinner|breakfast|brunch|coffee|drinks?|meeting|meet|met|call|chat|talk|talked|"
    r"spoke|speak|went|go|going|hung\s+out|hang\s+out|played|play|"
    r"review|sync|1:1|date|trip|paired|pairing|argued|discussed|visit|visited|stayed|"
    r"live|lives|living|travelled|traveled|caught\s+up|catch\s+up|together|along|friends|"
    r"session|interview|walk|hike|run|game|standup|stand-up|retro|demo|workshop|party|"
    r"appointment|class|lesson"
)
_DIRECT = (
    "met|meet|meeting|asked|ask|told|tell|emailed|email|texted|text|messaged|message|pinged|"
    "ping|called|call|thanked|thank|thanks|cc|invited|invite|hired|interviewed|congratulated"
)
_TO_VERBS = (
    "talk|talked|spoke|speak|wrote|write|sent|send|gave|give|lent|lend|explained|introduced|"
    "reported|mentioned|replied|listened|belongs|married|engaged"
)
_FROM_NOUNS = (
    "email|message|call|text|letter|gift|note|news|card|feedback|invite|invitation|present|"
    "heard|reply"
)
_TITLES = "mr|mrs|ms|miss|dr|prof|sir|dear"
# One look behind and ahead first: the alternation is tried only where a word starts.
_CONTEXT = re.compile(
    rf"(?<![A-Za-z])(?=[A-Za-z@])(?i:\b(?:(?:{_SOCIAL})\s+(?:\w+\s+){{0,3}}?with|{_DIRECT}|"
    rf"(?:{_TO_VERBS})\s+to|(?:{_FROM_NOUNS})s?\s+from|(?:my|our|his|her|their)\s+"
    rf"(?:{_RELATIONS})|(?:{_RELATIONS})|{_TITLES})\b\.?,?\s+|@)({FULL_NAME})"
)
# Every match holds "with", one of the words before "to" or "from", a relation (its first
# word: "best friend", "co-worker"), a title, or "@": most lines hold none of them.
_CONTEXT_GATE = Gate(
    frozenset(
        [
            "with",
            *_DIRECT.split("|"),
            *_TO_VERBS.split("|"),
            *(n + s for n in _FROM_NOUNS.split("|") for s in ("", "s")),
            *(re.findall(r"\w+", r)[0] for r in _RELATIONS.split("|")),
            *_TITLES.split("|"),
        ]
    ),
    ("@",),
)
_G_CONTEXT = Gated(_CONTEXT, _CONTEXT_GATE)
# One more name after a person's ("with Tom and Priya"), unless it names a group ("and
# Google folks").
_AND_NAME = re.compile(
    rf"(?:\s*,\s*(?:and\s+)?|\s+(?:and|&)\s+)({FULL_NAME})"
    r"(?!\s+(?:team|folk|people|guy|engineer|staff|crew|office|group|user|customer)s?\b)"
)
_AFTER = re.compile(rf"({FULL_NAME})\s*(?:{_PERSON_VERBS})\b|({FULL_NAME})(?:{_ZH_VERBS})")
_ZH_CONTEXT = re.compile(rf"(?:我的|我)(?:{_ZH_RELATIONS})\s*({FULL_NAME})")
_G_ZH_CONTEXT = Gated(_ZH_CONTEXT, Gate(parts=("我",)))
# Capitalised words that start sentences or follow "with"/"to" and are no one ("User" and
# "Owner": an assistant's notes name the owner so, "User prefers dark mode").
COMMON_WORDS = frozenset(
    """Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April
    May June July August September October November December Today Tomorrow Yesterday
    Tonight The This That These Those There Here What When Where Why How Who Which It We You
    They He She Everyone Everybody Someone Somebody Nobody Anyone Anybody No None All Both
    Each Every Most Many Some Several Nothing Everything Something Anything Also Then So But
    And Or If Once Our Their His Her Its My Your Mine Yes Okay Ok Thanks Thank Hello Hi Hey
    Dear Please Sorry Sure Maybe Perhaps Actually Anyway Well Now Later Soon Team Management
    Support Sales Marketing Engineering Legal Finance Security Product Design Ops Admin
    Christmas Easter Halloween Thanksgiving New Year God Mom Dad Mum Grandma Grandpa
    User Owner""".split()
)
# Places, which the hints can catch ("moved to Paris", "Berlin is lovely"). Not a gazetteer:
# the hints already need a person's verb, this only guards the common cases.
PLACES = frozenset(
    """Paris Berlin London Rome Madrid Lisbon Vienna Prague Warsaw Amsterdam Brussels Dublin
    Zurich Geneva Munich Hamburg Frankfurt Milan Barcelona Athens Istanbul Moscow Stockholm
    Oslo Copenhagen Helsinki Budapest Tokyo Kyoto Osaka Seoul Beijing Shanghai Shenzhen
    Guangzhou Hangzhou Chengdu Wuhan Nanjing Taipei Singapore Bangkok Hanoi Jakarta Manila
    Mumbai Delhi Bangalore Dubai Cairo Lagos Nairobi Sydney Melbourne Auckland Toronto
    Vancouver Montreal Chicago Boston Seattle Austin Denver Houston Dallas Miami Atlanta
    Portland Phoenix Detroit Philadelphia Washington York Francisco Angeles Diego Jose Mexico
    Lima Bogota Santiago Rio Paulo Buenos Aires America Europe Asia Africa Australia Canada
    China Japan Korea India France Germany Italy Spain Portugal Brazil Russia Ukraine Poland
    Sweden Norway Denmark Finland Ireland Scotland England Britain Netherlands Belgium
    Switzerland Austria Greece Turkey Egypt Israel Thailand Vietnam Indonesia Malaysia
    Texas California Florida Bavaria Hawaii Alaska Brooklyn Manhattan Hollywood""".split()
)


_NAME_RE = re.compile(FULL_NAME)


def _is_name(name: str) -> bool:
    return not any(part in COMMON_WORDS or part in PLACES for part in name.split())


def people(text: str, known: Iterable[str] = ()) -> list[str]:
    """The people a line names, in order of first appearance, each once.

    Args:
        text: the line's words.
        known: names already known as people (matched whole, as written).
    """
    candidates = [m for m in _NAME_RE.finditer(text) if _is_name(m[0].split()[0])]
    if not candidates:  # most lines: no capitalised word that could be a name
        return []
    found: list[tuple[int, str]] = []
    line = Line.of(text)
    searches = (
        (_CONTEXT, _G_CONTEXT.finditer(text, line)),
        (_AFTER, _AFTER.finditer(text)),
        (_ZH_CONTEXT, _G_ZH_CONTEXT.finditer(text, line)),
    )
    for pattern, matches in searches:
        for match in matches:
            group = next((i for i in range(1, (pattern.groups or 0) + 1) if match[i]), None)
            if group is not None:
                found.append((match.start(group), match[group]))
                if pattern is _CONTEXT:  # "dinner with Tom and Priya", "met Ann, Bo and Cy"
                    end = match.end(group)
                    while (more := _AND_NAME.match(text, end)) is not None:
                        found.append((more.start(1), more[1]))
                        end = more.end(1)
    known_set = known if isinstance(known, (set, frozenset)) else set(known)
    for match in candidates if known_set else []:  # a lookup per name, not a search per known name
        whole, first = match[0], match[0].split()[0]
        if whole in known_set or first in known_set:
            found.append((match.start(), whole if whole in known_set else first))
    names = [_trim(name) for _, name in sorted(found)]
    return [n for n in dict.fromkeys(names) if n and _is_name(n)]


def _trim(name: str) -> str:
    """The name without a second word that is no name part ("Alice Monday": "Alice")."""
    parts = name.split()
    return " ".join(p for i, p in enumerate(parts) if i == 0 or _is_name(p))


_OWNER = re.compile(
    rf"(?i:(?:i|i'm|i've|i'd|i'll|me|my|we|we're|we've|our|us)\b)|我(?!的?(?:{_ZH_RELATIONS}))"
)
_MY_RELATION = re.compile(
    rf"(?i:(?:my|our)\s+(?:{_RELATIONS})\b)(?:\s+({FULL_NAME}))?|我的?(?:{_ZH_RELATIONS})\s*({FULL_NAME})?"
)
# "\s*,?\s*" would split a run of spaces between its two halves in every way: quadratic.
_AND_I = re.compile(r"(?i:\s*(?:,\s*)?(?:and|&)\s+(?:i|me)\b)|和我|跟我")
_SUBJECT = re.compile(rf"^({FULL_NAME})(?:'s\b|\s+|(?=[\u4e00-\u9fff]))")


def speaker(text: str) -> str | None:
    """The name a line of a conversation starts with, as ``Name: words``; ``None`` for
    any other line ("Deploy failed with error: ..." is no one's)."""
    name = kept_role(text)
    return name if name and _is_name(name) else None


def speakers(texts: Iterable[str]) -> set[str]:
    """A conversation's speakers among facts' words: the names that open at least three
    of them as ``Name: words`` (how a fact keeps its line's role), plain roles aside. A
    name that opens one line ("Noted: ...") is no one."""
    said = Counter(name for text in texts if (name := speaker(text)))
    return {n for n, count in said.items() if count >= 3 and n.casefold() not in PLAIN_ROLES}


def about(text: str, known: Collection[str] = ()) -> str | None:
    """Who a line is about when it is not the owner: a name, or the relation words ("my
    wife"); ``None`` for the owner, or when the line is about no one in particular.

    Args:
        text: the line's words (a named speaker first, as ``Name: words``, when one said it).
        known: names already known as people.
    """
    words = text.strip()
    speaker = KEPT_ROLE.match(words)
    if speaker and _is_name(speaker[1]):
        rest = words[speaker.end() :]
        if _OWNER.match(rest):
            return speaker[1]
        words = rest
    relation = _MY_RELATION.match(words)
    if relation is not None and not _AND_I.match(words, relation.end()):
        return relation[1] or relation[2] or relation[0].strip()
    subject = _SUBJECT.match(words)
    if subject is None or not _is_name(subject[1]):
        return None
    name, rest = subject[1], words[subject.end() :]
    if _AND_I.match(words, subject.end(1)):
        return None  # "Sarah and I went hiking": the owner's, shared
    if _REPORTING.match(rest) and not _REPORTED_SELF.match(rest):
        return None  # "Alice said the release slips": about the release
    if name in known or name in people(words[: subject.end() + 60]):
        return name
    return None
