"""Gates (``vaultmem/memory/language/gates.py``) only skip searches that would find nothing.

Every reading consolidation makes of a line (score, slots, fact readings, dates, secrets,
capture requests) must be the same with the gates as with every pattern searched: the
gates are a speed-up, never a rule.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import importlib
import json
import pkgutil
import random
import re
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import soak

from vaultmem.memory import language
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
    any_letter = re.compile("[a-z]", re.I)  # one pass; then which letter, for the few
    letters = [(letter, re.compile(letter, re.I)) for letter in "abcdefghijklmnopqrstuvwxyz"]
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        if not 0xD800 <= code <= 0xDFFF and any_letter.fullmatch(char):
            [letter] = [letter for letter, pattern in letters if pattern.fullmatch(char)]
            assert fold(char) == letter, hex(code)


Pair = tuple[re.Pattern[str], Gate]


@functools.cache
def _rules() -> tuple[list[re.Pattern[str]], list[Pair]]:
    """What the language rules hold, found by walking the values of their modules (no
    rule is named here: one renamed or moved is still found): every compiled pattern, and
    every pattern that has a gate, as a ``Gated`` or side by side with it in a tuple (a
    row of a rule table)."""
    patterns: dict[tuple[str, int], re.Pattern[str]] = {}
    pairs: dict[tuple[str, int, Gate], Pair] = {}
    seen: set[int] = set()

    def walk(value: object) -> None:
        if id(value) in seen:
            return
        seen.add(id(value))
        if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
            patterns.setdefault((value.pattern, value.flags), value)
        elif isinstance(value, Gated):
            pairs.setdefault((value.pattern.pattern, value.pattern.flags, value.gate), _pair(value))
            walk(value.pattern)
        elif isinstance(value, (tuple, list, set, frozenset)):
            found = [v for v in value if isinstance(v, re.Pattern)]
            gates = [v for v in value if isinstance(v, Gate)]
            if len(found) == 1 and len(gates) == 1:
                pairs.setdefault((found[0].pattern, found[0].flags, gates[0]), (found[0], gates[0]))
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for item in value.items():
                walk(item)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for field in dataclasses.fields(value):
                walk(getattr(value, field.name))

    for info in pkgutil.iter_modules(language.__path__):
        module = importlib.import_module(f"{language.__name__}.{info.name}")
        for value in vars(module).values():
            walk(value)
    return sorted(patterns.values(), key=_source), sorted(pairs.values(), key=_first_source)


def _pair(gated: Gated) -> Pair:
    return gated.pattern, gated.gate


def _source(pattern: re.Pattern[str]) -> tuple[str, int]:
    return pattern.pattern, pattern.flags


def _first_source(pair: Pair) -> tuple[str, int]:
    return _source(pair[0])


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


def test_the_rules_gates_are_found() -> None:
    # What the tests below check comes from walking the rules: were that to find nothing,
    # they would pass having checked nothing.
    patterns, pairs = _rules()
    assert len(patterns) > 100 and len(pairs) > 40


@pytest.mark.parametrize(
    ("pattern", "gate"), _rules()[1], ids=lambda v: str(getattr(v, "pattern", ""))[:30]
)
def test_a_gate_admits_every_line_its_pattern_matches(pattern: re.Pattern[str], gate: Gate) -> None:
    for text in _lines(pattern, 3000, seed=zlib.crc32(pattern.pattern.encode())):
        if pattern.search(text) is not None:
            assert gate.admits(Line.of(text)), text


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
    for pattern in _rules()[0]:
        texts += _lines(pattern, soak(40, 5), seed=len(texts))
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
        lambda t: extract.extract(t, dt.date(2026, 11, 20), {"Alice"}),
    ]
    return [read(text) for read in readers]


@pytest.mark.soak
def test_the_gates_change_no_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _corpus()
    gated = [_readings(text) for text in texts]
    monkeypatch.setattr(Gate, "admits", lambda self, line: True)  # every pattern searched
    wording.strip_triggers.cache_clear()  # its answers from the gated run
    for text, expected in zip(texts, gated, strict=True):
        assert _readings(text) == expected, text


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("Lunch with Alice", "Alice"),
        ("went for a long walk with Bo", "Bo"),
        ("MET Carol", "Carol"),
        ("talked to Dan about it", "Dan"),
        ("a letter from Eve", "Eve"),
        ("emails from Fay", "Fay"),
        ("my co-worker Gus", "Gus"),
        ("best friend Hal", "Hal"),
        ("Dr. Ivo", "Ivo"),
        ("ping @Jon", "Jon"),
        ("my fiancé Kim", "Kim"),
    ],
)
def test_each_kind_of_evidence_makes_a_person(line: str, name: str) -> None:
    # A capitalised word alone is no person ("Alice" alone is not): the words around it
    # are the evidence, and the gate in front of them must let each kind through.
    assert people.people(line) == [name]
    assert people.people(name) == []
