"""Search results an agent can use: what ``Vault.search`` makes of the ranked candidates of
``search.search`` (``refine``), and what names one memory (``memories_of``, which the
context block of ``recall/context_block.py`` shares). See ``docs/search.md``, "Results".

1. **One memory once.** A daily-note line, the facts distilled from it
   (``[source:: [[DATE#^id]]]``) and ``MEMORY.md``'s mention of those facts (``(fID)``)
   are one memory: the best-ranked of them stands for it and lists the others in
   ``also_in``. Any note's line cited as a fact's source joins its fact the same way.
2. **Superseded below their replacement.** A struck fact (``[superseded_by:: ]``), or a
   line whose fact is struck, ranks right below the fact that replaced it when both are
   found, so the current answer is read first; both stay, the old one flagged.
3. **Context.** A hit carries the lines around it, like ``grep -C N``: whole blocks of
   its own section, up to ``context_lines`` lines before and as many after (a dialogue
   turn comes with the question before it and the reply after it). Never struck lines,
   another agent's lines, headings or the front matter, and never around the lines of
   ``facts/``, ``archive/`` and ``MEMORY.md``, each written to stand alone.
   ``line_start``/``line_end`` and ``text`` cover the context; ``match_start``/``match_end``
   are the matched lines. No line is shown twice: context stops at another hit's lines.
   Hits are never folded into one another's context: next to each other in an agent's
   daily note are separate memories, and each keeps its own hit, id and flags.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable
from typing import NamedTuple

from vaultmem.config import MemoryConfig
from vaultmem.index.database import citing
from vaultmem.index.sql import in_parts
from vaultmem.memory.pipeline.facts import (
    Entry,
    Fact,
    daily_date,
    daily_name,
    long_note_key,
    may_be_struck,
    parse_entry,
    source_key,
)
from vaultmem.memory.pipeline.tiers import current_score, tier
from vaultmem.notes.parse import reader_text
from vaultmem.search.keyword import Hit

# MEMORY.md cites a fact as ``([[facts/x#^fID|fID]])``, a link Obsidian follows to the
# fact line; ``(fID)`` in blocks written before links is still read. A link's target holds
# no "[" (Obsidian allows none): a line of "([[" is not read to its end from each of them.
MENTION = re.compile(r"\((?:\[\[[^\[\]|\n]*\|)?([A-Za-z0-9-]+)(?:\]\])?\)\s*$")
# A topic page's line of a fact ends with a link to it: ``... [[facts/people#^fID]]``.
_FACT_LINK_END = re.compile(r"\[\[[^\[\]|#\n]*#\^([A-Za-z0-9-]+)(?:\|[^\[\]\n]*)?\]\]\s*$")
_GENERATED_PAGES = ("MEMORY.md", "topics/")  # pages whose lines cite the facts they show
_LINKED_ID = re.compile(r"#\^([A-Za-z0-9-]+)")
_STANDALONE = ("facts/", "archive/", "MEMORY.md")  # one memory a line: no context
_NOT_CONTEXT = frozenset({"heading", "frontmatter"})


class Memory(NamedTuple):
    """What names the memory a hit holds, and whether it is still current."""

    keys: frozenset[str]  # "path:line", "DATE#id", fact ids, a fact's sources
    replaced_by: frozenset[str] = frozenset()  # ids of the facts that replaced it
    stale: bool = False  # a fact distilled from this line is struck: history now


def candidates(limit: int, ceiling: int) -> int:
    """How many ranked hits ``refine`` should get so that, after one memory's hits
    collapse and overlapping hits fold, ``limit`` distinct hits are still left."""
    return min(ceiling, limit * 3 + 10)


def refine(
    conn: sqlite3.Connection,
    hits: list[Hit],
    limit: int,
    context_lines: int,
    *,
    agent: str | None = None,
    daily_folder: str,
) -> list[Hit]:
    """The ranked ``hits`` as results (see the module docstring): one per memory, the
    superseded below their replacement, each with its context; at most ``limit``. Lines
    of the notes in ``daily_folder`` are keyed ``DATE#id``, as facts cite them."""
    chosen = _replaced_below(_one_per_memory(conn, hits, daily_folder))[:limit]
    in_note: dict[str, list[Hit]] = {}  # the chosen hits of each note, in rank order
    for hit in chosen:
        in_note.setdefault(hit.path, []).append(hit)
    at_in_note: Counter[str] = Counter()  # this hit's place among its note's hits
    for hit in chosen:
        # Context never covers another hit's lines: better hits keep theirs (context
        # included), the lower ones their matched lines.
        neighbours, at = in_note[hit.path], at_in_note[hit.path]
        at_in_note[hit.path] += 1
        taken = [(h.line_start, h.line_end) for h in neighbours[:at]]
        taken += [(h.match_start, h.match_end) for h in neighbours[at + 1 :]]
        _add_context(conn, hit, taken, context_lines, agent)
        hit.text = reader_text(hit.text)  # as Obsidian shows it: no comments
    return chosen


