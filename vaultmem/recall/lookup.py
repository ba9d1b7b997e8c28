"""What an agent looks up besides its prompt block: ``recent`` (the new daily-note lines,
new facts and superseded facts of the last days) and ``get`` (a note's lines by path and
range, ``PATH:LINE``, the line of a block id: ``^id``, ``id``, ``DATE#id``, ``PATH#id``, or
any link ``search``, ``context`` and ``recent`` hand out: ``[[note#^id]]``,
``[[note#Heading]]``, ``[[note]]``). Both read notes only, through ``files`` (``get``) and
the daily notes as the context block shows them (``recall.daily_items``).
"""

from __future__ import annotations

import datetime as dt
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vaultmem.errors import VaultmemError, check_path
from vaultmem.memory.pipeline.facts import Fact, parse_entry
from vaultmem.memory.pipeline.forget import Wanted, find_line
from vaultmem.notes.date_range import EARLIEST, check_day
from vaultmem.notes.files import Excerpt, is_file, note_in_vault, resolve_in_vault, split_line
from vaultmem.notes.parse import iter_links, parse_document
from vaultmem.recall.context_block import daily_items, read_text
from vaultmem.search.keyword import heading_parts

if TYPE_CHECKING:
    from vaultmem.vault_view import VaultView


@dataclass
class Change:
    """A line that is new or changed in the window of ``recent``."""

    path: str
    line: int
    block_id: str | None
    text: str
    date: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "block_id": self.block_id,
            "text": self.text,
            "date": self.date,
        }


@dataclass
class Recent:
    """``recent``: each list newest first."""

    daily: list[Change]
    facts_new: list[Change]
    facts_superseded: list[Change]

    def as_dict(self) -> dict[str, Any]:
        return {
            "daily": [c.as_dict() for c in self.daily],
            "facts_new": [c.as_dict() for c in self.facts_new],
            "facts_superseded": [c.as_dict() for c in self.facts_superseded],
        }


def recent(vault: VaultView, days: int, limit: int, today: dt.date, agent: str | None) -> Recent:
    """The daily-note lines of the last ``days`` days (today included; other agents' lines
    left out), the facts learnt in them (a fact's date: its first source's, else
    ``[created:: ]``) and the facts struck in them (``[superseded:: DATE]`` or
    ``[forgotten:: DATE]``), at most ``limit`` of each, newest first. Daily notes are read
    from the files; facts through the index, brought up to date with ``facts/`` and
    ``archive/`` first (one stat a file).

    Any number of days is taken: a window reaching back past the first date a note can
    have (``date_range.EARLIEST``) starts there, so ``--days 99999999999`` means "all of
    it" (date arithmetic would overflow at the year 1), and only the days that have a
    daily note are read, so a window of a century costs what the notes in it cost.

    Raises:
        VaultmemError: ``days`` or ``limit`` is below 1.
        DateOutOfRangeError: ``today`` is a date no note can have.
    """
    if days < 1 or limit < 1:
        raise VaultmemError(f"days and limit must be at least 1, got {days} and {limit}")
    check_day(today, "today")
    first = today - dt.timedelta(days=min(days - 1, (today - EARLIEST).days))
    daily: list[Change] = []
    for day in _days_with_notes(vault, first, today):
        if len(daily) >= limit:
            break
        for item in reversed(daily_items(vault, day, agent)):
            daily.append(Change(item.path, item.line, item.block_id, item.text, day.isoformat()))
    new: list[Change] = []
    struck: list[Change] = []
    for fact in _facts(vault, first, today):
        change = Change(fact.path, fact.entry.number, fact.id, fact.text, "")
        if fact.live and not fact.archived and fact.day and first <= fact.day <= today:
            change.date = fact.day.isoformat()
            new.append(change)
        elif not fact.live:
            when = fact.entry.field("superseded") or fact.entry.field("forgotten") or ""
            if first.isoformat() <= when[:10] <= today.isoformat():
                change.date = when[:10]
                struck.append(change)
    newest = lambda c: (c.date, c.path, c.line)  # noqa: E731 -- one sort key, three uses
    return Recent(
        daily[:limit],
        sorted(new, key=newest, reverse=True)[:limit],
        sorted(struck, key=newest, reverse=True)[:limit],
    )


def _days_with_notes(vault: VaultView, first: dt.date, last: dt.date) -> list[dt.date]:
    """The dates in ``first..last`` that a file of the daily folder is named by
    (``DATE.md``, OpenClaw's ``DATE-slug.md``), newest first: one listing of the folder."""
    try:
        names = os.listdir(vault.root / vault.config.vault.daily_folder)
    except OSError:  # no daily folder (yet), or an unreadable one: no daily lines
        return []
    found: set[dt.date] = set()
    for name in names:
        try:
            day = dt.date.fromisoformat(name[:10])
        except ValueError:
            continue
        if first <= day <= last:
            found.add(day)
    return sorted(found, reverse=True)


def _facts(vault: VaultView, first: dt.date, last: dt.date) -> list[Fact]:
    """The fact lines of ``facts/`` and ``archive/`` that carry a date of the window in a
    field, from the index (reading 2,000 fact files takes a second; their stats, 35 ms)."""
    facts = []
    for path, line, text in vault.facts_dated(first, last):
        entry = parse_entry(text.split("\n", 1)[0], line)
        if entry is not None:
            facts.append(Fact(path, entry))
    return facts


_ID = re.compile(r"\^?[A-Za-z0-9-]+")


