"""Gates: a cheap test that lets a costly pattern be skipped on a line it cannot match.

A full consolidation reads some 200,000 daily-note lines and runs dozens of patterns over
each (scoring, slots, secrets, dates). Most lines hold none of a pattern's cue words, and a
search that fails still walks the whole line, trying an alternation of words at every
position. A ``Gate`` names what any match must contain: a whole word (``words``: one
``\\w+`` run of the line), a piece of text (``parts``), or a digit. When the line holds none
of them the pattern is not run; when it holds one, the pattern decides. A gate is only
ever a necessary condition, so a gated search finds exactly what the bare search finds.

The line is read once, case-folded as ``re.IGNORECASE`` compares: ``İ``, ``ı`` and ``ſ``
match ``i``, ``i`` and ``s`` under that flag but ``str.lower`` keeps ``ı`` and ``ſ`` and
turns ``İ`` into two characters, so they are mapped first. With that, folding keeps every
character's length and its being a word character, so a cue matched between ``\\b`` is a
whole word of the folded line (``tests/test_gates.py`` checks every code point).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

_FOLD = str.maketrans({"İ": "i", "ı": "i", "ſ": "s"})
_TOKEN = re.compile(r"\w+")
_DIGIT = re.compile(r"\d")


def fold(text: str) -> str:
    """``text`` lower-cased the way an ``re.IGNORECASE`` pattern compares letters."""
    if text.isascii():  # none of the three letters to map (and a translation is slow)
        return text.lower()
    return text.translate(_FOLD).lower()


class Line(NamedTuple):
    """A line as the gates read it: folded, its words, whether it holds a digit, whether
    it is all ASCII (no CJK cue can be in it). A tuple: made for every line a run reads
    (some 260,000 in a large vault's), in one call, not field by field as a frozen
    dataclass is."""

    folded: str
    tokens: frozenset[str]
    digit: bool
    ascii: bool

    @classmethod
    def of(cls, text: str) -> Line:
        return _line_of(text)

    @classmethod
    def lowered(cls, text: str) -> Line:
        """A line for gates of ``parts`` (and digits) only, matched in ``text`` as it is:
        for patterns searched in text the caller has lower-cased already."""
        return cls(text, frozenset(), _DIGIT.search(text) is not None, text.isascii())


# A few lines kept: scoring, a fact's readings, its dates and likelihood each read the
# same admitted line.
@lru_cache(maxsize=8)
def _line_of(text: str) -> Line:
    folded = fold(text)
    tokens = frozenset(_TOKEN.findall(folded))
    return Line(folded, tokens, _DIGIT.search(text) is not None, folded.isascii())


@dataclass(frozen=True, slots=True)
class Gate:
    """What any match of one pattern holds: one of ``words`` as a whole word, one of
    ``parts`` anywhere (both case-folded), or, with ``digit``, a digit."""

    words: frozenset[str] = frozenset()
    parts: tuple[str, ...] = ()
    digit: bool = False
    # The parts an all-ASCII line can hold: most lines are, and most parts are CJK cues.
    ascii_parts: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "ascii_parts", tuple(p for p in self.parts if p.isascii()))

    def admits(self, line: Line) -> bool:
        if self.digit and line.digit:
            return True
        if not self.words.isdisjoint(line.tokens):
            return True
        folded = line.folded
        # A loop, not any(): that makes a generator per call.
        for part in self.ascii_parts if line.ascii else self.parts:  # noqa: SIM110
            if part in folded:
                return True
        return False


def cue_gate(words: tuple[str, ...], parts: tuple[str, ...] = ()) -> Gate:
    """The gate of a pattern that matches one of ``words`` (an English one between
    ``\\b``, a CJK one anywhere) or holds one of ``parts``."""
    whole: set[str] = set()
    pieces: list[str] = []
    for word in words:
        if word.isascii() and _TOKEN.fullmatch(word):
            whole.add(word.lower())
        else:
            pieces.append(word.lower())
    return Gate(frozenset(whole), tuple(dict.fromkeys([*pieces, *parts])))


def words(text: str) -> frozenset[str]:
    """A set of whole words from a space-separated list."""
    return frozenset(text.split())


@dataclass(frozen=True, slots=True)
class Gated:
    """A pattern with its gate: each method does what the pattern's does, skipping the
    search on a line (``Line.of`` the same text) the gate does not admit."""

    pattern: re.Pattern[str]
    gate: Gate

    def search(self, text: str, line: Line) -> re.Match[str] | None:
        return self.pattern.search(text) if self.gate.admits(line) else None

    def sub(self, repl: str | Callable[[re.Match[str]], str], text: str, line: Line) -> str:
        return self.pattern.sub(repl, text) if self.gate.admits(line) else text

    def finditer(self, text: str, line: Line) -> Iterator[re.Match[str]]:
        return self.pattern.finditer(text) if self.gate.admits(line) else iter(())
