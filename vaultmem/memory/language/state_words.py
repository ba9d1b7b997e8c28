"""Word tables of ``states.py``: the kinds of standing fact about someone and the words
that say one holds, starts, ends or moves, in English and Chinese.

Each entry of ``STATES`` (English) and ``CJK_STATES`` (Chinese) is ``(kind, event,
pattern)``. An event of ``IS`` says the state holds ("I work as a nurse", "我住在杭州");
``NONE`` that it is empty ("I'm single", "我没养宠物"); ``STARTS`` that a new one begins
("got a job at", "adopted", "入职"); ``ENDS`` that one ends ("laid off", "sold the car",
"戒烟"); ``MOVES`` that a value changes to another ("moved to", "pushed back to", "下调到").
The patterns are lower-case, searched in one clause at a time, case-folded. Beside them,
a phrase lexicon (``PHRASES_EN``, ``PHRASES_ZH``) and the cues that say a clause tells no
change (``QUESTION``, ``UNSURE``, ``PAST``, ``PASSING``, ``GOES_ON``, ``ALSO``). Every kind
has one value at a time (a new job ends the old one) but those of ``MULTIPLE``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

IS, NONE, STARTS, ENDS, MOVES = "is", "none", "starts", "ends", "moves"
# A state said to hold now ("I live in Brooklyn now", "目前是"): a change, but a doubtful
# one (it may only say the old value again, or something beside it).
NOW_IS = "now is"
CHANGES = frozenset((STARTS, ENDS, MOVES, NOW_IS))
# Kinds a habit's words name, ended or started by ``HABIT_ENDS`` / ``HABIT_STARTS``.
HABITS = frozenset(
    "habit:coffee habit:smoking habit:alcohol habit:exercise habit:sleep diet medication".split()
)

# Kinds of which one holds several (a new pet does not replace the dog: only "none" -> one,
# or an end); every other kind has one value at a time.
MULTIPLE = frozenset("pet vehicle hobby".split())
# Kinds that are about a thing, not a person: the two facts must name the same thing (a
# shared word: "the Atlas launch", "the Pro plan", "成都的行程").
OF_A_THING = frozenset("plan price stack role".split())
# Kinds of which the two facts must name the same thing, or the same kind of thing.
ANCHORED = OF_A_THING | {"favourite", "preference"}


def _words(*alternatives: str) -> str:
    return "|".join(alternatives)


_OCCUPATION = _words(
    "engineer|developer|programmer|designer|manager|analyst|consultant|accountant|nurse",
    "doctor|surgeon|dentist|teacher|professor|lecturer|tutor|lawyer|attorney|paralegal",
    "barista|chef|cook|waiter|waitress|bartender|cashier|clerk|receptionist|secretary",
    "assistant|intern|trainee|apprentice|architect|scientist|researcher|journalist|writer",
    "editor|photographer|artist|musician|actor|pilot|driver|mechanic|electrician|plumber",
    "carpenter|firefighter|paramedic|pharmacist|therapist|counselor|counsellor|social worker",
    "salesperson|sales rep|recruiter|marketer|product manager|data scientist|founder|cto|ceo",
    "freelancer|contractor|officer|soldier|police officer|cop|farmer|librarian|vet|veterinarian",
    "mentor|coach|trainer|instructor|tester|admin|administrator|technician|operator|banker",
    "director|executive|associate|specialist|coordinator|supervisor|team lead|tech lead|dev",
)
_PET = _words(
    "pets?|dogs?|pupp(?:y|ies)|pups?|cats?|kittens?|kitty|rabbits?|bunn(?:y|ies)|hamsters?",
    "guinea pigs?|parrots?|budgies?|birds?|fish|goldfish|turtles?|tortoises?|snakes?|lizards?",
    "horses?|ferrets?|beagles?|labradors?|retrievers?|poodles?|terriers?|collies?|spaniels?",
    "husk(?:y|ies)|corgis?|pugs?|bulldogs?|dachshunds?|tabb(?:y|ies)",
)
_VEHICLE = _words(
    "car|cars|bike|bicycle|motorbike|motorcycle|scooter|e-?bike|van|truck|suv|hatchback",
    "sedan|jeep|tesla|toyota|honda|civic|corolla|golf|prius|bmw|audi|mini|ford|kia|hyundai",
)
_SCHOOL_NOUN = _words("school|primary|secondary|high|college|academy|university|uni|kindergarten")
_EVENT_NOUN = _words(
    "appointment|meeting|sync|standup|stand-up|deadline|launch|release|visit|dinner|party",
    "wedding|interview|exam|surgery|class|lesson|session|demo|review|call|flight|check-?up",
    "trip|holiday|vacation|ceremony|concert|match|game|retro|offsite|kickoff|go-live",
)
_ROLE = _words(
    "vice[- ]?president|president|chair|chairman|chairwoman|captain|treasurer|secretary|head|lead",
    "on-call lead|organi[sz]er|admin|owner|maintainer|coordinator|manager|leader|coach|editor",
)
_DAY = _words(
    "monday|tuesday|wednesday|thursday|friday|saturday|sunday|mondays|tuesdays|wednesdays",
    "thursdays|fridays|saturdays|sundays|tomorrow|tonight|next week|next month",
)


_PRICE_WORD = "costs?|price[sd]?|fees?|rent|salary|budget|subscription|pay|wage|rate"
_PRICE_MOVE = (
    "raised|increased|dropped|lowered|cut|reduced|hiked|bumped|slashed"
    "|went up|went down|gone up|gone down"
)


def _en(pattern: str) -> re.Pattern[str]:
    """A pattern of lower-case words, searched in folded text (``gates.fold``): without
    ``re.IGNORECASE``, which makes a search of an alternation two to four times slower."""
    assert not re.search(r"(?<!\\)[A-Z]", re.sub(r"\[[^\]]*\]", "", pattern)), pattern
    return re.compile(pattern)


CASED: set[re.Pattern[str]] = set()  # patterns that read capitals: searched in the text as is


def _cased(pattern: str) -> re.Pattern[str]:
    compiled = re.compile(pattern)
    CASED.add(compiled)
    return compiled


_NO = r"(?:don't|do not|doesn't|does not|didn't|never|no longer|not|no)"
_DEVICE_PHONE = r"iphone|android|pixel|galaxy|samsung|phone"
_DEVICE_LAPTOP = r"laptop|macbook|thinkpad|chromebook|framework|computer|dell|lenovo"
STATES: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    # -- a job: where, as what; a workplace (office, remote); a shift pattern
    ("job", IS, _en(r"\bwork(?:s|ing)?\s+(?:\w+\s+)?(?:as|at|for|in)\b")),
    ("job", IS, _en(r"\b(?:my|his|her|their) (?:job|position|role|employer) (?:is|as|at)\b")),
    (
        "job",
        IS,
        _en(
            r"\b(?:teaches|tutors|lectures|nurses|consults) (?:at|for|in|full-time|part-time"
            r"|\w+ at)\b|\b(?:employed|hired) (?:at|by|as)\b|\b(?:freelanc\w*|self-employed"
            r"|my own boss)\b"
        ),
    ),
    (
        "job",
        IS,
        _en(
            r"\b(?:i'm|i am|he's|he is|she's|she is|'s|is|am|was)\s+(?:now\s+)?(?:a|an)\s+"
            r"(?:[\w-]+\s+){0,3}?(?:" + _OCCUPATION + r")s?\b"
        ),
    ),
    ("job", IS, _en(r"\b(?:on|in|joined|joining|join) the (?:[\w-]+\s+){1,3}?team\b")),
    (
        "job",
        IS,
        _en(
            r"\b(?:my|his|her) (?:job|boss|employer|career|salary|title|internship|contract"
            r"|shifts?|manager|clients?)\b"
        ),
    ),
    (
        "job",
        NONE,
        _en(
            r"\b(?:unemployed|between jobs|out of work|job hunting"
            r"|looking for (?:a )?(?:new )?(?:job|work))\b"
        ),
    ),
    (
        "job",
        STARTS,
        _en(
            r"\b(?:(?:got|landed|accepted|took|taking|start(?:ed|ing|s)?|have|found) (?:a |an "
            r"|the |my )?"
            r"new (?:job|position|role|gig)|new job|got (?:a|an|the) (?:[\w-]+ ){0,2}?(?:job|gig"
            r"|role|position)"
            r"|got hired|landed (?:a|an|the) (?:[\w-]+ ){0,2}?(?:job|role|position)"
            r"|accepted (?:a|an|the) (?:[\w-]+ )?(?:job|offer|position|role)|first (?:day|week"
            r"|month|shift) (?:at|as)"
            r"|joined (?:the |a |an )?(?:[\w-]+ )?(?:company|firm|team|startup|agency|practice"
            r"|staff|department|hospital|school|bank)"
            r"|promoted|promotion to|got (?:a|the) promotion|been made|made (?:a "
            r"|the )?(?:partner|lead|manager|head)"
            r"|start(?:ed|ing|s)? (?:work(?:ing)? )?(?:at|as|with)|took over as|taking over as"
            r"|stepped up as"
            r"|hired me|(?:offered|gave) me (?:a|the) (?:[\w-]+ )?(?:job|position|role|title))\b"
        ),
    ),
    (
        "job",
        ENDS,
        _en(
            r"\b(?:quit (?:my|his|her|the) job|quit\b|resigned|resigning|laid off|(?:got|was"
            r"|been|being) let go|let (?:me|him|her|them) go|got fired|been fired"
            r"|was fired|lost (?:my|his|her|their) job|retired|retiring|left (?:my|his|her"
            r"|the) (?:job|company|firm)"
            r"|handed in (?:my|his|her) notice|stepped down|last day (?:at|as))\b"
        ),
    ),
    (
        "workplace",
        IS,
        _en(
            r"\b(?:in|at|to) the office\b|\bwork(?:ing)? from home\b|\bwfh\b|\bremote(?:ly)?\b"
            r"|\bhybrid\b"
        ),
    ),
    (
        "workplace",
        MOVES,
        _en(
            r"\b(?:gone|went|going|switched to|moved to) (?:fully |full-time |100% )?(?:remote"
            r"|hybrid)\b"
            r"|\bback (?:in|to) the office\b|\breturn(?:ed|ing)? to (?:the )?office\b"
        ),
    ),
    (
        "shift",
        IS,
        _en(
            r"\b(?:night|day|late|early|evening|morning|graveyard) shifts?\b|\bon (?:nights|days)\b"
            r"|\bnight (?:rota|shifts?)\b|\bwork(?:s|ing)? nights\b"
        ),
    ),
    (
        "shift",
        MOVES,
        _en(
            r"\bback on (?:days|nights)\b|\b(?:rota|shifts?) (?:is|are) over\b"
            r"|\bswitched to (?:days|nights)\b"
        ),
    ),
    # -- a home
    (
        "home",
        IS,
        _en(
            r"\b(?:live|lives|living|based|reside|resides|residing|renting)\s+(?:in|at|on|near"
            r"|with|downtown|uptown|out)\b"
        ),
    ),
    (
        "home",
        IS,
        _en(
            r"\b(?:my|our|his|her|their) (?:place|flat|apartment|house|home) is\b"
            r"|\b(?:i'm|we're|i am|we are) in (?:a |an |the |my |our )?(?:[\w-]+ ){0,2}?(?:flat"
            r"|apartment|house|studio|condo)\b"
        ),
    ),
    (
        "home",
        STARTS,
        _en(
            r"\b(?:mov(?:ed|ing|es)|relocat(?:ed|ing))\s+(?:(?:back|over|away|house"
            r"|in)\s+)?(?:to|into|in with)\b"
            r"|\b(?:got|bought|found|rented|signed for|closed on|moved into) (?:my |our |his "
            r"|her |a |an |the )?(?:own |new |first )?"
            r"(?:place|flat|apartment|house|home|studio|condo|room)\b|\bsigned (?:a|the) lease\b"
            r"|\bthe move\b|\bmoving day\b|\bkeys to (?:the|my|our)\b"
            r"|\bmy own place\b|\bfirst night in (?:my|our|the) \w+"
        ),
    ),
    (
        "home",
        IS,
        _en(
            r"\b(?:my|our|his|her) (?:flat|apartment|house|studio|condo|landlord|flatmates?"
            r"|roommates?|neighbou?rhood|mortgage|lease)\b"
        ),
    ),
    ("home", ENDS, _en(r"\b(?:moved out|evicted)\b")),
    # -- a partner
    ("partner", NONE, _en(r"\b(?:single|not seeing anyone|not dating(?: anyone)?)\b")),
    (
        "partner",
        IS,
        _en(
            r"\b(?:married|engaged|dating|in a relationship|together (?:for )?(?:\w+ )?(?:years?"
            r"|months?))\b"
            r"|\b(?:my|his|her) (?:boyfriend|girlfriend|partner|husband|wife|fianc[eé]e?)\b"
            r"|\b(?:have|got) (?:a |an )?(?:boyfriend|girlfriend|partner|husband|wife)\b"
        ),
    ),
    (
        "partner",
        STARTS,
        _en(
            r"\b(?:met someone|started (?:dating|seeing)|got (?:engaged|married|hitched)"
            r"|proposed|(?:she|he) said yes"
            r"|it's official|moved in together|tied the knot|seeing each other|getting married)\b"
        ),
    ),
    (
        "partner",
        ENDS,
        _en(
            r"\b(?:broke up|break ?ups?|breaking up with|split up|splitting up|divorced?"
            r"|divorcing|separated"
            r"|dumped (?:me|him|her)|called it off|ended things|we split)\b"
        ),
    ),
    # -- pets (several at once)
    (
        "pet",
        NONE,
        _en(
            r"\b"
            + _NO
            + r" (?:have |own |got )?(?:a |an |any )?(?:"
            + _PET
            + r")\b|\bno (?:"
            + _PET
            + r")\b"
        ),
    ),
    (
        "pet",
        IS,
        _en(
            r"\b(?:have|has|got|own|owns)\s+(?:a|an|two|three|four|\d+)\s+(?:[\w-]+\s+)?(?:"
            + _PET
            + r")\b"
            r"|\b(?:my|our|his|her|their) (?:[\w-]+\s+)?(?:" + _PET + r")\b"
        ),
    ),
    (
        "pet",
        STARTS,
        _en(
            r"\b(?:adopted|adopting|rescued|brought home|welcomed) (?:a|an|our|my|two|the)\b"
            r"|\bgot (?:a|an|our|my) (?:new )?(?:[\w-]+\s+)?(?:" + _PET + r")\b"
        ),
    ),
    (
        "pet",
        ENDS,
        _en(
            r"\b(?:put (?:\w+ )?(?:down|to sleep)|passed away|died|rehomed|re-homed"
            r"|gave (?:\w+ ){1,3}away"
            r"|lost (?:our|my|his|her) (?:"
            + _PET
            + r")|had to say goodbye|buried|ran away|went missing"
            r"|gave (?:my |our |the )?[\w-]+ to)\b"
        ),
    ),
    # -- vehicles (several at once) and devices (one of each)
    (
        "vehicle",
        NONE,
        _en(
            r"\b"
            + _NO
            + r" (?:own|have|drive)(?: a)? (?:car|bike|vehicle)\b|\bno car\b|\bcan't drive\b"
        ),
    ),
    (
        "vehicle",
        IS,
        _en(
            r"\b(?:drive|drives|driving|ride|rides) (?:a|an|my|our)\b|\bmy (?:" + _VEHICLE + r")\b"
        ),
    ),
    (
        "vehicle",
        STARTS,
        _en(
            r"\b(?:bought|got|picked up|leased|buying) (?:a|an|my|our) (?:[\w-]+\s+){0,3}?(?:"
            + _VEHICLE
            + r")\b"
            r"|\bfirst car\b|\bnew car\b"
        ),
    ),
    (
        "vehicle",
        ENDS,
        _en(r"\b(?:sold|totaled|totalled|scrapped|wrecked|crashed|gave away) (?:the|my|our)\b"),
    ),
    (
        "device:phone",
        IS,
        _en(r"\b(?:iphones?|android|pixel|galaxy|my phone|apple person|android person)\b"),
    ),
    (
        "device:phone",
        STARTS,
        _en(
            r"\b(?:got|bought|picked up|switched to|swapped (?:me )?(?:on)?to"
            r"|moved (?:me )?(?:on)?to) (?:a |an |the |my )?(?:new )?(?:" + _DEVICE_PHONE + r")\b"
        ),
    ),
    ("device:laptop", IS, _en(r"\b(?:laptop|macbook|thinkpad|chromebook|my computer)\b")),
    (
        "device:laptop",
        STARTS,
        _en(
            r"\b(?:got|bought|picked up|switched to|swapped (?:me )?(?:on)?to"
            r"|moved (?:me )?(?:on)?to) (?:a |an |the |my )?(?:new )?(?:" + _DEVICE_LAPTOP + r")\b"
        ),
    ),
    ("number", IS, _en(r"\b(?:phone|mobile|cell) number\b|\bmy number\b")),
    ("number", MOVES, _en(r"\bnew (?:phone |mobile )?number\b|\bchanged (?:my|his|her) number\b")),
    ("favourite", IS, _en(r"\bfavou?rite\b|\bnumber one\b")),
    (
        "preference",
        IS,
        _en(
            r"\b(?:prefers?|preferred|likes|loves|hates|always (?:books|orders|gets|takes|uses"
            r"|picks)"
            r"|wants (?:answers|replies|responses|it|them)|can't stand)\b"
        ),
    ),
    (
        "preference",
        MOVES,
        _en(
            r"\b(?:switched to|come around on|came around on|changed (?:my|his|her|their) mind"
            r"|(?:now|these days) (?:prefers?|likes|wants))\b"
        ),
    ),
    # -- school
    (
        "school",
        IS,
        _en(
            r"\b(?:study|studies|studying|majoring in|major is|student (?:at|in|of))\b"
            r"|\b(?:first|second|third|fourth|final)[- ]year\b|\bgo(?:es)? to [\w' ]{0,30}?(?:"
            + _SCHOOL_NOUN
            + r")\b"
            r"|\b(?:student|pupil|undergrad|grad student|phd student|major)\b|\bin (?:year"
            r"|grade) \d+\b|\b(?:freshman|sophomore|junior|senior) at\b"
            r"|\bat [\w' ]{0,20}?(?:uni|university|college|school)\b|\b(?:doing|taking) (?:a "
            r"|an |my )?(?:[\w-]+ )?(?:mba|degree|phd|masters?|course)\b"
        ),
    ),
    (
        "school",
        IS,
        _en(
            r"\b(?:my|his|her) (?:school|uni|university|college|degree|major|course|classes"
            r"|teacher|tutor|thesis|dissertation)\b"
        ),
    ),
    (
        "school",
        STARTS,
        _en(
            r"\b(?:enrolled|transferred|changed (?:my|his|her|their) major|switched (?:my|his"
            r"|her) major"
            r"|started (?:at|uni|university|college|school|a degree|a master'?s|a phd|year)"
            r"|accepted (?:to|into)"
            r"|got into (?:[\w' ]{0,20}?)(?:school|college|uni|university|program|programme"
            r"|course))\b"
        ),
    ),
    (
        "school",
        ENDS,
        _en(
            r"\b(?:graduated|graduating|dropped out|finished (?:my|his|her) (?:degree|studies"
            r"|phd|master'?s)"
            r"|dropped (?:the |my )?(?:mba|degree|course|phd|class))\b"
        ),
    ),
    # -- habits and diets, each of its own kind
    (
        "habit:coffee",
        IS,
        _en(r"\b(?:coffees?|espressos?|lattes?|caffeine|americanos?|flat whites?)\b"),
    ),
    ("habit:smoking", IS, _en(r"\b(?:smoke|smokes|smoking|smoker|cigarettes?|vap(?:e|ing))\b")),
    (
        "habit:alcohol",
        IS,
        _en(r"\b(?:drinking|drinker|wine|beers?|alcohol|booze|sober|sobriety|teetotal)\b"),
    ),
    (
        "habit:exercise",
        IS,
        _en(
            r"\b(?:gym|work ?out|workouts?|run|runs|running|jog|jogs|jogging|swim|swims|swimming"
            r"|yoga|pilates"
            r"|cycling|lifting|lifts|exercis(?:e|es|ing))\b"
        ),
    ),
    (
        "habit:sleep",
        IS,
        _en(
            r"\b(?:go(?:es)? to bed|bedtime|asleep by|lights out|in bed by|wakes? up at"
            r"|gets? up at)\b"
        ),
    ),
    (
        "diet",
        IS,
        _en(
            r"\b(?:vegan|vegetarian|veggie|pescatarian|keto|plant-based|gluten-free"
            r"|the plant thing)\b"
        ),
    ),
    ("medication", IS, _en(r"\b(?:meds|medication|pills|insulin|inhaler|antidepressants)\b")),
    # -- health status
    ("hospital", IS, _en(r"\bin (?:the )?hospital\b|\badmitted\b|\bin (?:the )?icu\b")),
    (
        "hospital",
        ENDS,
        _en(r"\b(?:discharged|home again|home from (?:the )?hospital|out of (?:the )?hospital)\b"),
    ),
    (
        "licence",
        NONE,
        _en(r"\b(?:can't|cannot|don't|do not) drive\b|\bno (?:driving )?licen[cs]e\b"),
    ),
    (
        "licence",
        STARTS,
        _en(
            r"\bpassed (?:my|his|her) (?:driving )?test\b|\bgot (?:my|his"
            r"|her) (?:driving )?licen[cs]e\b"
        ),
    ),
    # -- a role held in a club, team or project
    ("role", IS, _en(r"\b(?:" + _ROLE + r") (?:of|for)\b")),
    (
        "role",
        STARTS,
        _en(
            r"\b(?:elected|appointed|named|voted in as|made|promoted to|stepped up as"
            r"|took over as|taking over as)"
            r" (?:as )?(?:the |our |a |an )?(?:new )?(?:"
            + _ROLE
            + r")\b|\btook over (?:\w+ ){0,4}?from\b"
            r"|\bhanded (?:it |\w+ )?(?:over )?to\b"
        ),
    ),
    ("role", ENDS, _en(r"\bstepped down\b")),
    # -- a plan or a date: a trip, an appointment, a deadline
    (
        "plan",
        IS,
        _en(
            r"\b(?:flying|going|heading|travel(?:l)?ing|driving) to\b|\bplan(?:s|ning)? to\b"
            r"|\btrip\b|\bflight to\b"
            r"|\b(?:booked|scheduled|set|planned) for\b|\b(?:" + _DAY + r")\b"
            r"|\b(?:"
            + _EVENT_NOUN
            + r")s?\b(?:[\w' -]{0,30}?)\b(?:is |are |on |at |due |for )?(?:on |at |by )?"
            r"(?:\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
        ),
    ),
    (
        "plan",
        MOVES,
        _en(
            r"\b(?:rescheduled|rebooked|postponed|delayed|slipped|brought forward)\b"
            r"|\b(?:moved|pushed|bumped|shifted|changed) (?:\w+ ){0,3}?(?:to|until|till|onto"
            r"|back to) (?:the )?(?:next |following |end of )?"
            r"(?:"
            + _DAY
            + r"|\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|week|month|year|spring"
            r"|summer|autumn|fall|winter|later)"
            r"|\bpushed (?:\w+ ){0,3}?back\b"
        ),
    ),
    (
        "plan",
        ENDS,
        _en(
            r"\b(?:cancel(?:l)?ed|called off|(?:is|are|'s) (?:off|dead|cancelled|scrapped)"
            r"|scrapped|fell through"
            r"|not going|killed|not happening|got (?:the|a) refund)\b"
        ),
    ),
    # -- a price or an amount
    (
        "price",
        IS,
        _en(
            r"[$€£¥]\s?\d|\b\d+(?:\.\d+)?\s?(?:dollars|euros?|pounds|usd|eur|gbp)\b|\b(?:"
            + _PRICE_WORD
            + r")\b"
        ),
    ),
    (
        "price",
        MOVES,
        _en(
            r"\b(?:"
            + _PRICE_MOVE
            + r")\b[^.!?。]{0,40}?(?:[$€£¥]\s?\d|\b\d[\d,.]*\s?(?:dollars|euros?|pounds|k"
            r"|%)?(?!\w)|\b(?:" + _PRICE_WORD + r")\b)"
            r"|\b(?:" + _PRICE_WORD + r")\b[^.!?。]{0,40}?\b(?:" + _PRICE_MOVE + r")\b"
        ),
    ),
    # -- the tools a project is built with
    (
        "stack",
        IS,
        _en(
            r"\b(?:built (?:with|in|on)|written in|runs? on|running on|hosted on|deployed (?:on"
            r"|to)|track(?:ed|s)? (?:\w+ )?in"
            r"|(?:we|they|i) use|using)\b"
        ),
    ),
    (
        "stack",
        MOVES,
        _en(
            r"\b(?:rewrote|rewritten|rewriting|migrated|migrating|ported|porting"
            r"|switched (?:over )?to"
            r"|moved (?:over )?to|replaced)\b"
        ),
    ),
    (
        "stack",
        ENDS,
        _cased(
            r"\b[A-Z][\w.+-]*(?:'s| is| are) (?:gone|dead|out)\b"
            r"|\b(?i:ditched|dropped|retired|killed|sunset|deprecated|uninstalled) (?:the )?[A-Z]"
        ),
    ),
)

_C = _en  # Chinese patterns alike: their Latin words in lower case
_CJK_PET = "猫|狗|宠物|兔子|仓鼠|鹦鹉|乌龟|金鱼"
_CJK_DAY = (
    r"周[一二三四五六日末]|星期[一二三四五六日天]|礼拜[一二三四五六日天]|下周"
    r"|(?<![一二三四五六七八九十\d])[一二三四五六七八九十\d]+[月号日]"
)
CJK_STATES: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    (
        "job",
        IS,
        _C(
            r"在[^，。,；]{1,14}?(?:上班|工作|做|当|任职|实习|打工)|(?:做|当)[^，。,；]{0,8}?(?:工程师|开发|经理|设计|律师|老师|医生"
            r"|护士|会计|运营|产品|测试|销售|编辑|记者|顾问)"
            r"|是[^，。,；]{0,10}?(?:工程师|经理|律师|老师|医生|护士|会计|设计师|分析师|实习生|主管|总监)|自由职业|接[^，。]{0,4}?活|创业"
        ),
    ),
    ("job", NONE, _C(r"失业|待业|没工作|找工作")),
    (
        "job",
        STARTS,
        _C(
            r"入职|报到|去[^，。,；]{1,10}?(?:上班|工作)|跳槽|升职|提成|提拔|晋升|转正|转成正式|录用|拿到offer|新工作|找到工作"
        ),
    ),
    ("job", ENDS, _C(r"离职|辞职|被裁|裁员|退休|丢了工作|辞了")),
    ("workplace", IS, _C(r"坐班|远程|在家办公|去公司上班")),
    ("shift", IS, _C(r"夜班|白班|倒班")),
    ("shift", MOVES, _C(r"(?:倒回|换到|转到?|改上|调到|回到)(?:白班|夜班)|不用(?:再)?上夜班")),
    (
        "home",
        IS,
        _C(
            r"住在|住的是|家在|定居在|在[^，。,；]{1,6}定居|生活在|住[^，。,；]{0,4}?(?:楼|区|小区|公寓)|[跟和][^，。]{1,4}住|一个人住"
            r"|在[^，。]{1,6}?打拼|房子是租的"
        ),
    ),
    (
        "home",
        STARTS,
        _C(
            r"搬到|搬去|搬进|搬家|搬出来|搬出去|入住|租房合同|新房|定居了|买了(?:套|一套)?[^，。,；]{0,6}?房|首付|自己的(?:窝|房子|家)"
            r"|接到[^，。]{1,6}?住|回(?!家|来|去)[\u4e00-\u9fff]{2,3}(?:了|定居|发展)"
        ),
    ),
    ("partner", NONE, _C(r"单身|单着|没对象|还没结婚")),
    ("partner", IS, _C(r"男朋友|女朋友|老公|老婆|对象|结婚了|在一起|恋爱")),
    (
        "partner",
        STARTS,
        _C(r"求婚|领证|脱单|订婚|在一起了|结婚了|再婚|介绍一下[^，。]{0,6}?(?:女朋友|男朋友)"),
    ),
    ("partner", ENDS, _C(r"分手|分了|离婚|离了|婚不结了|退婚")),
    ("pet", NONE, _C(r"没养(?:" + _CJK_PET + r")|不让养|没有(?:" + _CJK_PET + r")")),
    (
        "pet",
        IS,
        _C(
            r"养了|养着|我家(?:" + _CJK_PET + r")|的(?:" + _CJK_PET + r")叫|(?:" + _CJK_PET + r")叫"
        ),
    ),
    ("pet", STARTS, _C(r"领养|领回|收养|抱回|带回家")),
    ("pet", ENDS, _C(r"送给|送人|去世|走了|安乐死|没了|跑丢|走丢|找不回来")),
    ("vehicle", NONE, _C(r"没有车|没车|还没有车")),
    ("vehicle", IS, _C(r"开的是|我的车|那辆车|有辆|有一辆")),
    ("vehicle", STARTS, _C(r"提了一?辆|买了一?辆|新车|提车")),
    ("vehicle", ENDS, _C(r"卖了|卖掉")),
    ("device:phone", IS, _C(r"手机(?!号)|果粉|苹果|华为|小米|安卓|iphone")),
    ("device:phone", STARTS, _C(r"换[^，。]{0,3}?(?:华为|苹果|小米|安卓|三星|iphone|手机)")),
    ("number", IS, _C(r"手机号|电话号|号码")),
    ("number", MOVES, _C(r"换号|换了号|新号")),
    ("favourite", IS, _C(r"最喜欢|最爱")),
    ("preference", IS, _C(r"喜欢|偏好|习惯用|只用|只喝|只吃|讨厌|受不了")),
    ("preference", MOVES, _C(r"改用|改喝|改吃|换成|爱上|迷上")),
    ("device:laptop", IS, _C(r"笔记本|电脑|联想|macbook|thinkpad")),
    ("device:laptop", STARTS, _C(r"(?:配|换|买)了台|新(?:笔记本|电脑)")),
    (
        "school",
        IS,
        _C(
            r"读[^，。,；]{0,8}?(?:专业|大学|研|博|书|高中|初中|小学|幼儿园)|专业|在读|研[一二三]|大[一二三四]|上(?:小学|初中|高中|大学|幼儿园)"
            r"|[一二三四五六]年级|幼儿园|考研"
        ),
    ),
    (
        "school",
        STARTS,
        _C(
            r"转专业|转学|转到|考上|录取|开始读|上[一二三四五六]年级了|上(?:小学|初中|高中|大学)了|升[初高]中"
        ),
    ),
    ("school", ENDS, _C(r"毕业|答辩过了|退学|休学")),
    ("habit:coffee", IS, _C(r"咖啡|美式|拿铁|奶茶")),
    ("habit:smoking", IS, _C(r"抽烟|吸烟|一包烟|烟瘾|戒烟")),
    ("habit:alcohol", IS, _C(r"喝酒|戒酒|啤酒|红酒|白酒")),
    ("habit:exercise", IS, _C(r"健身|跑步|游泳|锻炼|瑜伽|健身房|撸铁")),
    ("habit:sleep", IS, _C(r"睡觉|熬夜|早睡|晚睡")),
    ("diet", IS, _C(r"吃素|素食|开荤|生酮")),
    ("medication", IS, _C(r"吃药|降压药|药可以停|停药")),
    ("hospital", IS, _C(r"住院")),
    ("hospital", ENDS, _C(r"出院")),
    ("licence", NONE, _C(r"不会开车|没驾照|没有驾照")),
    ("licence", STARTS, _C(r"驾照[^，。]{0,4}?(?:到手|拿到|下来)|拿到驾照|科目四[^，。]{0,4}?过")),
    ("role", IS, _C(r"负责人|负责|归[^，。]{1,4}?管|组长|队长|主席|会长|群主|管理员")),
    ("role", STARTS, _C(r"接手|接任|归我管|由我|当选|被选为|转给|交给")),
    (
        "plan",
        IS,
        _C(
            r"打算|准备|计划|要去|行程|旅行|旅游|机票|上线|交付|截止|deadline|预约|约了|约的是|定在|飞(?:往|去)?[\u4e00-\u9fff]{2}|"
            + _CJK_DAY
        ),
    ),
    (
        "plan",
        MOVES,
        _C(r"推迟|延期|提前到|改到|改成|改为|往后拖|拖到|推到|挪到|调到|延到|改地方|换地方"),
    ),
    ("plan", ENDS, _C(r"取消|不去了|泡汤|黄了|不考了|退了")),
    (
        "price",
        IS,
        _C(
            r"(?<![\d.])\d+(?:\.\d+)?\s*(?:元|块|万|美元|千)|价格|价钱|月费|年费|预算|房租|工资|会员费|(?:一年|每年|一个月"
            r"|每月)\s*\d+"
        ),
    ),
    ("price", MOVES, _C(r"涨到|降到|下调|上调|调到|涨了|降了|降价|涨价|追加|一共|砍到|压到|削减")),
    ("stack", IS, _C(r"跑的是|用的是|基于|部署在|放在|跑在|用[A-Za-z]")),
    ("stack", MOVES, _C(r"迁到|迁移到|改用|重写|升到|升级到|切到|换成[A-Za-z]")),
)


# The phrase lexicon (``state_lexicon.json``, made by ``bench/make_state_lexicon.py``:
# written blind from general knowledge, each phrase naming one kind), looked up by words,
# not searched as patterns: two thousand phrases a language in an alternation would cost
# a fact a millisecond. English phrases by their words; Chinese ones by their first two
# characters.
EN_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
Found = tuple[str, str]  # kind, event
PHRASES_EN: dict[tuple[str, ...], list[Found]] = {}
PHRASES_ZH: dict[str, list[tuple[str, str, str]]] = {}  # first two characters: phrases
_table = json.loads(Path(__file__).with_name("state_lexicon.json").read_text(encoding="utf-8"))
for _kind, _events in sorted(_table["en"].items()):
    for _event, _phrases in sorted(_events.items()):
        for _phrase in _phrases:
            _key = tuple(EN_WORD.findall(_phrase.replace("’", "'")))
            PHRASES_EN.setdefault(_key, []).append((_kind, _event))
for _kind, _events in sorted(_table["zh"].items()):
    for _event, _phrases in sorted(_events.items()):
        for _phrase in _phrases:
            PHRASES_ZH.setdefault(_phrase[:2], []).append((_phrase, _kind, _event))
# Every start of an English phrase ("got", "got the", "got the keys"): a lookup reads on
# while the words so far start one.
PHRASE_PREFIXES = frozenset(words[:n] for words in PHRASES_EN for n in range(1, len(words) + 1))
# Each English phrase's longest word, as ``Line`` reads a line's words (its first run of
# letters): a line holding none of them holds no phrase.
PHRASE_WORDS = frozenset(
    max((part for word in words for part in re.split(r"'", word)), key=len) for words in PHRASES_EN
)

# The end of a habit or a diet: "quit", "cut out", "sober", "戒", "不喝了", "开荤"; its
# start: "took up"; its move to another: "改喝".
HABIT_ENDS = re.compile(
    r"\b(?:quit|quitting|gave up|give up|giving up|stopped|cut out|cut (?:\w+ )?out|kicked"
    r"|off the|no more"
    r"|sober|clean for|teetotal now|down to zero|zero caffeine|caffeine-free|done with|(?:is"
    r"|'s) over"
    r"|off (?:coffee|caffeine|booze|alcohol|cigarettes|meds|medication))\b"
    r"|戒|不(?:喝|抽|吃|去)[^，。]{0,4}?了|没续|没怎么(?:动|练)|反胃|开荤|停了|可以停",
    re.I,
)
HABIT_STARTS = re.compile(
    r"\b(?:took up|taken up|started (?:running|smoking|drinking|swimming|going)"
    r"|picked up (?:running|smoking)"
    r"|back on|fell off the wagon)\b|爱上|迷上|开始(?:跑|练|健身|游)|改(?:喝|吃|抽|用)",
    re.I,
)

# What makes a clause not state a change now: a question, a wish or a guess, a time that
# is past or passing, an event nearly happened, a "when" or "if" clause.
QUESTION = re.compile(
    r"[?？]|^\s*(?:should|would|could|do|does|is|are|can)\s+(?:we|i|you)\b|吗\s*$|要不要|会不会|你觉得",
    re.I,
)
UNSURE = re.compile(
    r"\b(?:if|would|wonder(?:ing)?|should|might|maybe|perhaps|thinking (?:about|of)|considering"
    r"|hope|hoping"
    r"|wish|want to|wanna|dream(?:ing)? (?:of|about)|tempted|almost|nearly|could|probably|likely"
    r"|possibly|supposedly|apparently|rumou?r|toying with|on the fence|debating|mulling"
    r"|leaning toward"
    r"|potentially|hypothetically|someday|one day|eventually|at some point|down the road"
    r"|looking into|evaluating|trialling|trialing|trying out|piloting"
    r"|contemplating|pondering|about to|was going to|was gonna|intended to|meant to|tried to"
    r"|didn't end up|ended up not|backed out|cold feet|didn't go through|didn't happen"
    r"|didn't work out"
    r"|got rejected|turned (?:it |me |us )?down|talked (?:me |him |her )?out of|changed (?:my"
    r"|his|her) mind"
    r"|second thoughts|waitlisted|shortlisted|came close to|on the verge of)\b"
    r"|如果|要是|可能|也许|想|差点|万一|说不定|考虑|纠结|犹豫|假如|或许|琢磨|盘算|有朝一日|梦想|希望|但愿|看情况"
    r"|再看看|观望|不一定|未必|说不准|心动|种草|动了念头|萌生|本来要|本来想|原本打算|本打算|快要|最后没|没去成"
    r"|没买成|没辞成|没分成|没谈成|被拒|落选|算了|打消|改主意|反悔|被劝住|险些|几乎",
    re.I,
)
INTENT = re.compile(r"\b(?:plan(?:ning)? to|going to|gonna|will|about to)\b|打算|准备|计划", re.I)
PAST = re.compile(
    r"\b(?:back in|once before|years ago|when i was|in college|as a kid|growing up|for a year"
    r"|at one point"
    r"|in (?:19|20)\d\d|previously|used to|back then|as a teenager|in high school"
    r"|in my (?:twenties|20s|youth)"
    r"|once upon a time|way back|went through a phase|at my old job|in my last job|before covid"
    r"|pre-pandemic|during covid|i remember when)\b"
    r"|从前|早年|早些年|前几年|几年前|上学时|读书的时候|高中时|年轻时|年轻的时候|上一份工作|上家公司|老东家|前公司"
    r"|前东家|那会儿|那阵子|当初|想当年|疫情前|疫情期间|本科|跨考"
    r"|那年|那时|当年|大学时|小时候|以前|曾经|(?:实习|谈|去|住|做|当|养|用|学|来|待|干|工作|读|开)过(?![了去来])",
    re.I,
)
PASSING = re.compile(
    r"\b(?:just for|for (?:today|tonight|the holidays|the weekend|the week|a few days"
    r"|a couple of days|now"
    r"|the time being|the summer|a month)|this week only|temporarily|staying (?:at|with)|today only"
    r"|skip(?:ped|ping)? (?:it )?(?:once|this week)|short-term|over the holidays|on (?:vacation"
    r"|holiday)"
    r"|on a business trip|work trip|(?:house|pet|dog)-sitting|covering for|filling in|interim"
    r"|on loan"
    r"|loaner|rental|rented a car|free trial|one-off|just this once|off sick|on (?:sick "
    r"|maternity |paternity )?leave"
    r"|cheat day|day off|tonight only|just visiting)\b"
    r"|临时|暂时|这周在|这几天|出差|跳过一次|照常|今天先|暂且|先这样|短期|度假|休假|请假|病假|产假|年假|探亲|借住"
    r"|借用|代班|替班|顶班|暂代|试用|一次性|就这一次|破例|放纵一天|欺骗餐|出门在外|在外地|回家几天|过年|停一次"
    r"|租了[一辆]*车|租车|半个月",
    re.I,
)
GOES_ON = re.compile(
    r"\b(?:still|always|as usual|as always|same as (?:always|before)|like always|unchanged"
    r"|hasn't changed"
    r"|nothing(?: has)? changed|stuck with|sticking with|to this day|going strong|still going"
    r"|stay(?:ing)? put)\b"
    r"|还是|照常|依然|仍然|一直|依旧|照旧|如常|一如既往|老样子|跟以前一样|和以前一样|照样|至今|没变|没换|没搬|续签|续约"
    r"|续租|雷打不动",
    re.I,
)
ALSO = re.compile(
    r"\b(?:also|too(?!\s+[a-z])|as well|another|on the side|in addition|additionally|second"
    r"|little sister|little brother"
    r"|side (?:hustle|gig|job|project)|moonlighting|as a hobby|as well as|alongside)\b"
    r"|也|兼职|另外|此外|副业|斜杠|兼任|身兼|外快|接私活|另一只|又养了|多养|同时在|两份工作",
    re.I,
)
SUBORDINATE = re.compile(
    r"^\s*(?:when|since|after|before|once|while|until|whenever|if|unless)\b", re.I
)
# A change cue said with an IS state makes it a change: "I live in Brooklyn now".
NOW = re.compile(
    r"\b(?:now|these days|nowadays|from now on|as of|starting|effective|from (?:next"
    r"|this) (?:week|month|year|monday)"
    r"|finally|officially|anymore|any more|no longer|no more)\b"
    r"|现在|目前|从现在|以后|从这周|从下周|从下个月|下周一生效|生效",
    re.I,
)
NEGATED_CUE = re.compile(
    r"(?:\b(?:no|not|never|didn't|don't|won't|isn't|wasn't|hasn't|haven't)\s+(?:\w+\s+)?$|[不没别]$)",
    re.I,
)

# Clause breaks: punctuation, dashes, and the words that open another clause (kept with it).
SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？；;])\s*|\n+")
THIRD_PERSON = frozenset(
    "he she they he's she's they're his her their him them 他 她 他们 她们".split()
)
CLAUSE = re.compile(
    r"\s*(?:[;!?()\"“”—–]|[,:](?=\s|$)|\s-\s|(?<!\b[A-Z])\.(?=\s|$))\s*|\s+(?=(?:but|because"
    r"|when|since|after|while|although|though|whereas)\s)"
    r"|[，。；：！？、]",
    re.I,
)
KIN = re.compile(
    r"^(?:我的?|我们的?)?(?P<kin>爸妈|父母|爸爸|妈妈|爸|妈|老公|老婆|哥哥|姐姐|弟弟|妹妹|哥|姐|弟|妹|儿子|女儿|表妹|表哥|表姐|表弟"
    r"|男朋友|女朋友|爷爷|奶奶|外婆|外公|孩子|闺女)"
)
CJK_OWNER = re.compile(r"^(?:我们?家?|咱们?|本人)")
# A Chinese name opening a clause: two or three characters before a verb or time word.
CJK_NAME = re.compile(
    r"^(?P<name>[小老阿][\u4e00-\u9fff]|[\u4e00-\u9fff]{2,3}?)(?=在|是|的|被|去|刚|已|上个?|下个?|这|今|昨|明|最近"
    r"|现在|目前"
    r"|还|也|都|和|跟|把|从|要|会|终于|搬|住|买|分|离|结|辞|入|考|转|换|开|求|决定|执|调|一直|目前|当|做)"
)
CURRENCY = re.compile(r"[$€£¥]")
HAS_CJK = re.compile(r"[\u4e00-\u9fff]")
FIRST_PERSON_OBJECT = re.compile(r"\b(?:me|my|us|our)\b", re.I)
CJK_LEAD = re.compile(
    r"^(?:下周[一二三四五六日]?|上周[一二三四五六日]?|这周[一二三四五六日]?|[今昨明]天|昨晚|今晚|[今去明]年|最近|刚刚|刚|现在|目前"
    r"|已经|终于|彻底|也|还|一直|[上下这]个?月|周末|[上下这]学期|听了[^，。]{0,8}?|从这周开始|从下周开始)+"
)
# Not a name: a numeral in it ("科目四"), or a first character no name opens with.
CJK_NUMERAL = re.compile(
    r"[一二三四五六七八九十两几\d]|^[最很太更都这那每各有没不是给让把被从在对就才又]"
)
KIN_AFTER_NAME = re.compile(
    r"的(?P<kin>老婆|老公|妻子|丈夫|女朋友|男朋友|儿子|女儿|妈妈|爸爸|孩子|哥哥|姐姐|弟弟|妹妹)"
)
KIN_WORDS = frozenset(
    "mum mom mother dad father sister brother wife husband partner son daughter grandma grandpa "
    "grandmother grandfather aunt uncle cousin niece nephew boyfriend girlfriend fiance fiancee "
    "parents kids kid child children baby friend boss flatmate roommate".split()
)
# What ends a text's first clause (a cheap ``CLAUSE``: only the opening is read for a
# subject).
CLAUSE_BREAK = re.compile(r"[,;:!?.()\"“”—–，。；：！？、\n]")
# The one a line is said to: a name after a greeting, or set off by a comma ("Thanks,
# Maria!", "It isn't, Maria.").
ADDRESSED = re.compile(
    r"^(?i:hi|hey|hello|thanks|thank you|yeah|yes|yep|oh|wow|congrats|congratulations|sure|ok"
    r"|okay|omg|aw+|good (?:morning|evening|night))[,!]?\s+(?P<greeted>[A-Z][a-z]+)\b"
    r"|,\s*(?P<named>[A-Z][a-z]+)\s*[!.?,]"
)
# An assistant's notes name the vault's owner so: "User prefers tea", "the user moved".
OWNER_WORDS = frozenset("user owner 用户 主人".split())
# A sentence opening with these is about a thing ("The launch is moving to March").
THING_OPENERS = frozenset("the this that these those a an its".split())
# Words after "X's" that make it "X is" ("Keto's over"), not "X's thing" ("Kate's divorce").
AFTER_IS = frozenset(
    "over gone done off dead back been going finally now not a an the still just in on at out home "
    "got here there up down all so very really".split()
)
# What follows a person's name that opens a sentence: a verb or "and Name".
AFTER_NAME = re.compile(
    r"(?:'s|is|was|has|had|got|gets|just|moved|moves|lives|lived|goes|went|started|starts|took"
    r"|takes"
    r"|works|worked|quit|left|joined|finally|now|still|recently|passed|became|will"
    r"|and [a-z]+ (?:are|were|got|have))\b"
)
# A thing's name: a capitalised word owning it ("Lucy's dinner") or before a noun naming
# such a thing ("the Atlas launch", "the Pro plan"), or in quotes ("「青柠」").
THING_NAME = re.compile(
    # Each name is tried where its run of word characters and hyphens starts, not at each
    # word start in it: "A-A-A-..." was read to its end from each "A".
    r"(?<![\w-])(?P<owner>[A-Z][\w-]*)'s\b"
    r"|(?<![\w-])(?P<before>[A-Z][\w-]*)\s+(?=(?:plan|launch|project|redesign|release|trip"
    r"|team|app|service|dinner|party|meeting|sync|deadline|account|subscription|tier"
    r"|budget)\b)"
    r"|[「《“\"](?P<quoted>[^」》”\"]{1,20})[」》”\"]"
    r"|(?<![\w-])(?P<cjk>[A-Za-z][\w-]*)(?=项目|团队|小组|系统|产品)"
)
QUOTE = re.compile(r"[「《“\"]")
# Words any two plans, prices or tools may share without being about one thing.
GENERIC_WORDS = frozenset(
    """plan plans trip trips deadline meeting sync call appointment date time day days week
    weeks month months year years today tomorrow morning evening night weekend team project
    projects price cost costs month per new old now back next last first every weekly
    monday tuesday wednesday thursday friday saturday sunday january february march april
    may june july august september october november december jan feb mar apr jun jul aug
    sep oct nov dec am pm us we our whole everything everyone use using used""".split()
) | frozenset(str(n) for n in range(100))
GENERIC_CHARS = frozenset(
    "我们你他她它这那个一二三四五六七八九十两有在上下去来到要会能就也把被给和与时间月号日天周年元万块前后多少了的是项目"
)


# -- gates: which patterns a line may match, from the words in it -----------------------
# A full run reads every fact of a vault, and most say no state: a pattern is searched
# only in a line holding one of its words. Its words are read from its source: each
# literal run of three or more letters (an optional letter ends a run, "coffees?" ->
# "coffee"), which a word of any match starts with; CJK patterns by their characters.
_CLASS = re.compile(r"\[(?:\\.|[^\]])*\]")
_NOT_LITERAL = re.compile(r"\\[a-zA-Z]|\(\?[:!=<]*|\w[?*]|\{[\d,]*\}")
_RUN = re.compile(r"[a-z]{3,}")


def pieces(source: str) -> dict[str, bool]:
    """The literal runs of a pattern's source that start words of its matches, each
    with whether it is a stem (a word of a match may go on: "work(?:s|ing)?", "coffees?")
    or a whole word ("car" is not "career")."""
    source = source.lower()
    text = _NOT_LITERAL.sub(" ", _CLASS.sub(" ", source))
    return {
        run: re.search(re.escape(run) + r"(?=\(|\[|\\|\w[?*]|\w?\{)", source) is not None
        for run in set(_RUN.findall(text)) - _COMMON_PIECES
    }


# Runs every pattern holding them holds another with: too common a word to gate by.
_COMMON_PIECES = frozenset(
    "the and for are was has had have his her our their they you not but with from that this "
    "ing now don doesn didn does never longer".split()
)


def cjk_characters(source: str) -> frozenset[str]:
    """The CJK characters a pattern's source names (one of them is in any match)."""
    return frozenset(HAS_CJK.findall(source))
