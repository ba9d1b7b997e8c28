"""Keyword search over the shadow index: query parsing, FTS5 bm25, CJK terms, filters.

Any string a person types is a valid query. It is never handed to FTS5 as syntax: it is cut
into *units* (words, ``"quoted phrases"``, ``prefix*`` words, CJK runs), each quoted, and
the units are OR-ed. FTS operators typed by a person (``AND``, ``OR``, ``NOT``, ``NEAR``) are
words to skip; quotes, parentheses and punctuation only separate words; a lone ``"`` opens a
phrase that runs to the end.

English words are indexed as written (no stemmer); a query word of four letters or more is
asked as the prefix left after dropping a common ending (``meetings`` -> ``meet*``), so
word forms match while ``prefix*`` and phrases keep their exact meaning.

Ranking: FTS5 returns candidates by bm25; then chunks that hold *more of the query's units*
come first, bm25 ordering within the same count. So several terms are never required all
at once, and a long Chinese query that does not occur verbatim (``飞书插件配置``) still finds
the chunks holding its parts (its bigrams ``飞书``, ``插件``, ``配置`` ...), fuller ones first.
English stop words are dropped unless the query holds nothing else.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from .terms import bigrams, split_cjk

STOP_WORDS = frozenset(
    """a an the of to in on at for and or but is are was were be been do does did what when
    where who whom which why how that this these those it its with by from as about into than
    then there their they he she his her him i you your we our my me would could should will
    can may might has have had not""".split()
)
OPERATORS = frozenset({"AND", "OR", "NOT", "NEAR"})
MAX_LIMIT = 1_000_000
# A chunk's date: its own field, else its note's date, else the day the note was modified.
_CHUNK_DATE = "COALESCE(c.date, f.date, date(f.mtime_ns / 1000000000, 'unixepoch', 'localtime'))"
# bm25 weights of the FTS columns body, heading, cjk, name.
_WEIGHTS = "1.0, 0.5, 1.0, 8.0"
_TOKEN = re.compile(r'"([^"]*)"?|([^\s"]+)')
_WORD = re.compile(r"[^\W_]+")
_NOTE_SUFFIX = re.compile(r"\.(md|markdown)$", re.IGNORECASE)
# An English clitic after a letter: "Jolene's" is asked as "jolene", "I'm" as "i". Without
# this the apostrophe splits off a one-letter word ("s", "m", "t") that matches every
# "it's" in the vault. A word ending in "n't" is a negated auxiliary (don't, can't, won't):
# a function word, dropped whole, so "won't" never asks for "won" (the past of "win").
_NEGATION = re.compile(r"[^\W_]+n['\u2019]t(?![^\W_])", re.IGNORECASE)
_CLITIC = re.compile(r"(?<=[^\W\d_])['\u2019](?:s|m|d|ll|re|ve)(?![^\W_])", re.IGNORECASE)
# Month names are never stop words when capitalised: "May" the month is a search term,
# "may" the verb (lowercase) is still dropped.
_MONTHS = frozenset(
    "january february march april may june july august september october november december".split()
)
# English endings a query word drops before it is asked as a prefix (first match wins).
_SUFFIXES = ("ingly", "edly", "ings", "ing", "ies", "ied", "ed", "es", "s", "ly", "e")


@dataclass(frozen=True)
class Unit:
    """One part of a query: how FTS5 finds it, and how to tell a chunk holds it."""

    fts: str
    pattern: re.Pattern[str] | None = None  # for words and phrases, on lowercased text
    needle: str | None = None  # for CJK, a plain substring
    counts: bool = True  # whether it adds to a chunk's coverage
    all_of: tuple[Unit, ...] = ()  # a quoted phrase mixing scripts: every part must be there
    run: str | None = None  # an unquoted CJK run, credited for the part of it a chunk holds

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

    def found_in(self, lowered: str) -> bool:
        """Whether a chunk's lowercased text holds this unit."""
        if self.all_of:
            return all(part.found_in(lowered) for part in self.all_of)
        if self.needle is not None:
            return self.needle in lowered
        return bool(self.pattern and self.pattern.search(lowered))