# -- one memory once ------------------------------------------------------------------


def memories_of(conn: sqlite3.Connection, hits: list[Hit], daily_folder: str) -> list[Memory]:
    """``memory_of`` each hit, the facts citing their lines read in one query."""
    links = {id(hit): _links_to(hit, daily_folder) for hit in hits}
    cited = citing(conn, [link for spellings in links.values() for link in spellings])
    return [
        memory_of(hit, daily_folder, [f for link in links[id(hit)] for f in cited.get(link, ())])
        for hit in hits
    ]


def memory_of(
    hit: Hit, daily_folder: str, citing_facts: Iterable[tuple[str | None, str]]
) -> Memory:
    """The keys of the memory a hit's matched line holds: its place, its ``DATE#id`` in
    a daily note, the facts citing it as their source (``citing_facts``, their block id
    and text: a struck one makes it stale), a fact's id and sources, the fact a line of
    ``MEMORY.md`` or a topic page shows, the line whose long message a note of ``long/``
    holds whole."""
    first = hit.matched.split("\n", 1)[0]
    keys = {f"{hit.path}:{hit.match_start}"}
    replaced: set[str] = set()
    stale = False
    is_fact = hit.path.startswith(("facts/", "archive/"))
    entry = parse_entry(first, hit.match_start) if is_fact else None
    if entry is not None:
        fact = Fact(hit.path, entry)
        keys |= {fact.id} if fact.id else set()
        keys |= set(fact.sources)
        replaced |= _replacements(entry)
    elif hit.path.startswith(_GENERATED_PAGES):
        cited = fact_cited(first)
        keys |= {cited} if cited else set()
    elif (whole := long_note_key(hit.path)) is not None:  # a long message's whole text
        keys.add(whole)
    elif hit.block_id:
        day = daily_name(hit.path, daily_folder)
        if day:
            keys.add(source_key(day, hit.block_id))
        for block, text in citing_facts:
            keys |= {block} if block else set()
            line = text.split("\n", 1)[0]
            if not may_be_struck(line):
                continue  # most citing facts are live: not parsed to be told so
            fact_entry = parse_entry(line)
            if fact_entry is not None and fact_entry.struck:
                stale = True
                replaced |= _replacements(fact_entry)
    return Memory(frozenset(keys), frozenset(replaced), stale)


def fact_cited(line: str) -> str | None:
    """The id of the fact a line of ``MEMORY.md`` or a topic page shows, by the mention or
    link it ends with; ``None`` for any other line."""
    found = MENTION.search(line) or _FACT_LINK_END.search(line)
    return found.group(1) if found else None


def _replacements(entry: Entry) -> set[str]:
    """Ids of the facts a struck line names as its replacement."""
    if not entry.struck:
        return set()
    return {m for value in entry.values("superseded_by") for m in _LINKED_ID.findall(value)}


