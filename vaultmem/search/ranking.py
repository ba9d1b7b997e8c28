"""Which chunks a keyword query returns, best first, at a cost bounded by the result size.

FTS5 ranks by bm25, and bm25 is computed for *every* row a query matches: a query of common
words ("the meeting", "deploy") on a vault of millions of chunks would score hundreds of
thousands of rows (seconds) to return ten. Worse, FTS5's bm25 counts each phrase's rows
over the whole index once per query, so even a rowid-bounded bm25 query costs as much as
the phrase is common. So each unit of the query is first *probed*: its newest matches are
counted, up to a cap (``EXACT_ROWS``, a fraction of a millisecond).

- **Every unit is rare** (matches at most the cap): the exact path. FTS5's bm25 over every
  matching row picks the ``pool`` best, and chunks holding more of the query's units come
  first, bm25 within the same count (``Query.coverage``). Small vaults always take it.
- **Some units are common**: the bounded path. Candidates are gathered in the order
  coverage ranks them, and the gathering stops once the pool is full: rows holding every
  unit that counts (by FTS5's bm25 when those units are rare, all of them when a rare unit
  bounds them, the newest ``pool`` when all are common); then the rare units' best rows
  by bm25 and the rows holding a rare unit and a common one; then the newest ``pool``
  rows of each common unit (a memory's newest lines are its likeliest answers). Every
  candidate is scored in Python: coverage first, then a bm25 computed on its text, with
  the common units' row counts estimated from how far back their newest matches go.

So a search reads at most a few thousand rows whatever the vault's size. A caller asking for
more hits than the cap (``--limit 100000``) raises the cap with it: everything is ranked.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Sequence
from typing import Any, NamedTuple

from vaultmem.index.sql import in_parts
from vaultmem.search.query import Query, Unit

# A unit matching at most this many rows is ranked over all of them by FTS5's bm25.
EXACT_ROWS = 1000
# bm25 weights of the FTS columns body, heading, name.
WEIGHTS = "1.0, 0.5, 8.0"
# The columns a ranked row carries (``keyword.py`` makes hits of them).
COLUMNS = (
    "c.id, c.path, c.line_start, c.line_end, c.heading, c.text, c.kind, c.chunk_id,"
    " c.block_id, (SELECT names FROM files WHERE path = c.path)"
)
_FROM = "chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.path = c.path"
# bm25's term-frequency saturation and length normalisation (the usual values; FTS5's own).
_K1, _B = 1.2, 0.75

Row = tuple[Any, ...]


class _Probe(NamedTuple):
    """How many rows a unit matches: exact up to the cap, else an estimate; and how to ask
    FTS5 for a common unit's rows (a common prefix by its typed word: ``Unit.exact``)."""

    rows: float
    common: bool
    fts: str


def pool_size(limit: int) -> int:
    """How many candidates are ranked for ``limit`` hits."""
    return max(limit * 10, 200)


def ranked(
    conn: sqlite3.Connection,
    query: Query,
    where: list[str],
    params: list[Any],
    limit: int,
    ranked_for: int,
) -> list[tuple[Row, float]]:
    """The ``limit`` best chunks for ``query`` passing the filters ``where``/``params``
    (SQL over ``chunks c JOIN files f``), each with its score (higher is better), from the
    candidate pool of ``ranked_for`` hits."""
    pool = max(pool_size(ranked_for), limit)
    cap = max(EXACT_ROWS, pool)
    units = [u for u in query.units if u.fts]
    span = _id_span(conn)
    probes = {u: _probe(conn, u, cap, span) for u in units}
    common = [u for u in units if probes[u].common]
    if not common:
        return _exact(conn, query, where, params, pool)[:limit]
    rare = [u for u in units if not probes[u].common]
    return _bounded(conn, query, rare, common, probes, span, where, params, pool)[:limit]


def _exact(
    conn: sqlite3.Connection, query: Query, where: list[str], params: list[Any], pool: int
) -> list[tuple[Row, float]]:
    if not where:
        # No filters: let FTS5 pick the best candidates alone, then join only those rows.
        sql = (
            f"SELECT {COLUMNS}, m.rank FROM (SELECT rowid, bm25(chunks_fts, {WEIGHTS}) AS rank"
            " FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?) AS m"
            " JOIN chunks c ON c.id = m.rowid ORDER BY m.rank"
        )
    else:
        sql = (
            f"SELECT {COLUMNS}, bm25(chunks_fts, {WEIGHTS}) AS rank FROM {_FROM}"
            f" WHERE chunks_fts MATCH ? AND {' AND '.join(where)} ORDER BY rank LIMIT ?"
        )
    rows = conn.execute(sql, [query.match, *params, pool]).fetchall()
    rows.sort(key=lambda r: (-query.coverage(scored_text(r)), r[10]))
    return [(r[:10], -r[10]) for r in rows]


