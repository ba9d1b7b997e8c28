"""A person's query as FTS5 units (words, phrases, prefixes, CJK runs) and how much of
it a text holds.

Any string a person types is a valid query, up to ``MAX_QUERY_CHARS`` characters and
``MAX_QUERY_TERMS`` terms (``check_query``). It is never handed to FTS5 as syntax: it is cut
into *units* (words, ``"quoted phrases"``, ``prefix*`` words, CJK runs), each quoted, and
the units are OR-ed. FTS operators typed by a person (``AND``, ``OR``, ``NOT``, ``NEAR``) are
words to skip; quotes, parentheses and punctuation only separate words; a lone ``"`` opens a
phrase that runs to the end.

English words are indexed as written (no stemmer); a query word of four letters or more is
asked as the prefix left after dropping a common ending (``meetings`` -> ``meet*``,
``index/stems.py``), so word forms match while ``prefix*`` and phrases keep their exact
meaning. English stop words
are dropped unless the query holds nothing else.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from vaultmem.errors import QueryTooLongError
from vaultmem.index.stems import SEARCH, stem
from vaultmem.index.terms import bigrams, split_cjk
from vaultmem.search.word_forms import forms_of

# The bounds of one query (docs/search.md, "How long a query may be"). A search's cost grows
# with its terms times the rows they match: on 2,000 notes, 64 common words take about a
# second, 250 took 16 s. Real questions are far shorter; a whole document is not a query.
MAX_QUERY_CHARS = 2_000
MAX_QUERY_TERMS = 64

STOP_WORDS = frozenset(
    """a an the of to in on at for and or but is are was were be been do does did what when
    where who whom which why how that this these those it its with by from as about into than
    then there their they he she his her him i you your we our my me would could should will
    can may might has have had not""".split()
)
_COLUMNS = "{body heading name}"  # a word or phrase is looked for in each
OPERATORS = frozenset({"AND", "OR", "NOT", "NEAR"})
_TOKEN = re.compile(r'"([^"]*)"?|([^\s"]+)')
_WORD = re.compile(r"[^\W_]+")
# An English clitic after a letter: "Jolene's" is asked as "jolene", "I'm" as "i". Without
# this the apostrophe splits off a one-letter word ("s", "m", "t") that matches every
# "it's" in the vault. A word ending in "n't" is a negated auxiliary (don't, can't, won't):
# a function word, dropped whole, so "won't" never asks for "won" (the past of "win").
# It is looked for only where a word starts: unanchored, a run of letters was tried from
# each of its letters (20,000 x's took 16 s; tests/test_linear_patterns.py).
_NEGATION = re.compile(r"(?<![^\W_])[^\W_]+n['\u2019]t(?![^\W_])", re.IGNORECASE)
_CLITIC = re.compile(r"(?<=[^\W\d_])['\u2019](?:s|m|d|ll|re|ve)(?![^\W_])", re.IGNORECASE)
# Month names are never stop words when capitalised: "May" the month is a search term,
# "may" the verb (lowercase) is still dropped.
_MONTHS = frozenset(
    "january february march april may june july august september october november december".split()
)


class Unit(NamedTuple):
    """One part of a query: how FTS5 finds it, and how to tell a chunk holds it."""

    fts: str
    pattern: re.Pattern[str] | None = None  # for words and phrases, on lowercased text
    needle: str | None = None  # for CJK, a plain substring
    counts: bool = True  # whether it adds to a chunk's coverage
    all_of: tuple[Unit, ...] = ()  # a quoted phrase mixing scripts: every part must be there
    run: str | None = None  # an unquoted CJK run, credited for the part of it a chunk holds
    # A word asked as a prefix of its stem ("users" -> "user"*): the word as typed or as
    # its stem, whole (``"users" OR "user"``). FTS5
    # merges the rows of every term a prefix covers before it returns one, so a common
    # prefix costs as much as all its rows; the typed word alone is cheap (``ranking``).
    exact: str | None = None

    def credit(self, lowered: str) -> float:
        """How much of this unit a chunk holds: 1 for a word, phrase or prefix it holds;
        for a CJK run, half the number of the run's characters covered by bigrams found in
        the chunk, so each two-character word counts as one, wherever it stands."""
        if self.run is None or len(self.run) < 3:
            return 1.0 if self.found_in(lowered) else 0.0
        covered = [False] * len(self.run)
        for i in range(len(self.run) - 1):
            if self.run[i : i + 2] in lowered:
                covered[i] = covered[i + 1] = True
        return sum(covered) / 2

    def occurrences(self, lowered: str) -> int:
        """How many times a chunk's lowercased text holds this unit (a phrase mixing
        scripts: its rarest part's count)."""
        if self.all_of:
            return min(part.occurrences(lowered) for part in self.all_of)
        if self.needle is not None:
            return lowered.count(self.needle)
        return len(self.pattern.findall(lowered)) if self.pattern else 0

    def found_in(self, lowered: str) -> bool:
        """Whether a chunk's lowercased text holds this unit."""
        if self.all_of:
            return all(part.found_in(lowered) for part in self.all_of)
        if self.needle is not None:
            return self.needle in lowered
        return bool(self.pattern and self.pattern.search(lowered))


