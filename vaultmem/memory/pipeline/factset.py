"""The live facts a run compares each new fact with, and the search for the closest one.

``FactSet`` holds every live fact's readings (``conflicts.Fact``) compactly, with an
inverted index from word to facts (with idf weights) and one from (subject, attribute) to
the facts filling that slot. ``FactSet.best`` finds the earlier fact a new one relates to
most and asks ``conflicts.judge`` for the verdict. A full run over a large vault asks this
of some 100,000 new facts against as many held ones, so the candidates are few (a slot's
latest holders and the facts sharing most of the new fact's rarest words) and most pairs
are ruled out by bounds before any weighing (``_Ceiling``, ``_Held.may_relate``).
"""

from __future__ import annotations

import math
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from sys import intern

from vaultmem.memory.language.changes import specific
from vaultmem.memory.language.conflicts import NO_WORDS, Fact, Match, cores_alike, judge
from vaultmem.memory.language.slots import Slot
from vaultmem.memory.language.state_words import CHANGES, IS, NONE
from vaultmem.memory.language.states import State

_MAX_CANDIDATES = 50
_MAX_POSTING = 1000
_MAX_SLOT_CANDIDATES = 20
_PRIORITY = {"duplicate": 4, "conflict": 3, "subsumes": 2, "similar": 1}


@dataclass(frozen=True, slots=True)
class _Held:
    """A fact's readings as ``FactSet`` holds them between comparisons: in tuples, a
    quarter of a set's memory (a full run holds the readings of every live fact of the
    vault), made a ``Fact`` again only for a pair that may be related."""

    words: tuple[str, ...]
    units: tuple[str, ...] | None  # None: the same as ``words``
    core: tuple[str, ...] | None  # None: the same as ``units``
    slots: tuple[Slot, ...]
    negated: bool
    likes: bool | None
    shift: bool
    additive: bool
    given_up: tuple[str, ...]
    states: tuple[State, ...]
    names: tuple[str, ...]
    asks: bool
    parties: tuple[str, str, str]
    flags: int  # the readings ``may_relate`` tests, as bits (``_Stance``)

    @classmethod
    def of(cls, fact: Fact) -> _Held:
        return cls(
            _interned(fact.words),
            None if fact.units is fact.words else _interned(fact.units),
            None if fact.core is fact.units else _interned(fact.core),
            tuple(fact.slots),
            fact.negated,
            fact.likes,
            fact.shift,
            fact.additive,
            _interned(fact.given_up),
            fact.states,
            _interned(fact.names),
            fact.asks,
            fact.parties,
            _Stance.flags(fact),
        )

    def fact(self) -> Fact:
        """The readings as ``judge`` takes them (the text is not kept: no rule reads it)."""
        words = frozenset(self.words)
        units = words if self.units is None else frozenset(self.units)
        core = units if self.core is None else frozenset(self.core)
        given_up = frozenset(self.given_up) if self.given_up else NO_WORDS
        return Fact(
            "",
            words,
            list(self.slots),
            units,
            core,
            self.negated,
            self.likes,
            self.shift,
            self.additive,
            given_up,
            self.states,
            frozenset(self.names) if self.names else NO_WORDS,
            self.asks,
            "",  # the change a held fact says: no rule reads an old fact's
            self.parties,
        )

    def own_units(self) -> tuple[str, ...]:
        """The units (``words`` when they are the same)."""
        return self.words if self.units is None else self.units

    def may_relate(self, stance: _Stance, shared: frozenset[str]) -> bool:
        """Whether ``judge`` may relate the new fact (its ``stance``) to this one when
        their similarity is under both thresholds: only a slot both fill, a change of
        stance or negation, a word given up, or one fact's units all in the other's can
        (``judge`` decides). ``shared``: the words the two share."""
        differ = (self.flags ^ stance.flip) & stance.test
        if differ & stance.ALWAYS:
            return True
        new = stance.new
        if new.change and specific(shared):  # a change of a thing both name
            return True
        # Another negation or liking relates only the same statement (``_same_core``):
        # most facts near a new one differ from it so, and share little else.
        if differ and new.core:
            core = self.core if self.core is not None else self.own_units()
            if core and cores_alike(len(new.core.intersection(core)), len(new.core), len(core)):
                return True
        if new.given_up and not new.given_up.isdisjoint(self.words):
            return True
        units = self.own_units()
        # One holds the other's units when the units both hold are all of one's (each
        # tuple's units are distinct). Counted, not tested with ``issubset``, which makes
        # a set of the tuple first; for facts whose units are their words (most), the
        # units both hold are the shared words, already found.
        if self.units is not None or new.units is not new.words:
            shared = new.units.intersection(units)
        both = len(shared)
        return both == len(units) or both == len(new.units)


