"""Phases 1 and 2 of a consolidation, note by note: the daily-note lines not yet distilled,
scored, admitted, and each admitted line's metadata.

This part of a run depends only on the notes, read in order (a line's score depends on
the names of the lines before it), hardly on the facts the run writes. So a run over many
notes does it in a forked worker process (``workers.forked``) while this process
compares each admitted line with the facts (``consolidate.py``). What a line says as a fact
(``conflicts.Fact``, the longest part of reading it) is read by the worker for every other
admitted line and by the run for the rest: the two halves of the work on the two cores,
split the same way whatever either's speed (the worker reading all of them was slower: it
became the longer half, and sending a reading costs much of making it). A small run, or
one where forking is unsafe, reads here, to the same result.

The one thing read that depends on the facts written: a name is a person when a fact
already holds it as one (``extract``'s known people). The reader learns them from every
line it admits; the run, only from the lines it keeps as facts (not from a repeat).
``People`` follows both sets and the names only one of them holds, and a line naming one
of those is read again by the run with its own set: the result is the same as ever.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vaultmem.config import Config
from vaultmem.memory.language.conflicts import Fact
from vaultmem.memory.language.extract import Metadata, extract
from vaultmem.memory.language.roles import PLAIN_ROLES
from vaultmem.memory.language.scoring import Score, entities, likelihood, narrates, score
from vaultmem.memory.language.secrets import mask_secrets
from vaultmem.memory.language.triggers import strip_triggers
from vaultmem.memory.pipeline.facts import (
    Entry,
    daily_name,
    fraction,
    line_id,
    parse_entries,
    source_key,
)
from vaultmem.memory.pipeline.remember import NOISE_PREFIXES
from vaultmem.notes.files import FileStat, read_note, scan_notes
from vaultmem.notes.generated_block import ECHO_MARKERS
from vaultmem.notes.merge import is_conflict_copy
from vaultmem.workers import forked

# Below this many daily notes a worker process costs more than it saves.
FORK_MIN_NOTES = 200
# Notes the worker reads at a time, and how many such batches it may read ahead of the
# one the run is on: enough to keep it busy while the run reads the vault's facts before
# its first comparison (``FactSet``), a bounded lead whatever the vault's size.
_BATCH = 8
_AHEAD = 64


@dataclass(frozen=True, slots=True)
class Note:
    """One note of a folder as read: ``text`` None and a ``notice`` when it cannot be (a
    ``notice`` with the ``text`` of its first part when it is over the size limit)."""

    path: str
    text: str | None
    content_hash: str
    notice: str | None


def read_notes(root: Path, config: Config, stats: list[FileStat]) -> Iterator[Note]:
    """The notes ``stats`` names, read one at a time (a full run over a large vault never
    holds every note's text at once); a sync conflict copy is not live and is not read."""
    for stat in stats:
        if is_conflict_copy(stat.path):  # the other side of a sync conflict
            yield Note(stat.path, None, "", f"{stat.path}: a sync conflict copy, left out")
            continue
        read = read_note(root / stat.path, config.index.max_file_bytes)
        # A note over index.max_file_bytes is read in part: its lines past the limit are
        # not consolidated, and the run says so.
        unread = read.text is None or read.truncated
        notice = f"{stat.path}: {read.warnings[0]}" if unread else None
        yield Note(stat.path, read.text, read.content_hash, notice)


def note_stats(
    root: Path, config: Config, folder: str, keep: Callable[[str], bool] | None = None
) -> list[FileStat]:
    """The readable notes under a folder (those whose path ``keep`` accepts), in path
    order."""
    found = sorted(scan_notes(root, config.index.exclude, folder), key=_path)
    return [s for s in found if not s.skip_reason and (keep is None or keep(s.path))]


@dataclass(slots=True)
class Admitted:
    """A line admitted as a fact: ``raw`` the line as typed, ``block_id`` its own id if it
    has one, ``text`` the fact's words (capture request stripped, secrets masked, its
    speaker's role first), ``rated`` its score (without the reasons: a worker process
    sends this to the run), ``confidence`` the likelihood its words express and ``meta``
    their metadata, as the reader's people make them, and ``reading`` what the words say
    as a fact (``Fact.read``) for every other line (``None``: the run reads it)."""

    raw: str
    block_id: str | None
    ident: str
    key: str
    rated: Score
    value: float
    text: str
    confidence: float | None
    meta: Metadata
    reading: Fact | None


@dataclass(slots=True)
class Cited:
    """A line dealt with before that a fact cites and that has no block id yet."""

    raw: str
    ident: str


@dataclass(slots=True)
class NoteLines:
    """What a daily note's lines came to, in line order; ``done`` notes of ``total``."""

    path: str
    day: str
    done: int
    total: int
    lines: list[Admitted | Cited] = field(default_factory=list)
    collected: int = 0
    notice: str | None = None
    checkpoint: dict[str, Any] | None = None


class LineReader:
    """Reads the daily notes of one run in order, keeping the names seen so far.

    Args:
        config: the vault's configuration.
        distilled: source keys of lines dealt with before (logged or cited by a fact).
        cited: source keys facts cite.
        facts: the words of the facts there are: their names, case-folded, are the names
            seen before (read when the reading starts: in the worker, for a large run).
        saved: the checkpoint of a daily run: a note whose hash it has is not read again.
        people: names live facts hold as people (the reader's own copy).
    """

    def __init__(
        self,
        config: Config,
        distilled: set[str],
        cited: set[str],
        facts: list[str],
        saved: dict[str, dict[str, Any]],
        people: set[str],
    ) -> None:
        self.config, self.daily = config, config.vault.daily_folder
        self.distilled, self.cited, self.saved = distilled, cited, saved
        self.facts = facts
        self.known: set[str] = set()
        self.people = people
        self._admitted = 0  # lines admitted: the worker reads every other one as a fact

    def read_all(self, root: Path, stats: list[FileStat]) -> Iterator[NoteLines]:
        self.known = {name.casefold() for text in self.facts for name in entities(text)}
        for done, note in enumerate(read_notes(root, self.config, stats), 1):
            day = daily_name(note.path, self.daily)
            lines = NoteLines(note.path, day or "", done, len(stats), notice=note.notice)
            if note.text is not None and day is not None:
                self.read(note.text, note.content_hash, lines)
            yield lines

    def read(self, text: str, digest: str, note: NoteLines) -> None:
        """Read one daily note's lines into ``note``."""
        known = self.known
        earlier = self.saved.get(note.path)
        if earlier and earlier.get("hash") == digest:
            known.update(earlier.get("entities", []))
            note.checkpoint = earlier
            return
        seen: list[str] = []
        # The keys of this note's lines dealt with in this run: a key names its note's
        # date, so no other note's line has it, and a full run need not hold the keys of
        # all its 200,000 lines at once.
        here: set[str] = set()
        for entry in parse_entries(text):
            if entry.struck or not entry.text or _is_noise(entry.text):
                continue
            names = entities(entry.text)
            seen += names
            ident = entry.block_id or line_id(entry.text)
            key = source_key(note.day, ident)
            if key in self.distilled or key in here:
                if entry.block_id is None and key in self.cited:
                    note.lines.append(Cited(entry.raw, ident))
            else:
                note.collected += 1
                admitted = self._admit(entry, ident, key, date_of(note.day), names)
                if admitted is not None:
                    note.lines.append(admitted)
                here.add(key)
            known.update(n.casefold() for n in names)
        note.checkpoint = {"hash": digest, "entities": sorted(set(seen))}

    def _admit(
        self, entry: Entry, ident: str, key: str, day: dt.date | None, names: list[str]
    ) -> Admitted | None:
        if narrates(entry.text, entry.role):
            return None
        rated = score(
            entry.text, self.config.scoring, self.known, folded=True, names=names, explain=False
        )
        value = fraction(entry.field("importance"), rated.value)  # a caller's word wins
        if rated.dropped or value < self.config.memory.admit_threshold:
            return None
        text, _ = mask_secrets(strip_triggers(entry.text))  # the line keeps its words
        if entry.role and entry.role.casefold() not in PLAIN_ROLES:
            text = f"{masked_role(entry.role)}: {text}"
        meta = extract(text, day, self.people)
        self.people.update(meta.people)
        self._admitted += 1
        return Admitted(
            entry.raw,
            entry.block_id,
            ident,
            key,
            rated,
            value,
            text,
            likelihood(text),
            meta,
            Fact.read(text) if self._admitted % 2 else None,  # every other: see above
        )


class People:
    """The names held as people by the run (``here``) and by its reader (``reader``), and
    the names only one of them holds: where none of those is in a line, ``extract`` reads
    the line alike with either set (it asks of a set only whether it holds a name the line
    says)."""

    def __init__(self) -> None:
        self.here: set[str] = set()
        self.reader: set[str] = set()
        self.differ: set[str] = set()

    def start_reader(self) -> set[str]:
        """A copy of the names held now, for a reader to learn more into (it owns it)."""
        self.reader, self.differ = set(self.here), set()
        return set(self.here)

    def add(self, names: list[str], reader: bool = False) -> None:
        """Names a fact kept here holds (or, with ``reader``, a line the reader admitted)."""
        mine = self.reader if reader else self.here
        for name in names:
            if name not in mine:
                mine.add(name)
                self.differ.symmetric_difference_update((name,))

    def alike(self, text: str) -> bool:
        """Whether the reader's metadata of ``text`` is what the run would find."""
        return not any(name in text for name in self.differ)


@functools.lru_cache(maxsize=1024)
def masked_role(role: str) -> str:
    """A line's role as its fact names it, its secrets masked as the words' are (a role a
    person typed, ``**ghp_...**``, is copied into the fact). A vault has few roles (its
    people's names, at most 60 characters each): each is masked once per process."""
    return mask_secrets(role)[0]


def read_daily(reader: LineReader, root: Path, stats: list[FileStat]) -> Iterator[NoteLines]:
    """``reader.read_all``: in a forked worker when there are enough notes to pay for it."""
    fork = len(stats) >= FORK_MIN_NOTES
    return forked(lambda: reader.read_all(root, stats), _BATCH, _AHEAD, fork=fork)


def date_of(day: str) -> dt.date | None:
    """The date of a daily note's name (``2026-11-26``, ``2026-11-26-standup``); ``None``
    for a name like ``2026-02-30``."""
    try:
        return dt.date.fromisoformat(day[:10])
    except ValueError:
        return None


def _path(stat: FileStat) -> str:
    return stat.path


def _is_noise(text: str) -> bool:
    lowered = text.lower()
    return lowered.startswith(NOISE_PREFIXES) or any(m in text for m in ECHO_MARKERS)