def _links_to(hit: Hit, daily_folder: str) -> list[str]:
    """The spellings of a link a fact's ``[source:: ]`` or ``[confirmed_by:: ]`` may name
    the hit's line by: ``[[DATE#^id]]`` for a daily note, ``[[note#^id]]`` by name and
    ``[[folder/note#^id]]`` by path (none for a line without a block id)."""
    if not hit.block_id:
        return []
    day = daily_date(hit.path, daily_folder)
    stem = hit.path.removesuffix(".md")
    names = {stem, stem.rsplit("/", 1)[-1], *([day] if day else [])}
    return [f"[[{name}#^{hit.block_id}]]" for name in sorted(names)]


class _Group:
    __slots__ = ("hit", "keys", "rank", "replaced_by")

    def __init__(self, hit: Hit, keys: set[str], replaced_by: set[str], rank: int) -> None:
        self.hit = hit  # the best-ranked hit of the memory, which stands for it
        self.keys = keys
        self.replaced_by = replaced_by
        self.rank = rank  # groups are made in rank order


def _one_per_memory(conn: sqlite3.Connection, hits: list[Hit], daily_folder: str) -> list[_Group]:
    """Hits sharing a key are one memory (also through a third hit: a daily line and
    ``MEMORY.md`` meet through the fact); the first stands for it, in rank order."""
    groups: list[_Group] = []
    # Which group holds each key: comparing every hit with every group before it took
    # minutes for a search asked for every hit of a common word (30,000 hits).
    owner: dict[str, _Group] = {}
    for rank, (hit, memory) in enumerate(
        zip(hits, memories_of(conn, hits, daily_folder), strict=True)
    ):
        found = {id(g): g for g in (owner.get(key) for key in memory.keys) if g is not None}
        if not found:
            group = _Group(hit, set(memory.keys), set(memory.replaced_by), rank)
            groups.append(group)
            owner.update(dict.fromkeys(group.keys, group))
            continue
        best, *others = sorted(found.values(), key=lambda g: g.rank)
        for other in others:  # this hit bridges two memories found apart: they are one
            groups.remove(other)
            _absorb(best, other.hit, other.keys, other.replaced_by)
            owner.update(dict.fromkeys(other.keys, best))
        _absorb(best, hit, memory.keys, memory.replaced_by)
        owner.update(dict.fromkeys(memory.keys, best))
    return groups


def _absorb(group: _Group, hit: Hit, keys: Iterable[str], replaced: Iterable[str]) -> None:
    """Add a hit (and the places it stood for) to a memory found before it."""
    group.keys.update(keys)
    group.replaced_by.update(replaced)
    for place in [hit, *hit.also_in]:
        if not any(_same_place(place, p) for p in [group.hit, *group.hit.also_in]):
            group.hit.also_in.append(place)
    hit.also_in = []


def _same_place(a: Hit, b: Hit) -> bool:
    return a.path == b.path and a.match_start == b.match_start


def _replaced_below(groups: list[_Group]) -> list[Hit]:
    """Each memory that a later-ranked fact replaced moves to just below that fact."""
    order = list(groups)
    for group in [g for g in groups if g.replaced_by]:
        at = order.index(group)
        later = [i for i in range(at + 1, len(order)) if order[i].keys & group.replaced_by]
        if later:
            order.insert(later[0], order.pop(at))  # after the pop, later[0] is one past it
    return [g.hit for g in order]


# -- context --------------------------------------------------------------------------


class _Block(NamedTuple):
    rowid: int
    line_start: int
    line_end: int
    heading: str
    kind: str
    text: str


