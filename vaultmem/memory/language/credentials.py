"""What a credential looks like, as against a word, a setting or a placeholder: the test a
value must pass before ``secrets.py`` masks it (a labelled value, a token whose format
alone is not proof). Long enough, of mixed character classes or random enough (Shannon
entropy), and not a word, a placeholder (``<your-token>``, ``${VAR}``, ``xxx``,
``changeme``), a number of a setting, a version, a path, a URL or an email address.

Also here: what a labelled pass phrase of plain words looks like as against prose
(``pass_phrase_end``, ``PROSE_WORDS``), and the markers a masked secret reads as (``MASK``,
``FIELD_MASK``), which every rule takes for a placeholder."""

from __future__ import annotations

import math
import re
from collections import Counter

# What a masked secret reads as: in text, and in a field or tag, where brackets would end
# the field (``secrets.mask_field``). No rule takes either for a value, so masking twice
# changes nothing.
MASK = "[secret masked]"
FIELD_MASK = "(secret masked)"

_WORDLIKE = re.compile(r"[A-Za-z]+(?:['’_\-][A-Za-z]+)*")
# one piece of a version or a name with a number: "python3", "gpt", "4o", "ed25519", "x86"
_PLAIN_PIECE = re.compile(r"(?:[A-Z]?[a-z]*|[A-Z]*)[0-9]*[A-Za-z]{0,2}")
_ORDINARY = re.compile(
    r"[a-z][a-z0-9+.\-]*://.*"  # a URL (its credentials have their own rule)
    r"|(?:/|~/|\./|\.\./|[A-Za-z]:\\).*"  # a path
    r"|[^@\s]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}"  # an email address
    r"|[0-9]{4}-[0-9]{2}-[0-9]{2}.*|[0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?"  # a date, a time
    r"|[0-9]+(?:\.[0-9]+)?[A-Za-z%]{1,5}"  # an amount: 3600s, 15min, 12px
    r"|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+(?:\(.*\))?"  # os.environ
    r"|[A-Za-z_][A-Za-z0-9_.]*\(.*\)",  # getpass()
    re.I | re.S,
)
_PLACEHOLDER = re.compile(
    r"<[^<>]*>|\{\{.*\}\}|\$\{.*\}|\$\(.*\)|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_]+%"
    r"|%\(?[A-Za-z_]*\)?s|\{[A-Za-z_]+\}|!\w+"
    r"|(?i:your|change[_\-]?me|change[_\-]?it|placeholder|redacted|example|dummy)\w*",
    re.S,
)


def placeholder(value: str) -> bool:
    """A value that stands for a credential without being one: a template, a variable,
    ``xxx``, or a secret masked already (``MASK``, ``FIELD_MASK``)."""
    return (
        "[" in value
        or FIELD_MASK in value
        or "]" in value
        or "..." in value
        or "…" in value
        or len(set(value.lower()) - set("x*•#._-")) == 0
        or len(set(value)) <= 2
        or _PLACEHOLDER.fullmatch(value) is not None
    )


def credential(value: str, password: bool, weak: bool, assigned: bool = False) -> bool:
    """Whether a labelled value looks like a credential rather than a word or a setting.

    A password label accepts more (``hunter22``, a four-digit code) than a token label or a
    label followed by a bare space, which need a random-looking value of eight or more. A
    password assigned in code or config (``passwd=letmein``) is one even when it is a word.
    """
    if password and not weak and value.isdigit() and len(value) >= 4 and len(set(value)) > 1:
        return True  # a lock's, a card's or a phone's code: "门锁密码：4821"
    if len(value) < 6 or placeholder(value) or _ORDINARY.fullmatch(value):
        return False
    core = value.strip("()<>{}.,:;!?*_~'\"")
    if not core or (weak and not value[0].isalnum()):
        return False  # "password (prompted if omitted)": prose punctuation, not a value
    if _WORDLIKE.fullmatch(core):
        return random_letters(core) or (password and assigned and "-" not in core)
    if password and not weak:
        return True
    if len(value) < 8 or value.isdigit() or not re.search(r"[A-Za-z]", value):
        return False
    if not password and all(_PLAIN_PIECE.fullmatch(p) for p in re.split(r"[-_.:/]", value)):
        return False  # a version or a model name: python3.11, gpt-4o-mini, ed25519
    return entropy(value) >= (2.5 if password else 3.0)


