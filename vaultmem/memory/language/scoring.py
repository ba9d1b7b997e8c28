"""The scoring rules: a daily-note line -> an importance between 0 and 1, with its reasons.

No model, no network: a class sets the base (identity, health and safety 1.0; preferences,
relationships and changes of status 0.8; a general fact 0.5; something temporary 0.2),
then cue words in English and Chinese add or take away, and a very short line counts half
(a CJK character counting as three letters).
Greetings and bare acknowledgements are dropped; a line that speaks only to the listener,
and encouragement, count less. The cues are tables of their own
(``score_cues.py``); every weight is a key of ``[scoring]`` in ``.vaultmem/config.toml``
(``docs/scoring.md``). Scoring a line takes a few microseconds.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

from vaultmem.config import ScoringConfig
from vaultmem.index.terms import cjk_run
from vaultmem.memory.language.gates import Line
from vaultmem.memory.language.roles import AGENT_ROLES
from vaultmem.memory.language.score_cues import (
    CLASSES,
    CONVERSATION,
    FIRST_PERSON,
    LIKELIHOOD,
    NARRATION,
    REACTION,
    SECOND_PERSON,
    SIGNALS,
    SUPPORT,
)

_SIGNALS = (*SIGNALS, *CONVERSATION)
_ENTITY = re.compile(
    r"\[\[([^\]|#\\]+)|(?<![.!?]\s)(?<!^)\b([A-Z][a-z]{2,}(?:\s[A-Z][a-z]{2,})?)\b"
)
# A name said to the one it calls: "Thanks, Caroline!", "Wow, Mel.", "John, you got this".
_VOCATIVE = re.compile(r"(?:^|[,!.?]\s)\s*[A-Z][\w'-]*(?:\s[A-Z][\w'-]*)?\s*[!,.?]")
_WE_DID = re.compile(
    r"\bwe(?:'ve| have| had)?\s+(?:\w+\s+)?(?:were|was|won|went|got|had|met|made|did|\w{2,}ed)\b",
    re.I,
)
_ACKNOWLEDGEMENT = re.compile(
    r"^(?:ok(?:ay)?|k|sure|thanks?|thank you|thx|ty|yes|yep|no|nope|hi|hello|hey|bye|cool|"
    r"nice|great|got it|好的?|好|嗯+|哦|谢谢|收到|明白|可以|行|👍|🙏|👌)[\s.!。！~]*$",
    re.I,
)


@dataclass(frozen=True)
class Score:
    """A line's importance with the reasons for it; ``dropped`` names why it is no memory."""

    value: float
    kind: str
    reasons: tuple[str, ...]
    dropped: str | None = None
    signals: frozenset[str] = frozenset()  # the config keys of the signals that fired

    def __reduce__(self) -> tuple[type[Score], tuple[Any, ...]]:
        # Pickled as its fields, made again by one call: a run's reader process sends a
        # score with each line it admits, and the default way is slower (docs/benchmarks.md,
        # "Choices in the code").
        return Score, (self.value, self.kind, self.reasons, self.dropped, self.signals)


def _weighted_length(text: str) -> int:
    """Length for the short-text rule: a CJK character says about as much as three Latin
    letters, so "记住我对花生过敏" is not "short" while "ok thx" is."""
    if text.isascii():
        return len(text)
    runs = cjk_run().findall(text)
    cjk = sum(len(run) for run in runs)
    return len(text) - cjk + 3 * cjk


def _to_listener(line: Line, text: str, names: list[str]) -> bool:
    """A line that tells nothing of its speaker (no I, me, my, 我; ``score`` asks this only
    of a line that tells no news in the first person, "we went ...") and speaks to the
    listener (you, your, 你, 您) or opens with a reaction (wow, congrats, sounds great,
    哇): encouragement and small talk about the other's news, which their own line holds.
    A "we" is the speaker in a story told ("we even won a trophy", "we were teammates"),
    not in a wish or a rule ("we should all take care of ourselves"). A line that names
    someone or something other than the listener it calls by name ("Thanks, Caroline!")
    tells of them: "It was Matt Patterson, he is so talented"."""
    if line.tokens & FIRST_PERSON or "我" in text or _WE_DID.search(text):
        return False
    if any(not _VOCATIVE.search(text, *span) for span in _spans(text, names)):
        return False
    return (
        bool(line.tokens & SECOND_PERSON)
        or "你" in text
        or "您" in text
        or bool(REACTION.match(text))
    )