class Query(NamedTuple):
    """A person's query cut into units; ``match`` is the FTS5 expression (empty: no search)."""

    text: str
    units: tuple[Unit, ...]

    @property
    def match(self) -> str:
        """The FTS5 MATCH expression: every unit OR-ed."""
        return " OR ".join(f"({u.fts})" for u in self.units if u.fts)

    def coverage(self, text: str) -> float:
        """How much of the query a chunk's text holds (see ``Unit.credit``)."""
        lowered = text.lower()
        return sum(u.credit(lowered) for u in self.units if u.counts)

    def share(self, text: str) -> float:
        """The share of the query a chunk's text holds: its coverage over the query's own
        (0 when no unit of the query counts)."""
        whole = self.coverage(self.text)
        return self.coverage(text) / whole if whole else 0.0


def _words(text: str) -> list[str]:
    """The words of a piece of query text, as typed, without English clitics."""
    return _WORD.findall(_CLITIC.sub("", _NEGATION.sub(" ", text)))


def _is_stop(word: str) -> bool:
    lowered = word.lower()
    if lowered in _MONTHS and word[:1].isupper():
        return False
    return lowered in STOP_WORDS


def _word_pattern(words: list[str]) -> re.Pattern[str]:
    """Whole words in order, separated by anything that is not a word (for coverage)."""
    parts = [_starting_a_word(words[0]), *(re.escape(w) for w in words[1:])]
    return re.compile(r"(?![^\W_])\W+".join(parts) + r"(?![^\W_])")


def _starting_a_word(literal: str) -> str:
    """``literal`` where no word character comes before it. The check is made after the
    literal (a fixed-width look-behind), so the pattern begins with the literal and the
    regex engine scans for it: 25x faster than a look-behind before it, on every chunk a
    search ranks."""
    escaped = re.escape(literal)
    return rf"{escaped}(?<![^\W_]{escaped})"


def _latin_units(words: list[str], prefix: bool, phrase: bool) -> list[Unit]:
    if not words:
        return []
    if phrase and len(words) > 1:
        fts = f'{_COLUMNS} : "' + " ".join(words) + '"'
        return [Unit(fts, pattern=_word_pattern(words))]
    units = [_word_unit(w) for w in words]
    if prefix:
        units[-1] = _prefix_unit(words[-1])
    return units


def _word_unit(word: str) -> Unit:
    # Words are indexed as written: FTS5's porter stemmer also stems a prefix* query
    # ("flies*" became "fli"*), which breaks prefix search. Instead a query word drops a
    # common English ending and is asked as a prefix: "meetings" -> "meet"*, "created"
    # -> "creat"* (create, created, creator). Three-letter words stay exact ("art").
    # Irregular forms no ending reaches are asked too, whole ("win" -> won, winning).
    others = forms_of(word)[1:]
    stemmed = stem(word, SEARCH)
    if len(stemmed) < 3 or (len(stemmed) == 3 and stemmed == word):
        return _any_form(f'"{word}"', [word], others)
    forms = f'"{word}"' if stemmed == word else f'"{word}" OR "{stemmed}"'
    exact = _any_form(forms, [], others).fts
    beyond = tuple(form for form in others if not form.startswith(stemmed))  # not in stemmed*
    return _any_form(f'"{stemmed}"*', [], beyond, prefix=stemmed, exact=exact)


def _any_form(
    asked: str,
    whole: list[str],
    others: tuple[str, ...],
    *,
    prefix: str | None = None,
    exact: str | None = None,
) -> Unit:
    """A unit for the FTS5 terms ``asked`` and the ``others`` forms of a word: the words
    ``whole`` and ``others`` found as whole words, ``prefix`` as a word's start."""
    terms = asked + "".join(f' OR "{form}"' for form in others)
    fts = f"{_COLUMNS} : ({terms})" if others or " OR " in asked else f"{_COLUMNS} : {terms}"
    patterns = [_word_pattern([w]).pattern for w in (*whole, *others)]
    if prefix is not None:
        patterns.insert(0, _starting_a_word(prefix))
    pattern = patterns[0] if len(patterns) == 1 else "|".join(f"(?:{p})" for p in patterns)
    return Unit(fts, pattern=re.compile(pattern), exact=exact)