def _add_context(
    conn: sqlite3.Connection,
    hit: Hit,
    taken: list[tuple[int, int]],
    lines: int,
    agent: str | None,
) -> None:
    """Widen ``hit`` to the blocks around it that fit in ``lines`` lines each side."""
    if lines <= 0 or hit.path.startswith(_STANDALONE) or hit.kind in _NOT_CONTEXT:
        return
    if hit.matched.count("\n") != hit.match_end - hit.match_start:
        return  # a part of a split long block: its text is not its lines
    rows = [
        _Block(*row)
        for row in conn.execute(
            "SELECT id, line_start, line_end, heading, kind, text FROM chunks"
            " WHERE path = ? AND line_end >= ? AND line_start <= ? ORDER BY line_start, id",
            (hit.path, hit.line_start - lines, hit.line_end + lines),
        )
    ]
    hidden = _other_agents(conn, [r.rowid for r in rows], agent)
    before = [r for r in reversed(rows) if r.line_end < hit.line_start]
    after = [r for r in rows if r.line_start > hit.line_end]
    first = _walk(before, hit, taken, hidden, lambda r: r.line_start >= hit.line_start - lines)
    then = _walk(after, hit, taken, hidden, lambda r: r.line_end <= hit.line_end + lines)
    if not first and not then:
        return
    pieces = [*reversed(first), _Block(0, hit.line_start, hit.line_end, "", "", hit.text), *then]
    text = pieces[0].text
    for previous, piece in zip(pieces, pieces[1:], strict=False):
        text += "\n" * (piece.line_start - previous.line_end) + piece.text  # blank lines kept
    hit.line_start, hit.line_end, hit.text = pieces[0].line_start, pieces[-1].line_end, text


def _walk(
    blocks: list[_Block],
    hit: Hit,
    taken: list[tuple[int, int]],
    hidden: set[int],
    fits: Callable[[_Block], bool],
) -> list[_Block]:
    """The blocks nearest the hit, outwards, while each may be context (the lines stay
    one unbroken range, so the first block that may not ends the walk)."""
    # A block longer than chunk_max_chars is split into parts sharing its lines: it is
    # never context (it is not a few lines, and its parts do not rebuild its text).
    spans = Counter((b.line_start, b.line_end) for b in blocks)
    picked: list[_Block] = []
    for block in blocks:
        if (
            not fits(block)
            or block.heading != hit.heading
            or block.kind in _NOT_CONTEXT
            or block.rowid in hidden
            or spans[(block.line_start, block.line_end)] > 1
            or any(a <= block.line_end and block.line_start <= b for a, b in taken)
            or _struck(block.text)
        ):
            break
        picked.append(block)
    return picked


def _struck(text: str) -> bool:
    entry = parse_entry(text.split("\n", 1)[0])
    return entry is not None and entry.struck


def _other_agents(conn: sqlite3.Connection, rowids: list[int], agent: str | None) -> set[int]:
    """The chunks among ``rowids`` that name another agent (search leaves those out)."""
    if agent is None or not rowids:
        return set()
    return {
        row[0]
        for part, marks in in_parts(conn, rowids)
        for row in conn.execute(
            f"SELECT chunk FROM fields WHERE chunk IN ({marks}) AND key = 'agent'"
            " AND lower(value) <> lower(?)",
            [*part, agent],
        )
    }


def mark_hits(hits: list[Hit], config: MemoryConfig, today: dt.date) -> None:
    """Set each hit's ``tier`` (a fact's, by its importance, kind and age as consolidation
    scores it, without the access count; ``archive`` in ``archive/``) and ``superseded``
    (its line is struck through: superseded or forgotten)."""
    for hit in hits:
        entry = parse_entry(hit.text.split("\n", 1)[0], hit.line_start)
        hit.superseded = entry is not None and entry.struck
        if hit.path.startswith("archive/"):
            hit.tier = "archive"
        elif hit.path.startswith("facts/") and entry is not None:
            fact = Fact(hit.path, entry)
            score = current_score(
                fact.importance, fact.kind, fact.day, today, pinned=fact.pinned, config=config
            )
            hit.tier = tier(score, config)
