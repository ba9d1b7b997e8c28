"""Recall for agents: the prompt context block (``lookup.py`` has ``recent`` and
``get``, which read the same daily notes through ``daily_items`` and ``read_text``).

``context`` builds the block an agent puts in its prompt (``docs/context.md``): the line
``<!-- vaultmem:context -->`` (so ``remember`` and capture know an echo of it and skip
it), then ``MEMORY.md``'s generated block, the recall for a query, and today's and
yesterday's daily notes (``memory/DATE.md`` and OpenClaw's ``memory/DATE-slug.md``),
never over the budget as ``context.count_tokens`` counts the whole text. With a query,
the recall gets the budget first (its best hit always, cut short if it must be) but for
``MEMORY.md``'s share (``memory_share``), whose lines on the query come first; the daily
notes get what is left. Each recalled line says whose words and when, under its note's
link. One memory is shown once: a daily-note line, the facts distilled from it
(``[source:: [[DATE#^id]]]``), the topic-page lines and ``MEMORY.md``'s mention of those
facts are one item. Superseded memories come last, marked; forgotten ones never.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultmem.errors import VaultmemError
from vaultmem.memory.language.roles import PLAIN_ROLES, kept_role
from vaultmem.memory.pipeline.facts import (
    Entry,
    Fact,
    daily_date,
    daily_name,
    daily_path,
    parse_entries,
    parse_entry,
    source_key,
    without_any_field,
    without_fields,
)
from vaultmem.notes.files import is_file, read_note, resolve_in_vault, stat_note
from vaultmem.notes.generated_block import (
    BEGIN,
    CONTEXT_MARKER,
    ECHO_MARKERS,
    END,
    MIN_BUDGET,
    block_of,
    count_tokens,
)
from vaultmem.notes.parse import COMMENT, parse_document
from vaultmem.search.keyword import Hit, link_to, note_name
from vaultmem.search.results import fact_cited, mark_hits, memories_of

if TYPE_CHECKING:
    from vaultmem.vault_view import VaultView

RECALL_HITS = 30  # hits asked of search at least
_TOKENS_PER_HIT = 30  # and one more for each so many tokens of budget (a line is more)
_MOST_HITS = 200
_NOT_MEMORIES = frozenset({"frontmatter", "heading"})  # block kinds a recall leaves out
_WORDS_MAX = 300  # characters of one line's words shown in the block
_HEADING = re.compile(r"#{1,6}\s")
_BOOKKEEPING = ("session", "agent")  # fields a prompt does not need (ids, not words)


# -- the context block ----------------------------------------------------------------


@dataclass
class Item:
    """One line of the block, and where it comes from."""

    shown: str  # the line as it stands in the block
    text: str  # its words
    path: str
    line: int
    block_id: str | None = None
    link: str = ""  # [[note#^id]] or [[note#Heading]], which Obsidian opens (``link_to``)
    keys: frozenset[str] = frozenset()  # what makes two items one memory
    group: str = ""  # the heading it is shown under in its section ("" for none)
    order: tuple[Any, ...] = ()  # where it stands in its section: group, then line
    rank: int = 0  # its place among a query's hits, best first
    said_by: str = ""  # who said the line, as its role or "Name: " says (``user``, ``Melanie``)

    def as_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "path": self.path,
            "line": self.line,
            "block_id": self.block_id,
            "link": self.link,
        }


@dataclass
class Part:
    """A section of the block: its title and the items the budget left in it."""

    title: str
    items: list[Item] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"title": self.title, "items": [item.as_dict() for item in self.items]}

    def render(self) -> str:
        """The section as text: its heading, then its items in their order, each group's
        heading before its first item."""
        lines = [f"## {self.title}"]
        group: str | None = None
        for item in sorted(self.items, key=lambda item: item.order):
            if item.group != group and item.group:
                lines.append(item.group)
            group = item.group
            lines.append(item.shown)
        return "\n".join(lines)


@dataclass
class ContextBlock:
    """The prompt block (``text``), its size and the sections it holds."""

    text: str
    tokens: int
    budget: int
    sections: list[Part]
    recalled: list[Item] = field(default_factory=list, repr=False)  # best first

    def as_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "tokens": self.tokens,
            "budget": self.budget,
            "sections": [part.as_dict() for part in self.sections],
        }


def memory_share(budget: int) -> int:
    """The tokens ``MEMORY.md`` may take beside a query's recall: a share that grows
    with the budget (B/24,000 of it, at most a quarter), so a small block is all recall
    and a large one still carries the profile."""
    return min(budget // 4, budget * budget // 24_000)


def build_context(
    vault: VaultView, query: str | None, budget: int, agent: str | None, today: dt.date
) -> ContextBlock:
    """The block for ``query`` (or none) within ``budget`` tokens (see the module doc).

    Raises:
        VaultmemError: ``budget`` is below ``MIN_BUDGET``.
    """
    if budget < MIN_BUDGET:
        raise VaultmemError(f"the budget must be at least {MIN_BUDGET} tokens, got {budget}")
    memory = Part("MEMORY.md")
    recall = Part("Recall")
    filler = _Filler(budget, count_tokens(CONTEXT_MARKER))
    memory_lines = _memory_items(vault)
    if query and query.strip():
        live, replaced = _recall_items(vault, query, agent, today, budget)
        live = _asked_of_first(live, query)
        if live:
            filler.best(recall, live[0])
        filler.fill(recall, live[1:], limit=budget - memory_share(budget))
        shown = {key for item in recall.items for key in item.keys}
        found = {key for item in live + replaced for key in item.keys}
        # The lines of MEMORY.md that bear on the query first, each as its memory's whole
        # words (a profile line shows a fact's gist), then the rest in order.
        whole = {key: item for item in live for key in item.keys}
        bearing = [
            _in_memory_md(i, whole) for i in memory_lines if i.keys & found and not i.keys & shown
        ]
        rest = [i for i in memory_lines if not i.keys & found]
        filler.fill(memory, bearing + rest)
        taken = shown | {key for item in memory.items for key in item.keys}
        # The room left: the rest, a memory made history (marked) a few places after
        # where its relevance ranks it, so the current one comes first.
        rest_live = [i for i in live if not i.keys & taken]
        filler.fill(recall, _after_current(rest_live, replaced))
    else:
        filler.fill(memory, memory_lines, stop_early=True)
    on_show = {key for part in (memory, recall) for item in part.items for key in item.keys}
    days: list[Part] = []
    for day, name in ((today, "today"), (today - dt.timedelta(days=1), "yesterday")):
        for rel in daily_notes(vault, day):  # a section per note: its title says where
            part = Part(f"{rel} ({name})")
            # The days as the person left them: the assistant's own lines (mostly what it
            # was doing) only through recall, when a query asks for them.
            lines = [
                i
                for i in note_items(vault, rel, agent)
                if not i.keys & on_show and i.said_by.casefold() != "assistant"
            ]
            filler.fill_latest(part, lines)
            days.append(part)
    parts = [p for p in (memory, recall, *days) if p.items]
    text = "\n\n".join([CONTEXT_MARKER, *(part.render() for part in parts)])
    return ContextBlock(text, count_tokens(text), budget, parts, recall.items)


def _asked_of_first(items: list[Item], query: str) -> list[Item]:
    """``items`` (best first) with the lines of other speakers ``_OTHER_SPEAKER_LAG``
    places lower when the query names one of their speakers: asked what Melanie did, the
    lines Melanie said come before the ones Caroline said to her (the words they share,
    "Melanie", are the name she is called by)."""
    # A plain role (user, assistant) is nobody's name.
    said = [item.said_by if item.said_by.casefold() not in PLAIN_ROLES else "" for item in items]
    asked = [name for name in set(said) if name and _names(query, name)]
    if len(asked) != 1:
        return items
    lag = [_OTHER_SPEAKER_LAG if name not in ("", asked[0]) else 0 for name in said]
    return [items[i] for i in sorted(range(len(items)), key=lambda i: i + lag[i])]


def _names(query: str, name: str) -> bool:
    """Whether the query names ``name``: as a word, any case; a Chinese name anywhere."""
    if not name.isascii():
        return name in query
    return re.search(rf"(?i)(?<!\w){re.escape(name)}(?!\w)", query) is not None


def _after_current(rest: list[Item], replaced: list[Item]) -> list[Item]:
    """``rest`` (live items, best first) with each of ``replaced`` put ``_HISTORY_LAG``
    places after the live items ranked above it (``Item.rank``)."""
    merged = list(rest)
    for item in sorted(replaced, key=lambda i: i.rank, reverse=True):
        above = sum(1 for other in rest if other.rank < item.rank)
        merged.insert(min(len(merged), above + _HISTORY_LAG), item)
    return merged


def _in_memory_md(line: Item, whole: dict[str, Item]) -> Item:
    """A ``MEMORY.md`` line as its recalled memory (all its words and its link) under the
    line's heading; the line itself when recall holds no live memory of it."""
    found = next((whole[key] for key in sorted(line.keys) if key in whole), None)
    return line if found is None else replace(found, group=line.group, keys=line.keys | found.keys)