class _Stance:
    """The readings of a new fact that relate it to any fact whatever their words: a
    slot both fill, a negation either way, the opposite liking, a change said. Each held
    fact keeps its side as bits, so the test of a pair is one expression."""

    SLOTS, NEGATED, LIKES, DISLIKES, SHIFT, STATES, EMPTY = 1, 2, 4, 8, 16, 32, 64
    ALWAYS = SLOTS | SHIFT | STATES | EMPTY  # relate whatever the words: ``judge`` reads more

    def __init__(self, new: Fact) -> None:
        self.new = new
        # A held fact relates when (its flags ^ flip) & test is not 0: a slot of its own
        # (if the new fact has one), another negation, the other liking, no change said
        # (if the new fact says one).
        self.flip = (self.NEGATED if new.negated else 0) | (self.SHIFT if new.shift else 0)
        self.test = (
            (self.SLOTS if new.slots else 0)
            | (self.STATES if any(s.event in CHANGES for s in new.states) else 0)
            | (self.EMPTY if any(s.event == IS for s in new.states) else 0)
            | self.NEGATED
            | {True: self.DISLIKES, False: self.LIKES, None: 0}[new.likes]
            | (self.SHIFT if new.shift else 0)
        )

    @classmethod
    def flags(cls, fact: Fact) -> int:
        return (
            (cls.SLOTS if fact.slots else 0)
            | (cls.STATES if fact.states else 0)
            | (cls.EMPTY if any(s.event == NONE for s in fact.states) else 0)
            | (cls.NEGATED if fact.negated else 0)
            | {True: cls.LIKES, False: cls.DISLIKES, None: 0}[fact.likes]
            | (cls.SHIFT if fact.shift else 0)
        )


def _interned(words: frozenset[str]) -> tuple[str, ...]:
    """The words, each one string for all the facts that hold it (each fact's reading
    makes strings of its own)."""
    return tuple(map(intern, words))