def _bounded(
    conn: sqlite3.Connection,
    query: Query,
    rare: list[Unit],
    common: list[Unit],
    probes: dict[Unit, _Probe],
    span: int,
    where: list[str],
    params: list[Any],
    pool: int,
) -> list[tuple[Row, float]]:
    filters = "".join(f" AND {w}" for w in where)
    ids: dict[int, None] = {}  # candidates, in a stable order

    def gather(match: str, order: str, limit: int) -> int:
        sql = f"SELECT c.id FROM {_FROM} WHERE chunks_fts MATCH ?{filters} {order} LIMIT ?"
        found = [r[0] for r in conn.execute(sql, [match, *params, limit])]
        ids.update(dict.fromkeys(found))
        return len(found)

    # First the rows holding every unit that counts (the most coverage any row can have):
    # when they fill the pool, rows holding part of the query can only rank below them.
    counting = [u for u in query.units if u.counts and u in probes]
    whole = " AND ".join(f"({probes[u].fts})" for u in counting)
    if not counting:
        found = 0
    elif not any(probes[u].common for u in counting):
        # Only units that give partial credit (a CJK run's bigrams) are common: FTS5's
        # bm25 over the counting units alone is bounded by their rows.
        found = gather(whole, f"ORDER BY bm25(chunks_fts, {WEIGHTS})", pool)
    elif any(not probes[u].common for u in counting):
        found = gather(whole, "", math.ceil(min(probes[u].rows for u in counting)))
    else:
        found = gather(whole, "ORDER BY chunks_fts.rowid DESC", pool)
    if found < pool and rare:
        # Then rows holding part of the query, rare units first (their idf ranks them
        # above rows holding common units only), ...
        gather(_any(rare, probes), f"ORDER BY bm25(chunks_fts, {WEIGHTS})", pool)
        # Rows holding a rare and a common unit: unless, with one of each and both
        # counting, they are the rows holding the whole query, gathered above.
        if len(rare) + len(common) > 2 or not all(u.counts for u in (*rare, *common)):
            rare_rows = sum(probes[u].rows for u in rare)
            both = f"({_any(rare, probes)}) AND ({_any(common, probes)})"
            gather(both, "", math.ceil(rare_rows))
    for unit in common:
        # ... and the newest rows of each common unit while the pool is not full.
        if len(ids) >= pool:
            break
        gather(probes[unit].fts, "ORDER BY chunks_fts.rowid DESC", pool)
    rows = _rows(conn, list(ids))
    return _scored(query, rows, probes, span)


def _scored(
    query: Query, rows: list[Row], probes: dict[Unit, _Probe], span: int
) -> list[tuple[Row, float]]:
    """Rows ranked by coverage, then by a bm25 over each unit's occurrences in the text."""
    weighted = [(u, _idf(probes[u].rows, span)) for u in query.units if u in probes]
    texts = [scored_text(r).lower() for r in rows]
    average = sum(map(len, texts)) / len(texts) if texts else 1.0
    keyed = []
    for row, lowered in zip(rows, texts, strict=True):
        norm = _K1 * (1 - _B + _B * len(lowered) / average)
        score = 0.0
        for unit, idf in weighted:
            tf = unit.occurrences(lowered)
            if tf:
                score += idf * tf * (_K1 + 1) / (tf + norm)
        covered = sum(u.credit(lowered) for u in query.units if u.counts)
        keyed.append((covered, score, row))
    keyed.sort(key=lambda k: (-k[0], -k[1]))
    return [(row, score) for _, score, row in keyed]


def _probe(conn: sqlite3.Connection, unit: Unit, cap: int, span: int) -> _Probe:
    """Count a unit's newest matches up to ``cap`` (FTS5 walks its rows newest first and
    stops there); past the cap, estimate the total from the rowids they span. A word asked
    as a prefix is probed by its typed word first: if that alone is common, so is the unit,
    and its rows are gathered by the typed word (a prefix as common as "user"* costs 60 ms
    to read at 100,000 notes: FTS5 merges every term it covers first)."""
    if unit.exact is not None:
        typed = _probe(conn, unit._replace(fts=unit.exact, exact=None), cap, span)
        if typed.common:
            return typed
    found = conn.execute(
        "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid DESC LIMIT ?",
        (unit.fts, cap + 1),
    ).fetchall()
    if len(found) <= cap:
        return _Probe(len(found), common=False, fts=unit.fts)
    reach = found[0][0] - found[-1][0] + 1
    return _Probe(min(span, len(found) * span / max(reach, 1)), common=True, fts=unit.fts)


def _id_span(conn: sqlite3.Connection) -> int:
    """About how many chunks the index holds (their ids' span: two index lookups; one
    ``SELECT min(id), max(id)`` would scan the table)."""
    low, high = conn.execute(
        "SELECT (SELECT min(id) FROM chunks), (SELECT max(id) FROM chunks)"
    ).fetchone()
    return int(high - low + 1) if high is not None else 0


def _idf(rows: float, span: int) -> float:
    return math.log(1 + (span - rows + 0.5) / (rows + 0.5))


def _any(units: Sequence[Unit], probes: dict[Unit, _Probe]) -> str:
    return " OR ".join(f"({probes[u].fts})" for u in units)


def _rows(conn: sqlite3.Connection, ids: list[int]) -> list[Row]:
    """The ranked-row columns of chunks ``ids`` (in no particular order)."""
    rows: list[Row] = []
    for part, marks in in_parts(conn, ids):
        rows += conn.execute(f"SELECT {COLUMNS} FROM chunks c WHERE c.id IN ({marks})", part)
    return rows


def scored_text(row: Row) -> str:
    """What a candidate row's coverage is counted on: its text, heading path and, unless
    it is a heading line, its note's names (see ``terms.chunk_names``)."""
    names = "" if row[6] == "heading" else row[9] or ""
    return f"{row[5]}\n{row[4]}\n{names}"