def get(vault: VaultView, target: str, line_start: int | None, line_end: int | None) -> Excerpt:
    """A note's lines (all, or ``line_start``..``line_end``), or the block of the line with a
    block id: ``^id``, ``id``, ``DATE#id`` (that day's daily note) or ``PATH#id``. A target
    naming a file of the vault is a path; ``PATH:LINE`` is the block holding that line; else
    one that looks like an id is an id. A link (``[[note#^id]]``, ``[[note#Heading]]``, the
    heading's section, ``[[note]]``; an alias after ``|`` is ignored) is read as what it
    names.

    Raises:
        PathOutsideVaultError: the path (or the note of ``PATH#id``) leaves the vault.
        NotANoteError: the path (or ``PATH``) is not a note's (``.git/config``, ``.env``).
        AmbiguousIdError: the id is on several lines (the message lists them).
        BadPathError: no file can have such a path (a NUL byte, an over-long name or path).
        VaultmemError: no such file or id, or a line range outside the note.
    """
    target = target.strip()
    # Every form names a file or a block id; either is short (a ``PATH#id`` of 100 kB made
    # the path's checks quadratic in its folders).
    check_path(target, "the target")
    if target.startswith(("[[", "![[")):
        target, heading = _linked(vault, target)
        if heading or "#" not in target:
            return _lines(vault, target, line_start, line_end, heading)
    if not target.startswith("^") and "#" not in target:
        absolute, rel = resolve_in_vault(vault.root, target)
        if is_file(absolute) or not _ID.fullmatch(target):
            path, line = split_line(target)
            if is_file(absolute) or line is None:
                return _lines(vault, rel, line_start, line_end)
            if line_start is not None or line_end is not None:
                raise VaultmemError("give a line range or PATH:LINE, not both")
            return vault.show(path, line)
    if line_start is not None or line_end is not None:
        raise VaultmemError("a line range goes with a path, not with a block id")
    wanted = Wanted.parse(target, vault.config.vault.daily_folder)
    if wanted.note is not None:
        paths = [note_in_vault(vault.root, wanted.note, vault.config.index.exclude)[1]]
        wanted = Wanted(wanted.block, paths[0])
    else:
        paths = list(dict.fromkeys(row[0] for row in vault.with_block_id(wanted.block)))
    texts = {p: t for p in paths if (t := read_text(vault, p)) is not None}
    found = find_line(wanted, texts, vault.config.vault.daily_folder)
    if found is None:
        where = f" in {wanted.note}" if wanted.note else ""
        raise VaultmemError(f"no line has the block id ^{wanted.block}{where}")
    excerpt = vault.show(found[0], found[1])
    excerpt.block_id = wanted.block
    return excerpt


def _linked(vault: VaultView, link: str) -> tuple[str, str]:
    """What a link names: ``(NOTE#^id, "")`` for a block, ``(PATH, heading)`` for a section
    or a note (the heading "" then): the note's path with ``.md`` added when the link leaves
    it out, as Obsidian's links do.

    Raises:
        VaultmemError: the text is not one link, or it names no note.
    """
    found = iter_links(link)
    if len(found) != 1 or not link.endswith("]]") or not found[0].target:
        raise VaultmemError(f"{link!r} is not a link to a note: give [[note]], [[note#^id]]")
    note, anchor = found[0].target, found[0].anchor
    if anchor.startswith("#^"):  # read as PATH#id or DATE#id (a fact's [source:: ] link)
        return f"{note}#{anchor[1:]}", ""
    if not is_file(resolve_in_vault(vault.root, note)[0]):
        note += ".md"
    return note, anchor.lstrip("#")


def _lines(
    vault: VaultView, rel: str, start: int | None, end: int | None, heading: str = ""
) -> Excerpt:
    excerpt = vault.show(rel)
    if heading:
        if start is not None or end is not None:
            raise VaultmemError("a line range goes with a path, not with a heading link")
        start, end = _section(excerpt, heading)
    if start is None and end is None:
        return excerpt
    count = len(excerpt.lines)
    first, last = start or 1, end or count
    if not 1 <= first <= last <= count:
        raise VaultmemError(f"{rel} has {count} lines; lines {first} to {last} are not in it")
    excerpt.lines = excerpt.lines[first - 1 : last]
    excerpt.line_start = first
    return excerpt


def _section(note: Excerpt, heading: str) -> tuple[int, int]:
    """The lines of a note's section a link's heading names (``Plans#Day one``: "Day one"
    under "Plans"), from its heading to the next heading at its depth or above, blank
    lines at its end left out. Headings are compared as a link writes them
    (``search.keyword.heading_parts``), in any case.

    Raises:
        VaultmemError: the note has no such heading.
    """
    wanted = [part.casefold() for part in heading_parts(heading.replace("#", " > "))]
    headings = [b for b in parse_document("\n".join(note.lines)).blocks if b.kind == "heading"]
    for number, block in enumerate(headings):
        path = [part.casefold() for part in heading_parts(block.heading)]
        if path[-1:] == wanted[-1:] and _in_order(wanted[:-1], path[:-1]):
            depth = len(block.heading.split(" > "))
            after = (
                h.line_start for h in headings[number + 1 :] if len(h.heading.split(" > ")) <= depth
            )
            end = next(after, note.line_start + len(note.lines)) - 1
            while end > block.line_start and not note.lines[end - note.line_start].strip():
                end -= 1
            return block.line_start, end
    raise VaultmemError(f"{note.path} has no heading {heading!r}")


def _in_order(wanted: list[str], path: list[str]) -> bool:
    """Whether ``wanted`` are among ``path``'s parts, in its order (a link may skip one)."""
    rest = iter(path)
    return all(part in rest for part in wanted)
