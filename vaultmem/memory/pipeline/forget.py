"""``forget``: a memory taken back by hand, by its block id.

Soft (the default) strikes the line through in place with ``[forgotten:: date]`` and the
reason, keeping its words, like a superseded fact. ``hard`` removes the words from the
working files: the fact line and the daily-note lines it came from (forgetting a daily-note
line takes the facts distilled from it too). Git history still holds them; ``docs/memory.md``
says how to purge history for real. Either way the memory log records the source line as
dealt with (by id only, no words), so consolidation does not distill it again.

A soft forget is idempotent: a line that already carries ``[forgotten:: ]`` is left as it
is (``ForgetPlan.already``), so forgetting the same id twice writes, logs and commits
nothing the second time, and says the line was forgotten before.

A block id is not unique across a vault: daily notes repeat ids such as ``^s1-1`` in every
conversation, and a sync can leave one fact id in two files. Every line a forget would
change must be the only line of its note with that id, and the id asked for must name one
line in the vault: otherwise nothing is written and ``AmbiguousIdError`` lists the lines
(``DATE#ID`` or ``PATH#ID`` names one of them).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from vaultmem.errors import AmbiguousIdError, VaultmemError
from vaultmem.memory.language.secrets import mask_field
from vaultmem.memory.pipeline.edits import Edits, block_id_lines
from vaultmem.memory.pipeline.facts import (
    Entry,
    Fact,
    daily_date,
    daily_name,
    daily_path,
    in_daily_folder,
    long_note_path,
    parse_entries,
    source_key,
    with_fields,
)
from vaultmem.memory.pipeline.remember import clean_text
from vaultmem.notes.files import read_note

if TYPE_CHECKING:
    from vaultmem.memory.pipeline.consolidate import Consolidation

_BLOCK = re.compile(r"[A-Za-z0-9-]+")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_SHOWN = 10  # lines named in an error; the rest are counted


@dataclass
class Target:
    """A line found by its block id."""

    path: str
    entry: Entry


@dataclass
class ForgetPlan:
    block: str = ""
    edits: Edits = field(default_factory=Edits)
    touched: list[tuple[str, str]] = field(default_factory=list)  # (path, block id) changed
    lines: list[str] = field(default_factory=list)  # "path:line" of each line touched
    already: list[str] = field(default_factory=list)  # "path:line" forgotten before: left
    events: list[tuple[str, ...]] = field(default_factory=list)
    masked: int = 0  # secrets masked in the reason


@dataclass(frozen=True)
class Wanted:
    """What ``forget ID`` asks for: a block id, and the note it is in when named."""

    block: str
    note: str | None

    @classmethod
    def parse(cls, ident: str, daily_folder: str) -> Wanted:
        """``ID``, ``DATE#ID`` (the daily note of that date, in ``daily_folder``) or
        ``PATH#ID`` (a note by its vault path, ``.md`` optional); a ``^`` before the id is
        allowed."""
        where, _, block = ident.strip().rpartition("#")
        block = block.strip().removeprefix("^")
        if not _BLOCK.fullmatch(block):
            raise VaultmemError(
                f"{ident!r} is not a block id: give ID, DATE#ID or PATH#ID"
                " (for example 2026-11-22#d1-3)"
            )
        where = where.strip().strip("/")
        if not where:
            return cls(block, None)
        if _DATE.fullmatch(where):
            return cls(block, daily_path(where, daily_folder))
        return cls(block, where if where.endswith(".md") else f"{where}.md")


def forget_plan(
    run: Consolidation, ident: str, *, reason: str | None, hard: bool, today: dt.date
) -> ForgetPlan:
    """Find the one line ``ident`` names and plan its forgetting.

    Raises:
        VaultmemError: ``ident`` is not a block id, or no memory line has it.
        AmbiguousIdError: it names several lines, or a line the plan would change shares
            its id with another line of its note.
    """
    daily = run.config.vault.daily_folder
    wanted = Wanted.parse(ident, daily)
    texts = _Texts(run, wanted.note)
    found = _find(wanted, texts)
    facts = [
        Fact(path, entry)
        for path, text in texts.read.items()
        if path.startswith(("facts/", "archive/"))
        for entry in parse_entries(text)
    ]
    plan = plan_forget([found], facts, reason=reason, hard=hard, today=today, daily_folder=daily)
    plan.block = wanted.block
    if not plan.touched:
        plan.events = []  # all forgotten before: logged then, nothing to log again
    for path, block in plan.touched:
        numbers = block_id_lines(texts.get(path), block)
        if len(numbers) > 1:
            raise AmbiguousIdError(
                f"forgetting ^{wanted.block} would change ^{block} of {path}, which is on "
                f"{len(numbers)} of its lines ({_listed([(path, n) for n in numbers])}); "
                "nothing was changed: give each of those lines its own block id first"
            )
        plan.lines += [f"{path}:{n}" for n in numbers]  # none: the line is already gone
    return plan


class _Texts:
    """The notes a forget may read: ``facts/``, ``archive/`` and the daily notes (only the
    named one, when a daily note is named), read once; others on demand."""

    def __init__(self, run: Consolidation, note: str | None) -> None:
        self.run = run
        only: Callable[[str], bool] | None = None
        daily = run.config.vault.daily_folder
        if note is not None and in_daily_folder(note, daily):
            only = note.__eq__
        self.read = {
            path: text
            for folder, keep in (("facts", None), ("archive", None), (daily, only))
            for path, text, _ in run.notes(folder, keep)
        }

    def get(self, path: str) -> str:
        if path not in self.read:
            read = read_note(self.run.root / path, self.run.config.index.max_file_bytes)
            self.read[path] = read.text or ""
        return self.read[path]


def _emptied(old: str) -> str:
    """A hard ``forget``'s change to the note of a long message: its words go with its
    line (nothing is written when there is no such note)."""
    return ""


def find_line(
    wanted: Wanted, texts: Mapping[str, str], daily_folder: str
) -> tuple[str, int] | None:
    """The one line with the block id among the notes ``texts`` (path -> text), in the
    note named if one is; ``None`` when no line has it. ``vaultmem get`` uses it too.

    Raises:
        AmbiguousIdError: several lines have it (the message lists them).
    """
    matches = [
        (path, number)
        for path, text in texts.items()
        if wanted.note is None or path == wanted.note
        for number in block_id_lines(text, wanted.block)
    ]
    if len(matches) > 1:
        raise AmbiguousIdError(_ambiguous(wanted.block, matches, daily_folder))
    return matches[0] if matches else None


def _find(wanted: Wanted, texts: _Texts) -> Target:
    """The one memory line with the block id (in the note named, if one is)."""
    found = find_line(wanted, texts.read, texts.run.config.vault.daily_folder)
    if found is not None:
        path, number = found
        for entry in parse_entries(texts.read[path]):
            if entry.number == number and entry.block_id == wanted.block:
                return Target(path, entry)
    where = f" in {wanted.note}" if wanted.note else ""
    raise VaultmemError(f"no memory line has the block id ^{wanted.block}{where}")


def _ambiguous(block: str, matches: list[tuple[str, int]], daily_folder: str) -> str:
    per_note: dict[str, int] = {}
    for path, _ in matches:
        per_note[path] = per_note.get(path, 0) + 1
    single = [path for path, count in per_note.items() if count == 1]
    if single:
        day = daily_date(single[0], daily_folder)
        example = f"{day}#{block}" if day else f"{single[0]}#{block}"
        hint = f"name the one you mean as DATE#ID or PATH#ID, e.g. {example}"
    else:
        hint = "give each of those lines its own block id first"
    return f"^{block} is on {len(matches)} lines ({_listed(matches)}); nothing was changed: " + hint


def _listed(matches: list[tuple[str, int]]) -> str:
    shown = ", ".join(f"{path}:{number}" for path, number in matches[:_SHOWN])
    more = len(matches) - _SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def plan_forget(
    found: list[Target],
    facts: list[Fact],
    *,
    reason: str | None,
    hard: bool,
    today: dt.date,
    daily_folder: str,
) -> ForgetPlan:
    """The edits that forget the lines ``found`` (facts, or daily-note lines with the facts
    distilled from them)."""
    plan = ForgetPlan()
    targets = list(found)
    for target in found:
        day: str | None = daily_name(target.path, daily_folder)
        if day is not None and target.entry.block_id:
            key = source_key(day, target.entry.block_id)
            targets += [Target(f.path, f.entry) for f in facts if key in f.sources]
            plan.events.append(("forgot", key, target.entry.block_id))
        elif target.entry.block_id:
            fact = Fact(target.path, target.entry)
            plan.events += [("forgot", key, target.entry.block_id) for key in fact.sources]
            if hard:
                for key in fact.sources:
                    note, ident = key.split("#", 1)
                    path = daily_path(note, daily_folder)
                    targets.append(Target(path, Entry(0, "", "", None, ident)))
    fields = [("forgotten", today.isoformat())]
    # The reason is written at once and committed: a token in it is masked as the words of
    # a memory are, with the marker a field can hold (``mask_field``).
    # Cleaned as a daily line's words are: a NUL in a reason (MCP's "\u0000") would make
    # the note a binary file for git and the index.
    said, plan.masked = mask_field(clean_text(reason or ""))
    if said:
        fields.append(("reason", said))
    for target in targets:
        block = target.entry.block_id
        if block is None or (target.path, block) in plan.touched:
            continue
        if not hard and target.entry.field("forgotten") is not None:
            # Forgotten before: a line keeps its one [forgotten:: ], so forgetting it again
            # changes nothing (an agent may retry a forget it is unsure went through).
            where = f"{target.path}:{target.entry.number}"
            plan.already += [where] if where not in plan.already else []
            continue
        plan.touched.append((target.path, block))
        if hard:
            plan.edits.remove_line(target.path, block)
            day = daily_date(target.path, daily_folder)
            if day is not None:  # a message over 64 KiB: its words in a note of their own
                plan.edits.add(long_note_path(day, block), _emptied)
        else:
            plan.edits.edit_line(
                target.path, block, lambda line: with_fields(line, fields, strike=True)
            )
    return plan