class _Filler:
    """Gives lines to sections while the budget lasts. A line's cost is its tokens, plus
    its section's heading for the section's first line and its group's heading for the
    group's first; blank lines cost nothing, so sections joined by newlines cost the sum
    of their lines (``count_tokens`` splits on spaces)."""

    def __init__(self, budget: int, reserved: int) -> None:
        self.budget = budget
        self.left = budget - reserved
        self._counted: dict[str, int] = {}  # a line or heading is weighed once

    def _tokens(self, text: str) -> int:
        counted = self._counted.get(text)
        if counted is None:
            counted = self._counted[text] = count_tokens(text)
        return counted

    def _cost(self, part: Part, item: Item) -> int:
        cost = self._tokens(item.shown)
        if not part.items:
            cost += self._tokens(f"## {part.title}")
        if item.group and not any(other.group == item.group for other in part.items):
            cost += self._tokens(item.group)
        return cost

    def take(self, part: Part, item: Item, limit: int | None = None) -> bool:
        """Add the item if it fits (and the block stays within ``limit`` tokens)."""
        cost = self._cost(part, item)
        if cost > self.left or (limit is not None and self.budget - self.left + cost > limit):
            return False
        part.items.append(item)
        self.left -= cost
        return True

    def fill(
        self, part: Part, items: Iterable[Item], limit: int | None = None, stop_early: bool = False
    ) -> None:
        """Take items in order; a line that does not fit ends the section when
        ``stop_early`` (a block keeps its order), else the next one is tried."""
        for item in items:
            if not self.take(part, item, limit) and stop_early:
                return

    def fill_latest(self, part: Part, items: list[Item]) -> None:
        """The last lines that fit, shown in the note's order (the newest matter most)."""
        for item in reversed(items):
            if not self.take(part, item):
                break

    def best(self, part: Part, item: Item) -> None:
        """The best hit: whole if it fits, else its words cut short until they do, and
        when even its citation cannot fit, its words alone, outside any group."""
        if self.take(part, item):
            return
        for cite in (True, False):
            words = item.text
            while words:
                if self.take(part, _shortened(item, words, cite)):
                    return
                words = words[: min(len(words) - 1, len(words) * 3 // 4)]


def _shortened(item: Item, words: str, cite: bool) -> Item:
    short = words if words == item.text else words.rstrip() + "…"
    if cite:
        shown, group = _said(item, short), item.group
    else:
        shown, group = f"- {short}", ""
    return replace(item, shown=shown, text=short, group=group)


def _memory_items(vault: VaultView) -> list[Item]:
    """``MEMORY.md``'s generated block, line by line, each under the heading above it
    (one level below the block's sections: its top headings become ###); a ``MEMORY.md``
    without the markers (an OpenClaw workspace) is shown whole."""
    text = read_text(vault, "MEMORY.md")
    if text is None:
        return []
    lines = text.split("\n")
    if block_of(text) is not None:
        begin = next(n for n, line in enumerate(lines) if BEGIN in line)
        end = next(n for n, line in enumerate(lines) if END in line)
        numbered = list(enumerate(lines[begin + 1 : end], begin + 2))
    else:
        blocks = parse_document(text).blocks
        start = min((b.line_start for b in blocks if b.kind != "frontmatter"), default=1)
        numbered = list(enumerate(lines[start - 1 :], start))
    levels = [len(line) - len(line.lstrip("#")) for _, line in numbered if _HEADING.match(line)]
    deeper = "#" * max(0, 3 - min(levels, default=3))
    items = []
    heading = ""
    link = link_to("MEMORY.md", None)
    for number, line in numbered:
        if _HEADING.match(line):
            heading = deeper + line.rstrip()
            link = link_to("MEMORY.md", None, line.strip().lstrip("#").strip())
            continue
        if not line.strip() or any(marker in line for marker in ECHO_MARKERS):
            continue
        cited = fact_cited(line)
        keys = frozenset({f"MEMORY.md:{number}", *([cited] if cited else [])})
        items.append(
            Item(
                line.rstrip(),
                line.strip(),
                "MEMORY.md",
                number,
                link=link,
                keys=keys,
                group=heading,
                order=(number,),
            )
        )
    return items


def _recall_items(
    vault: VaultView, query: str, agent: str | None, today: dt.date, budget: int
) -> tuple[list[Item], list[Item]]:
    """The hits for ``query``, one item per memory, best first: the live ones, and those
    struck or made history by a later fact (marked; ``_after_current`` places them).
    Marker lines, front matter, headings and lines of fields alone are not memories."""
    limit = min(max(budget // _TOKENS_PER_HIT, RECALL_HITS), _MOST_HITS)
    hits = vault.search(query, limit=limit, agent=agent, track=False, today=today, context=0)
    folder = vault.config.vault.daily_folder
    live: list[Item] = []
    replaced: list[Item] = []
    seen: set[str] = set()
    generated: dict[str, range] = {}
    memories = [
        hit
        for found in hits
        if found.kind not in _NOT_MEMORIES
        and (hit := _as_memory(vault, found, today, generated)) is not None
    ]
    pairs = zip(memories, memories_of(vault.db.conn, memories, folder), strict=True)
    for rank, (hit, memory) in enumerate(pairs):
        item = _recalled(hit, folder)
        if item is None or memory.keys & seen or item.keys & seen:
            continue
        item = replace(item, keys=item.keys | memory.keys, rank=rank)
        seen |= item.keys
        if _forgotten(hit) or (memory.stale and not memory.replaced_by):
            continue  # taken back by ``forget``: not a memory any more
        if hit.superseded or memory.stale:
            marked = item.shown.replace("- ", "- (superseded) ", 1)
            replaced.append(replace(item, shown=marked))
        else:
            live.append(item)
    return live, replaced


_HISTORY_LAG = 3  # places a replaced memory goes below its rank
_OTHER_SPEAKER_LAG = 6  # places another speaker's line goes below its rank (``_asked_of_first``)


def _forgotten(hit: Hit) -> bool:
    first = hit.matched.split("\n", 1)[0]
    if "forgotten" not in first:
        return False  # no field says so: not parsed to be told
    entry = parse_entry(first)
    return entry is not None and entry.field("forgotten") is not None


def _recalled(hit: Hit, daily_folder: str) -> Item | None:
    """A hit as a line of the recall: whose words (a daily line's speaker) and when (its
    note's date; a fact's ``[when:: ]`` and the day it was learnt), under its note's link;
    ``None`` when its line holds no words (a marker, fields alone)."""
    first = hit.matched.split("\n", 1)[0]
    entry = parse_entry(first, hit.match_start)
    words = entry.text if entry is not None else without_any_field(first)
    words = " ".join(COMMENT.sub(" ", words).split()).strip("~").strip()
    if not any(char.isalnum() for char in words):
        return None
    key = "said:" + " ".join(words.casefold().split())
    if len(words) > _WORDS_MAX:
        words = words[: _WORDS_MAX - 1] + "…"
    note = note_name(hit.path)
    day = daily_date(hit.path, daily_folder)
    said = words
    if entry is not None and entry.role:
        said = f"{entry.role}: {words}"
    said_by = entry.role if entry is not None and entry.role else kept_role(words)
    if hit.path.startswith(("facts/", "archive/")) and entry is not None:
        said += _fact_dates(Fact(hit.path, entry))
        order: tuple[Any, ...] = (0, note, hit.match_start)
    elif day is not None:
        order = (2, day, note, hit.match_start)
    else:
        order = (1, note, hit.match_start)
    item = Item(
        "",
        said,
        hit.path,
        hit.match_start,
        hit.block_id,
        _link(hit),
        keys=frozenset({key}),
        group=f"### [[{note}]]",
        order=order,
        said_by=said_by,
    )
    return replace(item, shown=_said(item, said))


def _said(item: Item, words: str) -> str:
    """The line of an item: its words, then its block id (its group's heading names the
    note, so the two make the link Obsidian opens)."""
    return f"- {words} ^{item.block_id}" if item.block_id else f"- {words}"


def _fact_dates(fact: Fact) -> str:
    """`` (DAY)``: when a fact was learnt, and what its ``[when:: ]`` says if it differs."""
    learnt = fact.day.isoformat() if fact.day else None
    when = fact.entry.field("when")
    dates = [d for d in (learnt, when if when != learnt else None) if d]
    return f" ({'; when '.join(dates)})" if dates else ""


def _as_memory(
    vault: VaultView, hit: Hit, today: dt.date, generated: dict[str, range]
) -> Hit | None:
    """The memory a hit holds. A line of vaultmem's generated block in ``MEMORY.md`` or
    a topic page repeats a fact: it stands for the fact's own line (which says where the
    memory lives), or for nothing when it cites none (a count, a summary). Any other hit
    is itself. ``generated`` keeps each page's block lines between calls."""
    if not hit.path.startswith(("MEMORY.md", "topics/")):
        return hit
    if hit.path not in generated:
        generated[hit.path] = _generated_lines(read_text(vault, hit.path) or "")
    if hit.match_start not in generated[hit.path]:
        return hit  # the person's own words around the block
    cited = fact_cited(hit.matched.split("\n", 1)[0])
    for path, start, end, text in vault.with_block_id(cited) if cited else []:
        if path.startswith(("facts/", "archive/")):
            fact = Hit(path, start, end, "", hit.score, text, block_id=cited)
            mark_hits([fact], vault.config.memory, today)
            return fact
    return None


def _generated_lines(text: str) -> range:
    """The line numbers of a page's generated block (markers included); empty without one."""
    lines = text.split("\n")
    begin = next((n for n, line in enumerate(lines, 1) if BEGIN in line), 0)
    end = next((n for n, line in enumerate(lines, 1) if END in line and n > begin), 0)
    return range(begin, end + 1) if begin and end else range(0)


def _link(hit: Hit) -> str:
    return link_to(hit.path, hit.block_id, hit.heading)


def daily_notes(vault: VaultView, day: dt.date) -> list[str]:
    """A day's daily notes: ``memory/DATE.md`` (in the daily folder; read as before, even
    when absent: it then has no lines), then OpenClaw's ``memory/DATE-slug.md`` notes of
    that day by name, those the index takes (a note file, not a symlink)."""
    folder = vault.config.vault.daily_folder
    prefix = f"{day.isoformat()}-"
    try:
        found = [name for name in _slug_notes(vault.root / folder) if name.startswith(prefix)]
    except OSError:  # no readable daily folder: no slug notes
        found = []
    exclude = vault.config.index.exclude
    slugs = [
        rel
        for rel in (f"{folder}/{name}" if folder else name for name in found)
        if (note := stat_note(vault.root, rel, exclude)) is not None and note.skip_reason is None
    ]
    return [daily_path(day.isoformat(), folder), *slugs]


_SLUG_NAME = re.compile(r"\d{4}-\d{2}-\d{2}-")
_listed: dict[Path, tuple[int, list[str]]] = {}  # folder: its mtime, its slug notes


def _slug_notes(folder: Path) -> list[str]:
    """The names of a folder's ``DATE-slug`` notes, sorted, listed again only when the
    folder changed (its mtime moves when a name is added or removed): listing 7,000
    daily notes takes 6 ms, a block is asked for every turn."""
    stamp = os.stat(folder).st_mtime_ns
    cached = _listed.get(folder)
    if cached is None or cached[0] != stamp:
        cached = (stamp, sorted(n for n in os.listdir(folder) if _SLUG_NAME.match(n)))
        _listed[folder] = cached
    return cached[1]


def daily_items(vault: VaultView, day: dt.date, agent: str | None) -> list[Item]:
    """The live list items of a day's daily notes (``daily_notes``), note by note."""
    return [item for rel in daily_notes(vault, day) for item in note_items(vault, rel, agent)]


def note_items(vault: VaultView, rel: str, agent: str | None) -> list[Item]:
    """A daily note's live list items (other agents' lines left out), in the note's order."""
    text = read_text(vault, rel)
    items = []
    for entry in parse_entries(text or ""):
        if entry.struck or not _agent_ok(entry, agent):
            continue
        if any(marker in entry.raw for marker in ECHO_MARKERS):
            continue
        shown = without_fields(entry.raw.strip(), _BOOKKEEPING)
        if len(shown) > _WORDS_MAX:
            shown = shown[: _WORDS_MAX - 1] + "…"
        link = link_to(rel, entry.block_id)
        keys = {f"{rel}:{entry.number}"}
        if entry.block_id and (day := daily_name(rel, vault.config.vault.daily_folder)):
            keys.add(source_key(day, entry.block_id))  # as its facts cite it
        items.append(
            Item(
                shown,
                entry.text,
                rel,
                entry.number,
                entry.block_id,
                link,
                frozenset(keys),
                order=(entry.number,),
                said_by=entry.role or "",
            )
        )
    return items


def _agent_ok(entry: Entry, agent: str | None) -> bool:
    """Search's rule: no agent asked, or the line names none, or names this one."""
    named = entry.values("agent")
    return agent is None or not named or any(n.lower() == agent.lower() for n in named)


def read_text(vault: VaultView, rel: str) -> str | None:
    """A note's text, or ``None`` when it is absent or unreadable (never leaving the vault)."""
    try:
        absolute, _ = resolve_in_vault(vault.root, rel)
    except VaultmemError:
        return None
    if not is_file(absolute):
        return None
    return read_note(absolute, vault.config.index.max_file_bytes).text
