"""Who a clause is about and what value it gives, read from the words around a slot's
verb (``slots.py``): subjects (``owner`` for I / we / 我, a name or a noun phrase, ``?``
for a bare pronoun), values cut to their core ("PostgreSQL 16", "Paris"), and whether the
clause takes the value back ("no longer", "used to", "不再")."""

from __future__ import annotations

from vaultmem.index.stems import PLURAL, stem
from vaultmem.memory.language import slot_words as w

OWNER = "owner"
UNKNOWN = "?"


def subject_before(before: str) -> str:
    """Who a clause is about, from the words before its verb."""
    if w.CJK.search(before[-1:] or " "):
        return cjk_subject(before)
    clause = w.CLAUSE_BREAK.split(before)[-1]
    tokens = w.TOKEN.findall(clause)
    while tokens and tokens[-1].casefold() in w.SUBJECT_SKIP:
        tokens.pop()
    if not tokens:  # no one named before the verb ("moved to Paris"): the owner
        return OWNER
    last = tokens[-1]
    lowered = last.casefold()
    if lowered in w.FIRST_PERSON:
        return OWNER
    if lowered in w.PRONOUNS:
        return UNKNOWN
    if last[0].isupper():
        name = [last]
        for token in reversed(tokens[:-1]):
            if not token[0].isupper() or token.casefold() in w.TRIGGERS:
                break
            name.insert(0, token)
        return clean_name(" ".join(name))
    return noun_phrase(tokens)


def noun_phrase(tokens: list[str]) -> str:
    """A lower-case noun phrase, its article and frequency words dropped; ``my sister``
    keeps its possessive (it is not the owner)."""
    kept: list[str] = []
    for token in reversed(tokens):
        lowered = token.casefold()
        if lowered in w.POSSESSIVE_OWNER or lowered.endswith("'s"):
            kept.insert(0, "my" if lowered in w.POSSESSIVE_OWNER else lowered)
            break
        if lowered in w.ARTICLES or lowered in w.TRIGGERS or lowered in w.VERBS_BEFORE_NOUN:
            break
        if lowered not in w.FREQUENCY:
            kept.insert(0, singular(lowered))
        if len(kept) == 4:
            break
    if len(kept) > 1 and kept[-1] in w.GENERIC_HEADS:
        kept.pop()
    return " ".join(kept) or OWNER


def clean_name(name: str) -> str:
    name = name.casefold().removesuffix("'s").strip()
    for suffix in (" project", " team", " service"):
        name = name.removesuffix(suffix)
    return name


def cjk_subject(before: str) -> str:
    clause = w.CJK_CLAUSE_BREAK.split(before)[-1].strip()
    while clause:
        word = next((w_ for w_ in w.CJK_SKIP if clause.endswith(w_)), None)
        if word is not None:
            clause = clause[: -len(word)]
            continue
        when = w.CJK_TIME_END.search(clause)
        if when is not None:
            clause = clause[: when.start()]
            continue
        word = next((w_ for w_ in w.CJK_SKIP if clause.startswith(w_)), None)
        if word is None:
            break
        clause = clause[len(word) :]
    if not clause or clause in w.CJK_FIRST_PERSON:
        return OWNER
    if clause in w.CJK_PRONOUNS:
        return UNKNOWN
    first = w.CJK_AND.split(clause, maxsplit=1)[0]  # "小张和女朋友" (分手了): 小张
    if first and first != clause:
        return cjk_subject(first)
    return clean_name(w.CJK_ORG_SUFFIX.sub("", clause))


def value_after(after: str) -> str:
    """The value a clause gives: the words after its verb up to a clause break or a word
    that starts something else ("now", "since", "with", "for"...)."""
    if w.CJK.match(after.lstrip()[:1] or " "):
        return cjk_value(after)
    kept: list[str] = []
    for token in w.TOKEN.findall(w.CLAUSE_BREAK.split(after)[0]):
        lowered = token.casefold()
        if lowered in w.VALUE_STOP:
            break
        if not kept and lowered in w.ARTICLES:
            continue
        kept.append(token)
        if len(kept) == 5:
            break
    return normal(" ".join(kept))


def cjk_value(after: str) -> str:
    run = w.CJK_VALUE.match(after.lstrip())
    if run is None:
        return ""
    value = run.group()
    for stop in w.CJK_VALUE_STOP:
        index = value.find(stop, 1)
        if index > 0:
            value = value[:index]
    return normal(value)


def normal(value: str) -> str:
    """A value as compared: case-folded, aliases resolved, punctuation and spelling
    variants evened out."""
    value = " ".join(w.TOKEN.findall(value.casefold().replace("-", " ")))
    value = " ".join(w.ALIASES.get(part, part) for part in value.split())
    return w.ALIASES.get(value, value)


def singular(word: str) -> str:
    """A lower-case noun without its plural ``s`` (``PLURAL``: "runs" -> "run", "glass")."""
    return stem(word, PLURAL)


def takes_back(before: str) -> bool:
    """Whether the clause before a verb takes it back: "no longer", "used to", "不再"
    (and at most two words after it): read backwards, from the clause's end."""
    return w.NEGATED_BEFORE_REVERSED.match(before[::-1]) is not None


def clause_before(sentence: str, start: int) -> str:
    """The words of the clause a match starts in, before the match."""
    return w.CLAUSE_BREAK.split(sentence[:start])[-1]
