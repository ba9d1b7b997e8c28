"""What a credential looks like, as against a word, a setting or a placeholder: the test a
value must pass before ``secrets.py`` masks it (a labelled value, a token whose format
alone is not proof). Long enough, of mixed character classes or random enough (Shannon
entropy), and not a word, a placeholder (``<your-token>``, ``${VAR}``, ``xxx``,
``changeme``), a number of a setting, a version, a path, a URL or an email address."""

from __future__ import annotations

import math
import re
from collections import Counter

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
    return (
        "[" in value
        or "]" in value
        or "..." in value
        or "…" in value
        or len(set(value.lower()) - set("x*•#._-")) == 0
        or len(set(value)) <= 2
        or _PLACEHOLDER.fullmatch(value) is not None
    )


def credential(value: str, password: bool, weak: bool, assigned: bool = False) -> bool:
    """Whether a labelled value looks like a credential rather than a word or a setting.

    A password label accepts more (``hunter22``, a six-digit PIN) than a token label or a
    label followed by a bare space, which need a random-looking value of eight or more. A
    password assigned in code or config (``passwd=letmein``) is one even when it is a word.
    """
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
