"""English word forms that no ending can be dropped to reach: irregular verbs and plurals.

A query word is asked as the prefix left after dropping a regular ending (``index/stems.py``:
``meetings`` -> ``meet*``), which cannot join ``win`` and ``won`` or ``child`` and
``children``. People ask in one tense and remember in another ("Did Jolene win the
tournament?" against "I won the regional tournament!"), so a query word listed here is
asked with every form of its group. The list is closed and short on purpose: common verbs
and nouns of everyday life, not forms that mostly mean something else (``saw`` the tool,
``rose`` the flower, ``bit`` as in "a bit"), and not the light verbs a conversation uses in
every other line (go, get, make, take, give, come, say, see, know, think, feel, ...): on
LoCoMo their forms (went, got, made, going) lifted lines that share nothing else with the
question, and lost 20 questions at recall@10 for 9 gained.
"""

from __future__ import annotations

_GROUPS = """
begin began begun beginning
bite bitten biting
bleed bled bleeding
break broke broken breaking
bring brought bringing
build built building
buy bought buying
catch caught catching
choose chose chosen choosing
dig dug digging
draw drew drawn drawing
drink drank drunk drinking
drive drove driven driving
eat ate eaten eating
fall fell fallen falling
feed fed feeding
fight fought fighting
flee fled fleeing
fly flew flown flies flying
forget forgot forgotten forgetting
forgive forgave forgiven forgiving
freeze froze frozen freezing
grow grew grown growing
hang hung hanging
hear heard hearing
hide hid hidden hiding
lead led leading
lend lent lending
lose lost losing
meet met meeting
pay paid paying
ride rode ridden riding
ring rang rung ringing
run ran running
sell sold selling
send sent sending
shake shook shaken shaking
shoot shot shooting
sing sang sung singing
sink sank sunk sinking
sit sat sitting
sleep slept sleeping
speak spoke spoken speaking
spend spent spending
stand stood standing
steal stole stolen stealing
stick stuck sticking
swim swam swum swimming
teach taught teaching
tear tore torn tearing
throw threw thrown throwing
understand understood understanding
wake woke woken waking
wear wore worn wearing
win won winning
write wrote written writing
child children
foot feet
goose geese
half halves
knife knives
leaf leaves
life lives
man men
mouse mice
person people
shelf shelves
tooth teeth
wife wives
wolf wolves
woman women
"""

FORMS: dict[str, tuple[str, ...]] = {
    form: tuple(group) for group in map(str.split, _GROUPS.strip().splitlines()) for form in group
}


def forms_of(word: str) -> tuple[str, ...]:
    """Every form of ``word``'s group (``word`` first), or just ``word``."""
    group = FORMS.get(word)
    return (word,) if group is None else (word, *(f for f in group if f != word))
