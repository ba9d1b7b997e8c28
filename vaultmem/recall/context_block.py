"""Recall for agents: the prompt context block (``lookup.py`` has ``recent`` and
``get``, which read the same daily notes through ``daily_items`` and ``read_text``).

``context`` builds the block an agent puts in its prompt (``docs/context.md``): the line
``<!-- vaultmem:context -->`` (so ``remember`` and capture know an echo of it and skip
it), then ``MEMORY.md``'s generated block, the recall for a query, and today's and
yesterday's daily notes (``memory/DATE.md`` and OpenClaw's ``memory/DATE-slug.md``),
never over the budget as ``context.count_tokens`` counts the whole text. With a query,
the recall gets the first half of the budget (its best hit always, cut short if it must
be), ``MEMORY.md`` the next share, more recall the rest, and the daily notes what is
left. One memory is recalled once: a daily-note line, the facts
distilled from it (``[source:: [[DATE#^id]]]``) and ``MEMORY.md``'s mention of those
facts (``(fID)``) are one item. Struck lines (superseded or forgotten) are not recalled.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vaultmem.errors import VaultmemError
from vaultmem.memory.pipeline.facts import Entry, parse_entries, parse_entry, without_fields
from vaultmem.memory.pipeline.remember import ECHO_MARKERS, daily_note_path
from vaultmem.notes.files import is_file, read_note, resolve_in_vault, stat_note
from vaultmem.notes.generated_block import BEGIN, END, MIN_BUDGET, block_of, count_tokens
from vaultmem.notes.parse import parse_document
from vaultmem.search.keyword import Hit, link_to
from vaultmem.search.results import MENTION, mark_hits, memory_of

if TYPE_CHECKING:
    from vaultmem.vault_view import VaultView

MARKER = "<!-- vaultmem:context -->"
RECALL_HITS = 30  # hits asked of search; more than any sensible budget shows
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
    link: str | None = None  # [[note#^id]], which Obsidian opens at the line
    keys: frozenset[str] = frozenset()  # what makes two items one memory

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


@dataclass
class ContextBlock:
    """The prompt block (``text``), its size and the sections it holds."""

    text: str
    tokens: int
    budget: int
    sections: list[Part]
    recalled: list[Item] = field(default_factory=list, repr=False)

    def as_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "tokens": self.tokens,
            "budget": self.budget,
            "sections": [part.as_dict() for part in self.sections],
        }


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
    filler = _Filler(budget, count_tokens(MARKER))
    hits = _recall_items(vault, query, agent, today) if query and query.strip() else []
    if hits:
        filler.best(recall, hits[0])
        filler.fill(recall, hits[1:], limit=budget // 2, stop_early=True)
    memory_lines = _memory_items(vault)
    filler.fill(memory, memory_lines, stop_early=True)
    _drop_trailing_headings(filler, memory)
    cited = {key for item in memory.items for key in item.keys}
    # A memory MEMORY.md already shows is not recalled again (the best hit stays: the
    # reader asked for it, and it may be a daily line the block only cites by its fact).
    for item in recall.items[1:]:
        if item.keys & cited:
            filler.remove(recall, item)
    taken = {key for item in recall.items for key in item.keys} | cited
    filler.fill(recall, [h for h in hits if not h.keys & taken])
    shown = {(item.path, item.line) for item in recall.items}
    days: list[Part] = []
    for day, name in ((today, "today"), (today - dt.timedelta(days=1), "yesterday")):
        for rel in daily_notes(vault, day):  # a section per note: its title says where
            part = Part(f"{rel} ({name})")
            lines = [i for i in note_items(vault, rel, agent) if (i.path, i.line) not in shown]
            filler.fill_latest(part, lines)
            days.append(part)
    parts = [p for p in (memory, recall, *days) if p.items]
    text = "\n\n".join(
        [MARKER] + [f"## {p.title}\n" + "\n".join(i.shown for i in p.items) for p in parts]
    )
    return ContextBlock(text, count_tokens(text), budget, parts, recall.items)


class _Filler:
    """Gives lines to sections while the budget lasts. A line's cost is its tokens, plus
    its section's heading for the first one; blank lines cost nothing, and so sections
    joined by newlines cost the sum of their lines (``count_tokens`` splits on spaces)."""

    def __init__(self, budget: int, reserved: int) -> None:
        self.budget = budget
        self.left = budget - reserved

    def _cost(self, part: Part, item: Item) -> int:
        heading = 0 if part.items else count_tokens(f"## {part.title}")
        return count_tokens(item.shown) + heading

    def take(self, part: Part, item: Item, limit: int | None = None) -> bool:
        """Add the item if it fits (and the block stays within ``limit`` tokens)."""
        cost = self._cost(part, item)
        if cost > self.left or (limit is not None and self.budget - self.left + cost > limit):
            return False
        part.items.append(item)
        self.left -= cost
        return True

    def remove(self, part: Part, item: Item) -> None:
        part.items.remove(item)
        self.left += count_tokens(item.shown) + (
            0 if part.items else count_tokens(f"## {part.title}")
        )

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
        kept: list[Item] = []
        for item in reversed(items):
            probe = Part(part.title, part.items + kept)
            if not self.take(probe, item):
                break
            kept.insert(0, item)
        part.items.extend(kept)

    def best(self, part: Part, item: Item) -> None:
        """The best hit: whole if it fits, else its words cut short until they do, and
        when even its citation cannot fit, its words alone."""
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
    shown = _cited(short, item) if cite else f"- {short}"
    return Item(shown, short, item.path, item.line, item.block_id, item.link, item.keys)


def _cited(words: str, item: Item) -> str:
    return f"- {words} ({item.link or f'{item.path}:{item.line}'})"


def _drop_trailing_headings(filler: _Filler, part: Part) -> None:
    """A heading of MEMORY.md's block whose lines did not fit is left out too."""
    while part.items and part.items[-1].text.startswith("#"):
        filler.remove(part, part.items[-1])