def _prefix_unit(prefix: str) -> Unit:
    return _any_form(f'"{prefix}"*', [], (), prefix=prefix)


def _cjk_units(run: str, split: bool) -> list[Unit]:
    grams = bigrams(run)
    exact = Unit(f'{{body name}} : "{" ".join(grams)}"', needle=run, run=run if split else None)
    if not split or len(grams) == 1:
        return [exact]
    # A long run may not occur verbatim: FTS5 is also asked for each bigram on its own, and
    # the run's unit credits a chunk for the part of the run it holds.
    parts = [Unit(f'{{body name}} : "{g}"', needle=g, counts=False) for g in dict.fromkeys(grams)]
    return [exact, *parts]


def parse_query(text: str) -> Query:
    """Cut a query string into units. Never raises; an empty result means "nothing to find"."""
    pieces: list[tuple[str, bool, bool]] = []  # (text, is_phrase, is_prefix)
    for match in _TOKEN.finditer(text):
        if match.group(1) is not None:
            pieces.append((match.group(1), True, False))
        else:
            raw = match.group(2)
            if raw in OPERATORS:
                continue
            pieces.append((raw, False, raw.endswith("*") and len(raw) > 1))
    units: list[Unit] = []
    stop_only: list[Unit] = []
    for piece, is_phrase, is_prefix in pieces:
        latin, runs = split_cjk(piece)
        raw_words = _words(latin)
        words = [w.lower() for w in raw_words]
        if is_phrase:
            parts = _latin_units(words, False, True)
            parts += [u for run in runs for u in _cjk_units(run, split=False)]
            if len(parts) > 1:  # e.g. "budget 表格": all parts, in one unit
                units.append(Unit(" AND ".join(f"({u.fts})" for u in parts), all_of=tuple(parts)))
            else:
                units.extend(parts)
            continue
        if not is_prefix:
            # Stop words are dropped one by one, also inside a hyphenated or dotted piece
            # ("mother-in-law" asks for mother and law, not every "in"); they are searched
            # only when the whole query holds nothing else.
            stop_only.extend(
                _latin_units([w.lower() for w in raw_words if _is_stop(w)], False, False)
            )
            words = [w.lower() for w in raw_words if not _is_stop(w)]
        units.extend(_latin_units(words, is_prefix and not runs, False))
        for run in runs:
            units.extend(_cjk_units(run, split=True))
    if not units:
        units = stop_only
    unique = tuple(dict.fromkeys(units))
    return Query(text, unique)


def query_problem(text: str) -> str | None:
    """Why ``text`` is over a search's bounds, or ``None``: more than ``MAX_QUERY_CHARS``
    characters, or more than ``MAX_QUERY_TERMS`` terms (words, phrases and CJK runs, each
    counted once; stop words do not count). Pure, linear in the text, so the CLI can make
    it a usage error before it opens the vault."""
    if len(text) > MAX_QUERY_CHARS:
        return (
            f"the query is {len(text):,} characters long; a query holds at most "
            f"{MAX_QUERY_CHARS:,}: ask with fewer words"
        )
    terms = sum(1 for unit in parse_query(text).units if unit.counts)
    if terms > MAX_QUERY_TERMS:
        return (
            f"the query holds {terms:,} different terms; a query holds at most "
            f"{MAX_QUERY_TERMS}: ask with fewer words"
        )
    return None


def check_query(text: str) -> None:
    """Refuse a query over a search's bounds (``query_problem``).

    Raises:
        QueryTooLongError: saying which bound and by how much.
    """
    problem = query_problem(text)
    if problem is not None:
        raise QueryTooLongError(problem)


def highlight_spans(query: Query, text: str) -> list[tuple[int, int]]:
    """Character spans of ``text`` that match the query's units, for snippets."""
    lowered = text.lower()
    spans: list[tuple[int, int]] = []
    for unit in query.units:
        if unit.needle is not None:
            start = lowered.find(unit.needle)
            while start != -1:
                spans.append((start, start + len(unit.needle)))
                start = lowered.find(unit.needle, start + 1)
        elif unit.pattern is not None:
            for m in unit.pattern.finditer(lowered):
                end = m.end()
                while end < len(lowered) and (lowered[end].isalnum()):
                    end += 1
                spans.append((m.start(), end))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