class FactSet:
    """Facts held for comparison: an inverted index from word to facts, with idf weights,
    and one from (subject, attribute) to the facts filling that slot.

    Inside, a fact is its number: its place in the order facts were added (a fact added
    again gets a new one). Postings and slots hold numbers, in that order, so the newest
    come last and a lookup is a list's, not a dict's."""

    def __init__(self) -> None:
        self._held: list[_Held | None] = []  # by number; None once discarded
        self._keys: list[str] = []  # by number
        self._numbers: dict[str, int] = {}  # every key ever added: its latest number
        self._live = 0
        # Arrays of machine ints, not sets or lists: a full run holds the postings of every
        # live fact's words, and reads a few hundred numbers of them for each new fact; a
        # list's numbers are objects all over the heap, an array's lie in one block
        # (docs/benchmarks.md, "Choices in the code"). Each number is in one at most once.
        self._postings: defaultdict[str, array[int]] = defaultdict(_posting)
        self._slot_numbers: defaultdict[tuple[str, str], dict[int, None]] = defaultdict(dict)
        self._last: Fact | None = None  # the text ``best`` read, added next as a rule
        # Facts added before the first search, read at it: a run adds the vault's facts
        # before its reader process starts, and reads them while that process works.
        self._waiting: dict[str, str] | None = {}

    def __len__(self) -> int:
        return self._live + len(self._waiting or ())

    def add(self, key: str, text: str) -> None:
        if self._waiting is not None:
            self._waiting.pop(key, None)  # added again: the last, as it would be
            self._waiting[key] = text
            return
        self.discard(key)
        last = self._last
        fact = last if last is not None and last.text == text else Fact.read(text)
        number = len(self._held)
        self._held.append(_Held.of(fact))
        self._keys.append(key)
        self._numbers[key] = number
        self._live += 1
        for word in fact.words:
            self._postings[word].append(number)
        for slot in fact.slots:
            self._slot_numbers[(slot.subject, slot.attribute)][number] = None
        for slot_key in _state_keys(fact):
            self._slot_numbers[slot_key][number] = None

    def discard(self, key: str) -> None:
        if self._waiting is not None:
            self._waiting.pop(key, None)
            return
        number = self._numbers.get(key)
        fact = None if number is None else self._held[number]
        if number is None or fact is None:
            return
        self._held[number] = None
        self._live -= 1
        for word in fact.words:
            self._postings[word].remove(number)
        for slot in fact.slots:
            self._slot_numbers[(slot.subject, slot.attribute)].pop(number, None)
        for slot_key in _state_keys(fact):
            self._slot_numbers[slot_key].pop(number, None)

    def weigh(self, words: Iterable[str], idf: dict[str, float]) -> None:
        """Put in ``idf`` the weight of each of ``words`` it lacks: how rare the word is
        among the live facts (the log of their count over the word's)."""
        total, postings, log = self._live, self._postings, math.log
        for word in words:
            if word not in idf:
                idf[word] = log(1 + total / (1 + len(postings.get(word, ()))))

    def _similarity(self, a: frozenset[str], b: frozenset[str], idf: dict[str, float]) -> float:
        """The higher of Jaccard and idf-weighted Jaccard of two word sets (``idf``: the
        weights computed so far, filled in as words come)."""
        if not a or not b:
            return 0.0
        union = a | b
        shared = a & b
        jaccard = len(shared) / len(union)
        self.weigh(union, idf)
        # Summed exactly (``fsum``): a plain sum depends on the order the sets give their
        # words, which differs between a set and its copy from another process, and two
        # facts of equal weight would rank by a last bit.
        weighted = math.fsum(idf[w] for w in shared) / math.fsum(idf[w] for w in union)
        return max(jaccard, weighted)

    def best(
        self, text: str | Fact, duplicate: float, conflict: float, exclude: Iterable[str] = ()
    ) -> Match | None:
        """The earlier fact the new text (or its ``Fact.read``, when read already) relates
        to most, with the verdict; ``None`` when none is related (no shared slot, no
        containment, under ``conflict`` similar)."""
        if self._waiting is not None:
            waiting, self._waiting = self._waiting, None
            for key, said in waiting.items():
                self.add(key, said)
        new = self._last = text if isinstance(text, Fact) else Fact.read(text)
        if not new.words and not new.slots:
            return None
        skip = {self._numbers[key] for key in exclude if key in self._numbers}
        best: Match | None = None
        # A sure verdict outranks any doubtful one: a doubtful repeat of "He lives in
        # Berlin" must not hide that "I live in Berlin" surely supersedes "I live in Paris".
        rank: tuple[bool, int, float, int] = (False, 0, 0.0, -1)
        idf: dict[str, float] = {}
        ceiling = _Ceiling(self, new.words, idf)
        stance = _Stance(new)
        threshold, limits = min(duplicate, conflict), (duplicate, conflict)
        candidates = self._candidates(new)
        for number, held, below in _sift(candidates, self._held, ceiling, stance, threshold, skip):
            old = held.fact()
            if below and not judge(new, old, 0.0, *limits):
                continue
            sim = self._similarity(new.words, old.words, idf)
            found = judge(new, old, sim, duplicate, conflict)
            if found is None:
                continue
            mine = (not found.doubtful, _PRIORITY[found.verdict], sim, number)
            if mine > rank:
                key = self._keys[number]
                best, rank = Match(key, sim, found.verdict, found.signal, found.doubtful), mine
        return best

    def _candidates(self, new: Fact) -> list[int]:
        """Facts filling one of the new fact's slots (newest first), then those sharing
        most of its rarest words: a repeat or a contradiction shares its subject, and rare
        words keep the lists short. A word in over _MAX_POSTING facts is too common to
        find a repeat by."""
        found: dict[int, None] = {}
        for slot in new.slots:
            numbers = self._slot_numbers.get((slot.subject, slot.attribute), {})
            found.update(dict.fromkeys(islice(reversed(numbers), _MAX_SLOT_CANDIDATES)))
        for key in _related_state_keys(new):
            numbers = self._slot_numbers.get(key, {})
            found.update(dict.fromkeys(islice(reversed(numbers), _MAX_SLOT_CANDIDATES)))
        postings = self._postings
        shared = [w for w in new.words if 0 < len(postings.get(w, ())) <= _MAX_POSTING]
        rare = sorted(shared, key=lambda w: (len(postings[w]), w))[:4]
        found.update(dict.fromkeys(_most_shared([postings[w] for w in rare], _MAX_CANDIDATES)))
        return list(found)


# States share the slots' index, under keys no slot attribute has: a fact's states under
# their kind, and its empty ones ("I'm single", "no pets") under their kind again.
_STATE, _EMPTY = "state:", "empty:"


def _state_keys(fact: Fact | _Held) -> list[tuple[str, str]]:
    keys = [(state.subject, _STATE + state.kind) for state in fact.states]
    keys += [(s.subject, _EMPTY + s.kind) for s in fact.states if s.event == NONE]
    return keys


def _related_state_keys(new: Fact) -> list[tuple[str, str]]:
    """Where the earlier facts a new one's states may end are: a change, any state of its
    kind; a state that holds, an empty one it fills ("I have a girlfriend")."""
    return [
        (state.subject, (_STATE if state.event in CHANGES else _EMPTY) + state.kind)
        for state in new.states
        if state.event in CHANGES or state.event == IS
    ]


def _posting() -> array[int]:
    return array("i")


