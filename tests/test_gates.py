"""Gates (``vaultmem/memory/gates.py``) only skip searches that would find nothing.

Every reading consolidation makes of a line (score, slots, fact readings, dates, secrets,
capture requests) must be the same with the gates as with every pattern searched: the
gates are a speed-up, never a rule.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import random
import re
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from vaultmem.memory.language import (
    categories,
    conflicts,
    dates,
    extract,
    people,
    scoring,
    secrets,
    slots,
)
from vaultmem.memory.language import (
    triggers as wording,
)
from vaultmem.memory.language.gates import Gate, Gated, Line, fold

DATA = Path(__file__).parent / "data"
_WORD_CHAR = re.compile(r"\w")
# Letters that ``re.IGNORECASE`` takes for ASCII ones: the cases a plain lower() misses.
_ODD_CASES = {"s": "ſ", "i": "İı", "k": "K"}


def test_folding_keeps_each_character_and_its_wordness() -> None:
    for code in range(sys.maxunicode + 1):
        if 0xD800 <= code <= 0xDFFF:
            continue
        char = chr(code)
        folded = fold(char)
        assert len(folded) == 1, hex(code)
        assert bool(_WORD_CHAR.match(char)) == bool(_WORD_CHAR.match(folded)), hex(code)


def test_folding_matches_ignorecase_for_ascii_letters() -> None:
    for letter in "abcdefghijklmnopqrstuvwxyz":
        pattern = re.compile(letter, re.I)
        for code in range(sys.maxunicode + 1):
            char = chr(code)
            if not 0xD800 <= code <= 0xDFFF and pattern.fullmatch(char):
                assert fold(char) == letter, hex(code)


def _gated() -> Iterator[tuple[str, re.Pattern[str], Gate, bool]]:
    """Every gated pattern: (name, pattern, gate, whether it searches lower-cased text)."""
    for group in ("CLASSES", "SIGNALS", "CONVERSATION"):
        for name, _key, (pattern, gate) in getattr(scoring, group):
            if gate is not None:
                yield f"scoring {name}", pattern, gate, False
    for (pattern, gate), _confidence in scoring.LIKELIHOOD:
        if gate is not None:
            yield f"likelihood {pattern.pattern[:20]}", pattern, gate, False
    for name, value in vars(conflicts).items():
        if isinstance(value, Gated):
            yield f"conflicts {name}", value.pattern, value.gate, False
    for name, value in vars(categories).items():
        if isinstance(value, Gated):
            yield f"categories {name}", value.pattern, value.gate, False
    for gate, cue, read in slots._READERS:
        yield f"slots cue {read.__name__}", cue, gate, True
    for index, (pattern, gate) in enumerate(
        zip(slots.w.SCHEDULE_PATTERNS, slots._SCHEDULE_GATES, strict=True)
    ):
        yield f"schedule {index}", pattern, gate, False
    yield "dates", dates._DATE, dates._DATE_GATE, False
    yield "times", dates._TIME, dates._TIME_GATE, False
    for pattern, parts in secrets._LABEL_PARTS:
        yield f"secret label {pattern.pattern[:20]}", pattern, Gate(parts=parts), False
    yield "capture request tail", wording._TAIL, Gate(parts=wording._TAIL_WORDS), False
    yield "people context", people._CONTEXT, people._CONTEXT_GATE, False


def _pieces(pattern: re.Pattern[str]) -> list[str]:
    """Words and CJK runs of a pattern's source, to build lines it may match from."""
    found = re.findall(r"[A-Za-z]{2,}|[\u3400-\u9fff]+", pattern.pattern)
    words = [w for w in found if w not in ("P", "i")]
    cjk = [c for run in found if not run.isascii() for c in run]
    return words + cjk + ["I", "we", "my", "a", "the", "Alice", "9", "10:30", "3pm", "2026"]


def _lines(pattern: re.Pattern[str], count: int, seed: int) -> Iterator[str]:
    rng = random.Random(seed)
    pieces = _pieces(pattern)
    separators = [" ", " ", " ", "", ",", ", ", "'", "-", "\t", ": ", "=", ".", "\n", "@", "<"]
    for _ in range(count):
        words = []
        for _ in range(rng.randint(1, 7)):
            word = rng.choice(pieces)
            roll = rng.random()
            if roll < 0.2:
                word = word.upper()
            elif roll < 0.4:
                word = word.capitalize()
            elif roll < 0.5:
                word = "".join(rng.choice(_ODD_CASES.get(c, c)) for c in word)
            words.append(word)
        yield "".join(w + rng.choice(separators) for w in words).strip()


@pytest.mark.parametrize("name,pattern,gate,lowered", list(_gated()), ids=lambda v: str(v)[:30])
def test_a_gate_admits_every_line_its_pattern_matches(
    name: str, pattern: re.Pattern[str], gate: Gate, lowered: bool
) -> None:
    for text in _lines(pattern, 3000, seed=zlib.crc32(name.encode())):
        text = text.casefold() if lowered else text
        if pattern.search(text) is not None:
            line = Line.lowered(text) if lowered else Line.of(text)
            assert gate.admits(line), (name, text)


def _corpus() -> list[str]:
    texts: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for name in ("conflict_pairs.json", "paraphrase_pairs.json"):
        walk(json.loads((DATA / name).read_text(encoding="utf-8")))
    for _name, pattern, _gate, _lowered in _gated():
        texts += _lines(pattern, 60, seed=len(texts))
    return texts


def _readings(text: str) -> list[object]:
    readers: list[Callable[[str], object]] = [
        lambda t: scoring.score(t, None, {"alice"}, folded=True),
        scoring.likelihood,
        wording.strip_triggers,
        secrets.mask_secrets,
        lambda t: dataclasses.astuple(conflicts.Fact.read(t)),
        slots.slots,
        lambda t: dates.resolve_dates(t, dt.date(2026, 11, 20)),
        lambda t: people.people(t, {"Alice"}),
        lambda t: categories.route(scoring.score(t), extract.Metadata(), t),
    ]
    return [read(text) for read in readers]


def test_the_gates_change_no_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _corpus()
    gated = [_readings(text) for text in texts]
    monkeypatch.setattr(Gate, "admits", lambda self, line: True)
    monkeypatch.setattr(wording, "_TAIL_WORDS", ("",))  # "" is in every line
    monkeypatch.setattr(secrets, "_LABEL_PARTS", [(p, ("",)) for p, _ in secrets._LABEL_PARTS])
    for text, expected in zip(texts, gated, strict=True):
        assert _readings(text) == expected, text


@pytest.mark.parametrize(
    "line",
    [
        "Lunch with Alice",
        "went for a long walk with Bo",
        "MET Carol",
        "talked to Dan about it",
        "a letter from Eve",
        "emails from Fay",
        "my co-worker Gus",
        "best friend Hal",
        "Dr. Ivo",
        "ping @Jon",
        "my fiancé Kim",
    ],
)
def test_the_people_gate_admits_each_kind_of_evidence(line: str) -> None:
    assert people._CONTEXT.search(line) is not None
    assert people._CONTEXT_GATE.admits(Line.of(line))
    assert people.people(line)