def random_letters(value: str) -> bool:
    """Letters only: a word, unless long and random-cased (``XkQpLmZrWtYb``)."""
    if len(value) < 12 or not value.isalpha():
        return False
    switches = sum(1 for a, b in zip(value, value[1:], strict=False) if a.isupper() != b.isupper())
    return switches >= 4 and entropy(value) >= 3.3


def random_token(token: str) -> bool:
    """A token's body has upper, lower and digits, or at least two of them and no words."""
    body = token.split("-", 1)[-1] if "-" in token else token
    classes = sum(any(test(c) for c in body) for test in (str.isupper, str.islower, str.isdigit))
    return classes >= 2 and entropy(body) >= 3.0


def entropy(value: str) -> float:
    counts = Counter(value)
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


# Words of prose, not of a pass phrase or a password: function words, numbers in words, and
# what people say about a password ("the passphrase is *stored in the keychain*", "password:
# *same as the wifi one*", "sshpass -p *with* ..."). A labelled run of plain words is a pass
# phrase only when it holds none of them (``secrets.py``).
PROSE_WORDS = frozenset(
    """
    a an the this that these those my your his her its our their me you him them it we they
    i is are was were be been being am do does did done have has had will would shall should
    can could may might must not no nor never always also too very so just only even still
    already yet again ever here there now then today tomorrow yesterday soon later once
    in on at to of for from by with without about above below under over into onto out up
    down off through during before after between among than as like via per
    same different other another each every all any some many much more most less least
    few several such what which who whom whose where when why how if whether either neither
    both and or but because since until unless while although though
    one two three four five six seven eight nine ten eleven twelve twenty hundred thousand
    required optional mandatory expired expiring empty blank unset changed reset stored
    saved kept written printed taped hidden lost forgotten shared sent hashed encrypted
    generated case sensitive
    please see ask check use using used call contact find found get got make made need
    needs needed try let go goes stays stay keep give given set
    word words character characters letter letters digit digits symbol symbols number
    numbers chars length minimum maximum
    something anything nothing everything someone anyone everyone nobody somewhere nowhere
    flag option options argument arguments parameter switch manager policy prompt prompted
    """.split()
)


# A pass phrase: plain words (a digit or a hyphen may be in one), one space apart.
_PHRASE = re.compile(
    r"[A-Za-z0-9][A-Za-z0-9'’\-]{0,29}(?:[ \t][A-Za-z0-9][A-Za-z0-9'’\-]{0,29}){0,24}"
)
_PHRASE_WORD = re.compile(r"\S+")
# Where a clause ends after a phrase: the end, a mark, a bracket or a line end.
_CLAUSE_END = re.compile(r"[ \t]*(?:$|[.,;:!?)\]\n\r\"'`”’」』，。；：！？、])")
_CONJUNCTIONS = frozenset("and but or so then because which that while when if though".split())
# A wallet's recovery words: BIP-39 phrases have 12, 15, 18, 21 or 24 of them.
_SEED_LENGTHS = frozenset((12, 15, 18, 21, 24))


def pass_phrase_end(text: str, start: int, seed: bool) -> int | None:
    """Where a labelled pass phrase of plain words starting at ``start`` ends, or ``None``
    when the words read as prose.

    "passphrase: correct horse battery staple" is a pass phrase: three to ten words up to
    the end of the clause (a mark, the end, or a conjunction: "... staple and keep it"),
    none of them a word of prose (``PROSE_WORDS``: "the password is *stored in the
    keychain*", "passphrase: *see the team vault*"). A seed or recovery phrase may be any
    of a wallet's word counts (``_SEED_LENGTHS``), whatever its words. A run of more than
    twenty-four words is a sentence. Bounded: linear time holds.
    """
    run = _PHRASE.match(text, start)
    if run is None:
        return None
    words = list(_PHRASE_WORD.finditer(text, start, run.end()))
    ended = False
    for number, word in enumerate(words):
        if word.group().casefold() in _CONJUNCTIONS:
            words, ended = words[:number], True
            break
    if not words or len(words) > 24:
        return None
    end = words[-1].end()
    if not ended and not _CLAUSE_END.match(text, end):
        return None  # the words go on into something else: no clause of their own
    lowered = [word.group().casefold() for word in words]
    if seed and len(words) in _SEED_LENGTHS and all(word.isalpha() for word in lowered):
        return end
    if not 3 <= len(words) <= 10 or any(word in PROSE_WORDS for word in lowered):
        return None
    return end