@dataclass(frozen=True)
class Query:
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


@dataclass
class Hit:
    """One search result (the fields of ``--json`` output; see ``docs/json-output.md``)."""

    path: str
    line_start: int
    line_end: int
    heading: str
    score: float
    text: str
    tags: list[str] = field(default_factory=list)
    kind: str = ""
    chunk_id: str = ""
    block_id: str | None = None
    tier: str | None = None  # hot, warm or cold for a fact; "archive" in archive/
    superseded: bool = False  # a struck-through line: superseded or forgotten
    # Set by ``results.refine``: line_start..line_end and text may hold context lines
    # around the matched ones; other places holding the same memory.
    match_start: int = 0
    match_end: int = 0
    matched: str = field(default="", repr=False)  # the matched chunk's text
    also_in: list[Hit] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.match_start = self.match_start or self.line_start
        self.match_end = self.match_end or self.line_end
        self.matched = self.matched or self.text

    def as_dict(self) -> dict[str, Any]:
        """The hit as a JSON-ready dict."""
        return {
            "path": self.path,
            "line_start": self.line_start,
            "line_end": self.line_end,
            "heading": self.heading,
            "score": round(self.score, 4),
            "text": self.text,
            "tags": self.tags,
            "kind": self.kind,
            "chunk_id": self.chunk_id,
            "block_id": self.block_id,
            "tier": self.tier,
            "superseded": self.superseded,
            "match_start": self.match_start,
            "match_end": self.match_end,
            "also_in": [place.place() for place in self.also_in],
        }

    def place(self) -> dict[str, Any]:
        """Where the hit's matched lines are, and how to cite them (for ``also_in``)."""
        return {
            "path": self.path,
            "line_start": self.match_start,
            "line_end": self.match_end,
            "block_id": self.block_id,
            "link": link_to(self.path, self.match_start, self.block_id),
        }

    def snippet(self, width: int = 200) -> str:
        """The hit's text on one line, cut to ``width`` characters at a word where it can
        be (for agents). When the text with its context lines does not fit, the matched
        lines alone, so the context never pushes out what matched."""
        flat = " ".join(self.text.split())
        if len(flat) <= width:
            return flat
        flat = " ".join(self.matched.split())
        if len(flat) <= width:
            return flat
        cut = flat[: width - 1]
        space = cut.rfind(" ")
        return (cut[:space] if space > width // 2 else cut) + "…"


def link_to(path: str, line: int, block_id: str | None) -> str:
    """How to cite a line: ``[[memory/2026-11-20#^id]]`` when it has a block id (the path
    keeps it from resolving to a same-named note elsewhere in an Obsidian vault; Obsidian
    opens it at the line), else ``path:line``."""
    if block_id:
        return f"[[{_NOTE_SUFFIX.sub('', path)}#^{block_id}]]"
    return f"{path}:{line}"


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


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
    inner = r"(?![^\W_])\W+".join(re.escape(w) for w in words)
    return re.compile(rf"(?<![^\W_]){inner}(?![^\W_])")


def _latin_units(words: list[str], prefix: bool, phrase: bool) -> list[Unit]:
    if not words:
        return []
    if phrase and len(words) > 1:
        fts = '{body heading name} : "' + " ".join(words) + '"'
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
    stem = _stem(word)
    if len(stem) < 3 or (len(stem) == 3 and stem == word):
        return Unit(f'{{body heading name}} : "{word}"', pattern=_word_pattern([word]))
    return _prefix_unit(stem)


def _prefix_unit(prefix: str) -> Unit:
    pattern = re.compile(r"(?<![^\W_])" + re.escape(prefix))
    return Unit(f'{{body heading name}} : "{prefix}"*', pattern=pattern)


def _cjk_units(run: str, split: bool) -> list[Unit]:
    grams = bigrams(run)
    exact = Unit(f'{{cjk name}} : "{" ".join(grams)}"', needle=run, run=run if split else None)
    if not split or len(grams) == 1:
        return [exact]
    # A long run may not occur verbatim: FTS5 is also asked for each bigram on its own, and
    # the run's unit credits a chunk for the part of the run it holds.
    parts = [Unit(f'{{cjk name}} : "{g}"', needle=g, counts=False) for g in dict.fromkeys(grams)]
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


def search(
    conn: sqlite3.Connection,
    query: str,
    *,
    limit: int = 10,
    path_glob: str | None = None,
    tag: str | None = None,
    since: str | None = None,
    until: str | None = None,
    url: str | None = None,
    exclude_glob: str | None = None,
    agent: str | None = None,
) -> list[Hit]:
    """Search the index; see the module docstring for how ranking works.

    Args:
        conn: an open index connection.
        query: any string a person typed.
        limit: the most hits to return.
        path_glob: keep chunks whose vault-relative path matches (SQLite GLOB: ``*`` also
            matches ``/``).
        tag: keep chunks carrying this tag (inline or in frontmatter), or a nested one below it.
        since: keep chunks dated on or after this ``YYYY-MM-DD``.
        until: keep chunks dated on or before this ``YYYY-MM-DD``.
        url: keep chunks with a ``[url:: ]`` field holding this text (any case); with an
            empty query, every such chunk, in path and line order.
        exclude_glob: leave out chunks whose path matches (``archive/*`` unless asked).
        agent: keep chunks whose ``[agent:: ]`` field is this name (ASCII case ignored)
            and chunks with no such field (facts, people's notes, ``MEMORY.md``).

    Returns:
        Hits, best first.
    """
    parsed = parse_query(query)
    match = parsed.match
    if (not match and not url) or limit <= 0:
        return []
    where, params = filter_sql(
        path_glob=path_glob,
        tag=tag,
        since=since,
        until=until,
        url=url,
        exclude_glob=exclude_glob,
        agent=agent,
    )
    limit = min(limit, MAX_LIMIT)
    pool = max(limit * 10, 200)
    columns = (
        "c.id, c.path, c.line_start, c.line_end, c.heading, c.text, c.kind, c.chunk_id,"
        " c.block_id, (SELECT names FROM files WHERE path = c.path)"
    )
    if not match:
        sql = (
            f"SELECT {columns}, 0 FROM chunks c JOIN files f ON f.path = c.path"
            f" WHERE {' AND '.join(where)} ORDER BY c.path, c.line_start LIMIT ?"
        )
        rows = conn.execute(sql, [*params, limit]).fetchall()
        hits = [Hit(r[1], r[2], r[3], r[4], 0.0, r[5], [], r[6], r[7], r[8]) for r in rows]
        _attach_tags(conn, hits, [r[0] for r in rows])
        return hits
    where.insert(0, "chunks_fts MATCH ?")
    params.insert(0, match)
    if len(where) == 1:
        # No filters: let FTS5 pick the best candidates alone, then join only those rows.
        sql = (
            f"SELECT {columns}, m.rank FROM (SELECT rowid, bm25(chunks_fts, {_WEIGHTS}) AS rank"
            " FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?) AS m"
            " JOIN chunks c ON c.id = m.rowid ORDER BY m.rank"
        )
    else:
        sql = (
            f"SELECT {columns}, bm25(chunks_fts, {_WEIGHTS}) AS rank"
            " FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid"
            " JOIN files f ON f.path = c.path"
            f" WHERE {' AND '.join(where)} ORDER BY rank LIMIT ?"
        )
    rows = conn.execute(sql, [*params, pool]).fetchall()
    ranked = sorted(rows, key=lambda r: (-parsed.coverage(_scored_text(r)), r[10]))[:limit]
    hits = [Hit(r[1], r[2], r[3], r[4], -r[10], r[5], [], r[6], r[7], r[8]) for r in ranked]
    _attach_tags(conn, hits, [r[0] for r in ranked])
    return hits


def filter_sql(
    *,
    path_glob: str | None = None,
    tag: str | None = None,
    since: str | None = None,
    until: str | None = None,
    url: str | None = None,
    exclude_glob: str | None = None,
    agent: str | None = None,
) -> tuple[list[str], list[Any]]:
    """The WHERE clauses (over ``chunks c JOIN files f``) and parameters of search's filters
    (see ``search``); every search mode uses them."""
    where: list[str] = []
    params: list[Any] = []
    if path_glob:
        where.append("c.path GLOB ?")
        params.append(path_glob)
    if tag:
        tag = tag.lstrip("#").casefold()
        where.append(
            "EXISTS (SELECT 1 FROM tags t"
            " WHERE (t.chunk = c.id OR (t.chunk IS NULL AND t.path = c.path))"
            " AND (t.tag_key = ? OR t.tag_key LIKE ? ESCAPE '\\'))"
        )
        params += [tag, tag.replace("%", "\\%").replace("_", "\\_") + "/%"]
    if since:
        where.append(f"{_CHUNK_DATE} >= ?")
        params.append(since)
    if until:
        where.append(f"{_CHUNK_DATE} <= ?")
        params.append(until)
    if url:
        where.append(
            "EXISTS (SELECT 1 FROM fields u WHERE u.chunk = c.id AND u.key = 'url'"
            " AND instr(lower(u.value), lower(?)) > 0)"
        )
        params.append(url)
    if exclude_glob:
        where.append("NOT c.path GLOB ?")
        params.append(exclude_glob)
    if agent is not None:
        # Another agent's lines are left out; lines that name no agent are shared.
        where.append(
            "NOT EXISTS (SELECT 1 FROM fields a WHERE a.chunk = c.id AND a.key = 'agent'"
            " AND lower(a.value) <> lower(?))"
        )
        params.append(agent)
    return where, params


def hits_for_rows(conn: sqlite3.Connection, ids: list[int], scores: list[float]) -> list[Hit]:
    """``Hit``s for chunk rows, in the order given, with their tags (rows gone are skipped)."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows = {
        r[0]: r
        for r in conn.execute(
            "SELECT id, path, line_start, line_end, heading, text, kind, chunk_id, block_id"
            f" FROM chunks WHERE id IN ({marks})",
            ids,
        )
    }
    kept = [(i, s) for i, s in zip(ids, scores, strict=True) if i in rows]
    hits = [
        Hit(r[1], r[2], r[3], r[4], score, r[5], [], r[6], r[7], r[8])
        for r, score in ((rows[i], s) for i, s in kept)
    ]
    _attach_tags(conn, hits, [i for i, _ in kept])
    return hits


def _scored_text(row: tuple[Any, ...]) -> str:
    """What a candidate row's coverage is counted on: its text, heading path and, unless
    it is a heading line, its note's names (see ``index_write.chunk_names``)."""
    names = "" if row[6] == "heading" else row[9] or ""
    return f"{row[5]}\n{row[4]}\n{names}"


def _attach_tags(conn: sqlite3.Connection, hits: list[Hit], ids: list[int]) -> None:
    if not hits:
        return
    marks = ",".join("?" * len(ids))
    by_chunk: dict[int, list[str]] = {}
    for chunk, tag in conn.execute(f"SELECT chunk, tag FROM tags WHERE chunk IN ({marks})", ids):
        by_chunk.setdefault(chunk, []).append(tag)
    paths = sorted({h.path for h in hits})
    by_path: dict[str, list[str]] = {}
    path_marks = ",".join("?" * len(paths))
    for path, tag in conn.execute(
        f"SELECT path, tag FROM tags WHERE chunk IS NULL AND path IN ({path_marks})", paths
    ):
        by_path.setdefault(path, []).append(tag)
    for hit, chunk_id in zip(hits, ids, strict=True):
        hit.tags = list(dict.fromkeys(by_chunk.get(chunk_id, []) + by_path.get(hit.path, [])))


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