def _spans(text: str, names: list[str]) -> Iterator[tuple[int, int]]:
    """Where each name stands in ``text`` (its first place), from its start to a few
    characters after it (room for the punctuation that makes it a vocative)."""
    for name in names:
        at = text.find(name)
        if at >= 0:
            yield max(0, at - 2), at + len(name) + 2


def entities(text: str) -> list[str]:
    """Names a line mentions: ``[[links]]`` and capitalised words not starting a sentence."""
    found = []
    for link, name in _ENTITY.findall(text):
        found.append((link or name).strip())
    return [e for e in dict.fromkeys(found) if e]


def score(
    text: str,
    weights: ScoringConfig | None = None,
    known: Collection[str] = (),
    *,
    folded: bool = False,
    names: list[str] | None = None,
    explain: bool = True,
) -> Score:
    """Score one line (its message text, without the time, role and fields).

    Args:
        text: the line's words.
        weights: the ``[scoring]`` config (defaults when ``None``).
        known: entities seen before; a line naming a new one gets the first-mention bonus.
        folded: ``known`` is a set of case-folded names already, used as it is
            (consolidation keeps one growing set: folding it again for every line made a
            full run quadratic in the vault's names).
        names: ``entities(text)``, when the caller has them already.
        explain: give the reasons; without, ``reasons`` is empty (consolidation scores
            some 200,000 lines of a large vault and keeps none: they are worded last).
    """
    w = weights or ScoringConfig()
    stripped = text.strip()
    if not stripped or _ACKNOWLEDGEMENT.match(stripped):
        return Score(0.0, "acknowledgement", (), "a greeting or bare acknowledgement")
    kind, base = "general fact", w.class_general
    line = Line.of(stripped)
    for name, key, (pattern, gate) in CLASSES:
        if (gate is None or gate.admits(line)) and pattern.search(stripped):
            kind, base = name, getattr(w, key)
            break
    added = [(kind, base)]  # what each rule added, as the reasons will say
    value = base
    fired = set()
    length = _weighted_length(stripped)
    for name, key, (pattern, gate) in _SIGNALS:
        if key == "chatter" and ("event" in fired or length >= w.detail_chars):
            continue  # "Hey John! I donated my car yesterday": a greeting, then news
        if (gate is None or gate.admits(line)) and pattern.search(stripped):
            weight = getattr(w, key)
            value += weight
            added.append((name, weight))
            fired.add(key)
    pattern, gate = SUPPORT
    if (gate is None or gate.admits(line)) and pattern.search(stripped):
        value += w.support
        added.append(("encouragement", w.support))
        fired.add("support")
    if length >= w.detail_chars:
        value += w.detail
        added.append(("detailed", w.detail))
    elif w.short_text_chars <= length < w.brief_chars:
        value += w.brief
        added.append(("brief", w.brief))
    known_set = known if folded else {k.casefold() for k in known}
    found = entities(stripped) if names is None or stripped != text else names
    if "event" not in fired and _to_listener(line, stripped, found):
        value += w.listener
        added.append(("to the listener", w.listener))
        fired.add("listener")
    new = [e for e in found if e.casefold() not in known_set]
    if new:
        value += w.first_mention
        added.append((f"first mention of {new[0]}", w.first_mention))
    short = length < w.short_text_chars
    if short:
        value *= w.short_text_factor
    reasons: tuple[str, ...] = ()
    if explain:
        reasons = tuple(f"{name} {weight:+.2f}" for name, weight in added)
        reasons += (f"short text x{w.short_text_factor:g}",) if short else ()
    return Score(round(min(1.0, max(0.0, value)), 4), kind, reasons, None, frozenset(fired))


def narrates(text: str, role: str | None) -> bool:
    """An agent's line telling what it does or did ("Noted: peanut allergy stored",
    "Let me run the tests", "已记录：..."): no memory of the owner's (docs/scoring.md)."""
    return role is not None and role.casefold() in AGENT_ROLES and bool(NARRATION.match(text))


def likelihood(text: str) -> float | None:
    """The confidence a statement of likelihood expresses ("probably", "可能"), or ``None``
    for a plain statement."""
    line = Line.of(text)
    for (pattern, gate), confidence in LIKELIHOOD:
        if (gate is None or gate.admits(line)) and pattern.search(text):
            return confidence
    return None