def _sift(
    numbers: list[int],
    held_facts: list[_Held | None],
    ceiling: _Ceiling,
    stance: _Stance,
    threshold: float,
    skip: set[int],
) -> Iterator[tuple[int, _Held, bool]]:
    """The candidates ``best`` must judge: each one's number, readings, and whether its
    similarity is surely under ``threshold``. Under both thresholds, only the slot, cue
    and containment rules can relate a pair, and they do not read the similarity: the
    words (the costly part) are weighed only for a pair they may relate
    (``_Held.may_relate``).

    The similarity is bounded without weighing the words first (``_Ceiling``): Jaccard
    exactly, and the weighted Jaccard with each shared word as heavy as the heaviest. Most
    candidates share a word or two of ten and are ruled out so; the rest are weighed
    (``_Ceiling.weighed_below``). The first tests are written in this loop, which runs
    for millions of candidates in a full run, not called."""
    words, size = stance.new.words, len(stance.new.words)
    weight, top, floor = ceiling.weight, ceiling.top, ceiling.floor
    for number in numbers:
        if number in skip:
            continue
        held = held_facts[number]
        assert held is not None  # postings and slots hold live facts only
        shared = words.intersection(held.words)
        both = len(shared)
        extra = len(held.words) - both
        if size and both / (size + extra) >= threshold:  # as ``_similarity`` computes it
            yield number, held, False
            continue
        denominator = weight + extra * floor
        surely = size > 0 and denominator > 0 and both * top / denominator * _MARGIN < threshold
        if not surely and not ceiling.weighed_below(shared, extra, threshold):
            yield number, held, False
        elif held.may_relate(stance, shared):
            yield number, held, True


def _most_shared(lists: list[array[int]], limit: int) -> list[int]:
    """Up to ``limit`` numbers of the lists (each a posting, ascending, rarest word
    first): those in most lists first, newest (highest) first among equals; then the
    newest of the rest, the rarest word's first.

    A run over a large vault asks this of every new fact, and most of the hundreds of
    numbers are in one list: set operations in C find the few in two or more (no set is
    made of the longest list, only looked up in), counted as they are found, and the rest
    are taken from the lists' ends, not sorted."""
    # A number's lists after its first: each list's numbers found in the earlier ones.
    later: Counter[int] = Counter()
    seen: set[int] = set(lists[0]) if lists else set()
    for place in range(1, len(lists)):
        later.update(seen.intersection(lists[place]))
        if place < len(lists) - 1:
            seen.update(lists[place])
    ranked = sorted(later, key=lambda n: (-later[n], -n))[:limit]
    # Every number in two or more lists is ranked now (or the limit is reached): the rest
    # are each in one list, and at most ``len(ranked)`` of a list's ``limit`` newest are
    # ranked already.
    for numbers in lists:
        need = limit - len(ranked)
        if need <= 0:
            break
        if later:
            ranked += [n for n in reversed(numbers[-limit:]) if n not in later][:need]
        else:
            ranked += reversed(numbers[-need:])
    return ranked


# A bound of the weighted similarity is summed in another order than ``_similarity`` sums
# it, so the two may differ in their last bits: a pair is surely under a threshold only
# when its bound times this is under it, a margin far wider than any such rounding and
# far narrower than any gap between two thresholds.
_MARGIN = 1 + 1e-6


class _Ceiling:
    """An upper bound of ``FactSet._similarity`` of one new fact's words against any
    fact's, without weighing the other fact's words: Jaccard exactly, and for the
    idf-weighted Jaccard, the shared words' weight over the new fact's whole weight plus
    the least weight any other word can have (a word in every fact ever added)."""

    def __init__(self, facts: FactSet, new: frozenset[str], idf: dict[str, float]) -> None:
        facts.weigh(new, idf)
        total = facts._live
        weights = list(map(idf.__getitem__, new))
        self.new, self.idf = new, idf
        self.weight = sum(weights)
        self.top = max(weights, default=0.0)  # the heaviest word's weight
        # No posting holds more keys than were ever added, and idf falls as postings grow.
        self.floor = math.log(1 + total / (1 + len(facts._numbers))) if total else 0.0

    def weighed_below(self, shared: frozenset[str], extra: int, threshold: float) -> bool:
        """Whether the similarity with a fact sharing ``shared`` with the new one and
        holding ``extra`` other words is surely under ``threshold``, the shared words
        weighed: for a pair the first tests (``_sift``) leave open."""
        if not self.new:
            return threshold > 0  # the similarity is 0
        jaccard = len(shared) / (len(self.new) + extra)
        denominator = self.weight + extra * self.floor
        weighted = sum(map(self.idf.__getitem__, shared)) / denominator if denominator else 1.0
        return max(jaccard, weighted) * _MARGIN < threshold