def _memory_items(vault: VaultView) -> list[Item]:
    """``MEMORY.md``'s generated block, line by line (its headings under the block's); a
    ``MEMORY.md`` without the markers (an OpenClaw workspace) is shown whole."""
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
    # Its headings go below the block's own sections (##): the top one becomes ###.
    levels = [len(line) - len(line.lstrip("#")) for _, line in numbered if _HEADING.match(line)]
    deeper = "#" * max(0, 3 - min(levels, default=3))
    items = []
    for number, line in numbered:
        if not line.strip() or any(marker in line for marker in ECHO_MARKERS):
            continue
        shown = deeper + line if _HEADING.match(line) else line
        mention = MENTION.search(line)
        keys = frozenset({f"MEMORY.md:{number}", *([mention.group(1)] if mention else [])})
        items.append(Item(shown.rstrip(), line.strip(), "MEMORY.md", number, keys=keys))
    return items


def _recall_items(vault: VaultView, query: str, agent: str | None, today: dt.date) -> list[Item]:
    """The hits for ``query``, one item per memory, best first; struck lines left out."""
    # Search gives one hit per memory (search/results.py); the block cites single lines.
    hits = vault.search(query, limit=RECALL_HITS, agent=agent, track=False, today=today, context=0)
    items: list[Item] = []
    seen: set[str] = set()
    for hit in hits:
        hit = _cited_fact(vault, hit, today)
        if hit.superseded:
            continue
        memory = memory_of(vault.db.conn, hit, vault.config.vault.daily_folder)
        if memory.stale or memory.keys & seen:  # a MEMORY.md line and its fact: once
            continue
        keys = memory.keys
        seen |= keys
        entry = parse_entry(hit.matched.split("\n", 1)[0], hit.match_start)
        words = entry.text if entry is not None else " ".join(hit.matched.split())
        if len(words) > _WORDS_MAX:
            words = words[: _WORDS_MAX - 1] + "…"
        item = Item("", words, hit.path, hit.match_start, hit.block_id, _link(hit), keys)
        item.shown = _cited(words, item)
        items.append(item)
    return items


def _cited_fact(vault: VaultView, hit: Hit, today: dt.date) -> Hit:
    """For a line of ``MEMORY.md`` that cites a fact as ``(fID)``: the fact's own line,
    which says where the memory lives; any other hit as it is."""
    mention = MENTION.search(hit.matched.split("\n", 1)[0]) if hit.path == "MEMORY.md" else None
    if mention is None:
        return hit
    for path, start, end, text in vault.with_block_id(mention.group(1)):
        if path.startswith(("facts/", "archive/")):
            fact = Hit(path, start, end, "", hit.score, text, block_id=mention.group(1))
            mark_hits([fact], vault.config.memory, today)
            return fact
    return hit


def _link(hit: Hit) -> str | None:
    return link_to(hit.path, hit.match_start, hit.block_id) if hit.block_id else None


def daily_notes(vault: VaultView, day: dt.date) -> list[str]:
    """A day's daily notes: ``memory/DATE.md`` (in the daily folder; read as before, even
    when absent: it then has no lines), then OpenClaw's ``memory/DATE-slug.md`` notes of
    that day by name, those the index takes (a note file, not a symlink)."""
    folder = vault.config.vault.daily_folder
    try:
        found = sorted(p.name for p in (vault.root / folder).glob(f"{day.isoformat()}-*"))
    except OSError:  # no readable daily folder: no slug notes
        found = []
    exclude = vault.config.index.exclude
    slugs = [
        rel
        for rel in (f"{folder}/{name}" if folder else name for name in found)
        if (note := stat_note(vault.root, rel, exclude)) is not None and note.skip_reason is None
    ]
    return [daily_note_path(day, folder), *slugs]


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
        link = link_to(rel, entry.number, entry.block_id) if entry.block_id else None
        items.append(Item(shown, entry.text, rel, entry.number, entry.block_id, link))
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
