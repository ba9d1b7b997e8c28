"""Keyword search over the shadow index: the entry point, its filters, and hits.

How a query is cut into units is ``query.py``'s work; which chunks it returns and in what
order is ``ranking.py``'s: chunks that hold *more of the query's units* come first, bm25
within the same count. So several terms are never required all at once, and a long Chinese
query that does not occur verbatim (``飞书插件配置``) still finds the chunks holding its
parts (its bigrams ``飞书``, ``插件``, ``配置`` ...), fuller ones first.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable
from typing import Any

from vaultmem.index.sql import in_parts
from vaultmem.search.query import parse_query
from vaultmem.search.ranking import COLUMNS, ranked

MAX_LIMIT = 1_000_000
# A chunk's date: its own field, else its note's date, else the day the note was modified.
_CHUNK_DATE = "COALESCE(c.date, f.date, date(f.mtime_ns / 1000000000, 'unixepoch', 'localtime'))"
_NOTE_SUFFIX = re.compile(r"\.(md|markdown)$", re.IGNORECASE)


class Hit:
    """One search result (the fields of ``--json`` output; see ``docs/json-output.md``).

    ``match_start``, ``match_end`` and ``matched`` default to ``line_start``,
    ``line_end`` and ``text``; ``results.refine`` may then widen line_start..line_end and
    text with context lines around the matched ones, and list in ``also_in`` the other
    places holding the same memory.
    """

    def __init__(
        self,
        path: str,
        line_start: int,
        line_end: int,
        heading: str,
        score: float,
        text: str,
        tags: list[str] | None = None,
        kind: str = "",
        chunk_id: str = "",
        block_id: str | None = None,
        tier: str | None = None,  # hot, warm or cold for a fact; "archive" in archive/
        superseded: bool = False,  # a struck-through line: superseded or forgotten
        match_start: int = 0,
        match_end: int = 0,
        matched: str = "",  # the matched chunk's text
        also_in: list[Hit] | None = None,
    ) -> None:
        self.path = path
        self.line_start = line_start
        self.line_end = line_end
        self.heading = heading
        self.score = score
        self.text = text
        self.tags: list[str] = [] if tags is None else tags
        self.kind = kind
        self.chunk_id = chunk_id
        self.block_id = block_id
        self.tier = tier
        self.superseded = superseded
        self.match_start = match_start or line_start
        self.match_end = match_end or line_end
        self.matched = matched or text
        self.also_in: list[Hit] = [] if also_in is None else also_in

    def __repr__(self) -> str:
        return f"<Hit {self.path}:{self.match_start} {self.score:.4f} {self.matched[:40]!r}>"

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
            "link": link_to(self.path, self.block_id, self.heading),
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


class Hits(list[Hit]):
    """A search's hits, best first, and the mode that found them: ``"keyword"``,
    ``"semantic"`` or ``"hybrid"`` (asked for, or what the default chose: hybrid once the
    vault has vectors, keyword when it has none or the model cannot load)."""

    def __init__(self, hits: Iterable[Hit] = (), mode: str = "keyword") -> None:
        super().__init__(hits)
        self.mode = mode


def link_to(path: str, block_id: str | None, heading: str = "") -> str:
    """How to cite a line so that Obsidian opens it: ``[[memory/2026-11-20#^id]]`` when it
    has a block id (Obsidian opens it at the line); else the section it is in,
    ``[[notes/Trip#Plans#Day one]]`` (vaultmem never writes ids into a person's notes);
    else the note, ``[[MEMORY]]``. The path keeps a link from resolving to a same-named
    note elsewhere in the vault. ``recall.lookup.get`` reads every form back."""
    note = note_name(path)
    if block_id:
        return f"[[{note}#^{block_id}]]"
    return f"[[{note}{''.join('#' + part for part in heading_parts(heading))}]]"


# What Obsidian does not allow in a link (its help, "Invalid characters"): a heading that
# holds one is linked with a space in its place, as Obsidian's own heading links are.
_NOT_IN_LINK = re.compile(r"%%|[\[\]#|^:\\]")


def heading_parts(heading: str) -> list[str]:
    """A chunk's heading path (``Plans > Day one``) as a link's parts, each with what a
    link may not hold made a space; parts left empty are dropped."""
    parts = (" ".join(_NOT_IN_LINK.sub(" ", part).split()) for part in heading.split(" > "))
    return [part for part in parts if part]


def note_name(path: str) -> str:
    """A note's path as a link names it: without ``.md``."""
    return _NOTE_SUFFIX.sub("", path)


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
    ranked_for: int | None = None,
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
        ranked_for: rank the candidate pool of a search for this many hits, and return up
            to ``limit`` of it (hybrid search's longer list for fusion, whose first
            ``ranked_for`` are then the keyword search's own); default ``limit``.

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
    if not match:
        sql = (
            f"SELECT {COLUMNS} FROM chunks c JOIN files f ON f.path = c.path"
            f" WHERE {' AND '.join(where)} ORDER BY c.path, c.line_start LIMIT ?"
        )
        found = [(row, 0.0) for row in conn.execute(sql, [*params, limit])]
    else:
        found = ranked(conn, parsed, where, params, limit, min(ranked_for or limit, MAX_LIMIT))
    hits = [Hit(r[1], r[2], r[3], r[4], score, r[5], [], r[6], r[7], r[8]) for r, score in found]
    _attach_tags(conn, hits, [r[0] for r, _ in found])
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
    rows = {
        r[0]: r
        for part, marks in in_parts(conn, ids)
        for r in conn.execute(
            "SELECT id, path, line_start, line_end, heading, text, kind, chunk_id, block_id"
            f" FROM chunks WHERE id IN ({marks})",
            part,
        )
    }
    kept = [(i, s) for i, s in zip(ids, scores, strict=True) if i in rows]
    hits = [
        Hit(r[1], r[2], r[3], r[4], score, r[5], [], r[6], r[7], r[8])
        for r, score in ((rows[i], s) for i, s in kept)
    ]
    _attach_tags(conn, hits, [i for i, _ in kept])
    return hits


def _attach_tags(conn: sqlite3.Connection, hits: list[Hit], ids: list[int]) -> None:
    if not hits:
        return
    by_chunk: dict[int, list[str]] = {}
    for part, marks in in_parts(conn, ids):
        for chunk, tag in conn.execute(
            f"SELECT chunk, tag FROM tags WHERE chunk IN ({marks})", part
        ):
            by_chunk.setdefault(chunk, []).append(tag)
    by_path: dict[str, list[str]] = {}
    for paths, marks in in_parts(conn, sorted({h.path for h in hits})):
        # "+chunk": without statistics SQLite would pick the index on chunk for "IS NULL" and
        # walk every front-matter tag of the vault (8 ms at 100,000 notes), not the paths'.
        for path, tag in conn.execute(
            f"SELECT path, tag FROM tags WHERE +chunk IS NULL AND path IN ({marks})", paths
        ):
            by_path.setdefault(path, []).append(tag)
    for hit, chunk_id in zip(hits, ids, strict=True):
        hit.tags = list(dict.fromkeys(by_chunk.get(chunk_id, []) + by_path.get(hit.path, [])))
