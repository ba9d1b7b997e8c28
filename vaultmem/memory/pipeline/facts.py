"""The one-line formats people read and edit: daily-note entries and fact lines.

A daily-note entry is a list item, as ``remember`` writes it or as a person types it::

    - 14:03 **user** Alice is allergic to peanuts #health [source:: chat] ^m3f9a1c2e
    - **Caroline**: I went to a support group yesterday ^d1-3
    - bought a new bike

A fact is a list item in ``facts/`` (or ``archive/``) with Dataview inline fields and a block
id (``docs/facts.md``)::

    - Alice is allergic to peanuts [kind:: health] [importance:: 1] [person:: Alice]
      [source:: [[memory/2026-11-22#^m3f9a1c2e]]] ^f8c21d0a9b4

Links vaultmem writes name the daily note by its path (``[[memory/DATE#^id]]``, the daily
folder is ``[vault] daily_folder``), so that a vault with its own ``Daily/DATE.md`` sends
Obsidian to the right note; links by bare name (``[[DATE#^id]]``) are still read.

This module only reads and renders lines; deciding what to write is ``consolidate``'s.
"""

from __future__ import annotations

import datetime as dt
import re
from itertools import chain
from sys import intern
from typing import TYPE_CHECKING, NamedTuple

from vaultmem.notes.parse import find_fields, find_tags

# memory/language/extract.py compiles the date and name rules: a search never needs them.
if TYPE_CHECKING:
    from collections.abc import Iterator

    from vaultmem.memory.language.extract import Metadata

# A list item, with the optional parts vaultmem writes: time, **role**, a task box.
_ITEM = re.compile(
    r"^(?P<lead>\s*[-*+]\s+(?:\[(?P<box>[ xX])\]\s+)?)"
    r"(?:(?P<time>\d{1,2}:\d{2})\s+)?"
    r"(?:\*\*(?P<role>[^*\n]{1,60})\*\*:?\s*)?"
    r"(?P<rest>.*)$"
)
_FIELD_TEXT = re.compile(r"\[[^\W\d][\w \-/]{0,60}?::(?:[^\[\]\n]|\[\[[^\]\n]*\]\])*\]")
_BLOCK_ID_END = re.compile(r"\s\^([A-Za-z0-9-]+)\s*$")
# A link's target holds no "[" (Obsidian allows none): a run of "[[" is not read to its
# end from each of them.
_SOURCE = re.compile(r"\[\[([^\[\]#|]+)#\^([A-Za-z0-9-]+)")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_STRUCK = re.compile(r"^~~.*~~$", re.S)
# What in a fact's words reads as more than words on its line: a task box, a field, a tag,
# a role, a time before them, a line break (``render_fact``).
_UNPLAIN = re.compile(r"[\[\]#*\n\r]|::|^\s*\d{1,2}:\d{2}")
_DAY = re.compile(r"(\d{4}-\d{2}-\d{2})")
# A daily note's name, or one of OpenClaw's notes of a day beside it: ``2026-11-26-standup``.
_DAILY_NAME = re.compile(r"(\d{4}-\d{2}-\d{2}(?:-[^/]+)?)\.md")
# The folder of the notes that hold long messages whole (``remember.MAX_LINE_BYTES``), each
# named by its line's date and block id (``long_note_path``).
LONG_FOLDER = "long"
_LONG_NAME = re.compile(LONG_FOLDER + r"/(\d{4}-\d{2}-\d{2})-(m[0-9a-f]{10})\.md")
# vaultmem's own fields on a fact line; everything else a person added is kept as is.
METADATA_FIELDS = (
    ("url", "urls"),
    ("repo", "repositories"),
    ("cmd", "commands"),
    ("path", "paths"),
    ("version", "versions"),
    ("when", "dates"),
    ("amount", "amounts"),
    ("person", "people"),
    ("project", "projects"),
)


class Entry(NamedTuple):
    """One list item of a note, taken apart."""

    number: int  # 1-based line number
    raw: str
    text: str  # the words: no time, role, inline fields or block id
    role: str | None
    block_id: str | None
    # The inline fields as one flat tuple, key, value, key, value...: consolidation holds
    # every fact line of a vault at once, and a tuple per pair in a list took 300 bytes of
    # a fact's 2 kB (``fields`` gives the pairs).
    flat_fields: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    open_task: bool = False

    @property
    def fields(self) -> list[tuple[str, str]]:
        """The inline fields as ``(key, value)``, in order."""
        flat = self.flat_fields
        return list(zip(flat[::2], flat[1::2], strict=True))

    @property
    def struck(self) -> bool:
        """Struck through (superseded or forgotten): no longer a live memory."""
        return (
            _key_at(self.flat_fields, "superseded_by") >= 0
            or _key_at(self.flat_fields, "forgotten") >= 0
            or bool(_STRUCK.match(self.text))
        )

    def field(self, key: str) -> str | None:
        """The first value of an inline field."""
        at = _key_at(self.flat_fields, key)
        return None if at < 0 else self.flat_fields[at + 1]

    def values(self, key: str) -> list[str]:
        """Every value of an inline field (metadata fields repeat)."""
        flat = self.flat_fields
        found = []
        at = _key_at(flat, key)
        while at >= 0:
            found.append(flat[at + 1])
            at = _key_at(flat, key, at + 2)
        return found


def _key_at(flat: tuple[str, ...], key: str, start: int = 0) -> int:
    """Where ``key`` is first a key (an even place) of ``flat`` from ``start`` on; -1 if
    nowhere. Searched in C: a run reads the fields of 100,000 facts several times."""
    if key not in flat:  # most lines lack most fields asked of them
        return -1
    try:
        at = flat.index(key, start)
        while at % 2:  # a value that reads like the key
            at = flat.index(key, at + 1)
    except ValueError:
        return -1
    return at


def parse_entries(text: str) -> list[Entry]:
    """Every top-level list item of a note (fenced code skipped)."""
    entries = []
    fence: str | None = None  # the open fence's marker, e.g. "````"
    for number, line in enumerate(text.splitlines(), 1):
        opener = _FENCE.match(line)
        if opener is not None:
            marker = opener.group(1)
            if fence is None:
                if not (marker[0] == "`" and "`" in opener.group(2)):  # CommonMark: no ` in info
                    fence = marker
                continue
            # CommonMark: closed by the same character, at least as long, nothing after it.
            if marker[0] == fence[0] and len(marker) >= len(fence) and not opener.group(2).strip():
                fence = None
            continue
        if fence or line[:1].isspace():
            continue
        entry = parse_entry(line, number)
        if entry is not None:
            entries.append(entry)
    return entries


def may_be_struck(line: str) -> bool:
    """Whether a fact's line may be struck (``Entry.struck``) without parsing it: it
    holds a strike or a field that strikes. Most lines a search reads are live."""
    return "~~" in line or "superseded_by" in line or "forgotten" in line


def parse_entry(line: str, number: int = 0) -> Entry | None:
    """A list item taken apart, or ``None`` for any other line."""
    match = _ITEM.match(line)
    if match is None:
        return None
    rest = match["rest"]
    block = _BLOCK_ID_END.search(" " + rest)
    block_id = block.group(1) if block else None
    if block:
        rest = (" " + rest)[: block.start()].strip()
    words = without_any_field(rest)
    if not words and not block_id:
        return None
    return Entry(
        number,
        line,
        words,
        match["role"].strip() if match["role"] else None,
        block_id,
        tuple(part for k, v in find_fields(rest) for part in (intern(k), _shared(v))),
        tuple(find_tags(rest)),
        match["box"] == " ",
    )


def without_any_field(text: str) -> str:
    """The words of ``text`` without its inline fields, spaces collapsed."""
    return " ".join(_FIELD_TEXT.sub(" ", text).split())


def _shared(value: str) -> str:
    """A short field value (a kind, an importance, a date) as one object however many
    lines hold it: consolidation holds every fact line of a vault at once."""
    return intern(value) if len(value) <= 24 else value


def daily_date(rel: str, folder: str) -> str | None:
    """``YYYY-MM-DD`` of a daily note's path in the daily ``folder`` (``""``: the vault's
    root), or ``None`` for any other note (an OpenClaw ``DATE-slug`` note too)."""
    name = daily_name(rel, folder)
    return name if name is not None and len(name) == len("YYYY-MM-DD") else None


def daily_name(rel: str, folder: str) -> str | None:
    """The name of a note of a day in the daily ``folder``: ``2026-11-26`` for its daily
    note, ``2026-11-26-standup`` for one of OpenClaw's ``DATE-slug`` notes; ``None`` for
    any other note. A line of either is keyed, and linked as a source, by this name."""
    if not in_daily_folder(rel, folder) or "/" in rel[len(folder) + 1 if folder else 0 :]:
        return None
    match = _DAILY_NAME.fullmatch(rel.rsplit("/", 1)[-1])
    return match.group(1) if match else None


def long_note_path(day: str, block_id: str) -> str:
    """Where the message of the daily line ``day#block_id`` is kept whole when it is over
    ``remember.MAX_LINE_BYTES``, vault-relative: one note per line, so the same message
    stored twice is one note. ``LONG_FOLDER`` is a folder of its own at the vault's root,
    outside the daily folder, facts, topics and the archive: consolidation and ``forget``
    read the line, not the note (a hard ``forget`` empties the note with its line)."""
    return f"{LONG_FOLDER}/{day}-{block_id}.md"


def long_note_key(rel: str) -> str | None:
    """The ``DATE#id`` of the daily line whose message a note of ``LONG_FOLDER`` holds
    whole (``None`` for any other note): a search shows the line or its note, not both."""
    match = _LONG_NAME.fullmatch(rel)
    return source_key(match.group(1), match.group(2)) if match else None


def in_daily_folder(rel: str, folder: str) -> bool:
    """Whether a path is in the daily folder (or a folder of it); with the vault's root
    as the daily folder, only the notes at the root are."""
    return rel.startswith(folder + "/") if folder else "/" not in rel


def daily_path(day: str, folder: str) -> str:
    """The vault-relative path of the daily note of ``day`` (``YYYY-MM-DD``)."""
    return f"{folder}/{day}.md" if folder else f"{day}.md"


def source_key(day: str, block_id: str) -> str:
    """The key of a daily-note line across the vault: its note's name (its date, or
    ``DATE-slug``: ``daily_name``) and its block id."""
    return f"{day}#{block_id}"


def fact_id(key: str) -> str:
    """A fact's block id, from the key of the line it was distilled from: running
    consolidation twice, or after a crash, makes the same id."""
    import hashlib  # OpenSSL's bindings load with it: a search never makes an id

    return "f" + hashlib.blake2b(key.encode(), digest_size=5).hexdigest()


def line_id(text: str) -> str:
    """A block id for a line a person typed without one."""
    import hashlib

    normal = " ".join(text.split()).casefold()
    return "m" + hashlib.blake2b(f"\0{normal}".encode(), digest_size=5).hexdigest()


class Fact:
    """A fact line of ``facts/`` or ``archive/``, read back."""

    __slots__ = ("path", "entry", "moved")

    def __init__(self, path: str, entry: Entry, moved: bool = False) -> None:
        self.path = path
        self.entry = entry
        self.moved = moved  # planned to move to the archive in this run

    @property
    def id(self) -> str | None:
        return self.entry.block_id

    @property
    def text(self) -> str:
        return self.entry.text.removeprefix("~~").removesuffix("~~")

    @property
    def kind(self) -> str:
        if self.entry.field("confidence") is not None:
            return "belief"
        return self.entry.field("kind") or "fact"

    @property
    def importance(self) -> float:
        return fraction(self.entry.field("importance"), 0.5)

    @property
    def confidence(self) -> float | None:
        value = self.entry.field("confidence")
        return None if value is None else fraction(value, 0.5)

    @property
    def supersedes(self) -> list[str]:
        """Block ids of the facts this one replaced."""
        values = self.entry.values("supersedes")
        return [ident for value in values for _, ident in _SOURCE.findall(value)]

    @property
    def sources(self) -> list[str]:
        """Keys (``date#blockid``) of the daily-note lines this fact came from."""
        return [f"{note}#{ident}" for note, ident in self._cited()]

    def _cited(self) -> Iterator[tuple[str, str]]:
        """``(note name, block id)`` of each line the fact cites as its source, in order."""
        for key in ("source", "confirmed_by"):
            for value in self.entry.values(key):
                for note, ident in _SOURCE.findall(value):
                    yield note.rsplit("/", 1)[-1], ident

    @property
    def day(self) -> dt.date | None:
        """When the fact was learnt: its first source's date, else ``[created::]``/``[date::]``."""
        # Lazily: a run asks the day of every fact, and the first source gives most.
        dated = chain(
            (note for note, _ in self._cited()),
            (value for key in ("created", "date") for value in self.entry.values(key)),
        )
        for value in dated:
            match = _DAY.search(value)
            if match:
                try:
                    return dt.date.fromisoformat(match.group(1))
                except ValueError:
                    continue
        return None

    @property
    def pinned(self) -> bool:
        return "pinned" in (t.casefold() for t in self.entry.tags) or (
            (self.entry.field("pinned") or "").casefold() in ("true", "yes", "1")
        )

    @property
    def live(self) -> bool:
        return not self.entry.struck

    @property
    def archived(self) -> bool:
        return self.path.startswith("archive/")

    def metadata(self, key: str) -> list[str]:
        return self.entry.values(key)


def fraction(value: str | None, default: float) -> float:
    """A field value read as a number clamped to 0..1; ``default`` when absent or not a number."""
    try:
        return min(1.0, max(0.0, float(value))) if value is not None else default
    except ValueError:
        return default


def render_fact(
    text: str,
    *,
    ident: str,
    kind: str,
    importance: float,
    sources: list[str],
    meta: Metadata,
    daily_folder: str,
    confidence: float | None = None,
    supersedes: str | None = None,
) -> Entry:
    """A new fact line (``docs/facts.md``), as ``parse_entry`` reads it: ``.raw`` is the
    line."""
    fields = [("kind", kind), ("importance", f"{importance:g}")]
    if confidence is not None:
        fields.append(("confidence", f"{confidence:g}"))
    for key, attribute in METADATA_FIELDS:
        fields += [(key, _field_value(v)) for v in getattr(meta, attribute)]
    links = [("source", source_link(key, daily_folder)) for key in sources]
    if supersedes:
        links.append(("supersedes", supersedes))
    line = " ".join([f"- {text}", *(f"[{k}:: {v}]" for k, v in fields + links), f"^{ident}"])
    # Words that hold nothing read as more than words, fields without "#" (a tag) and links
    # with no bracket inside: the line reads back as written, and is not parsed again (a
    # full run writes some 90,000 such lines, a second of parsing).
    if (
        _UNPLAIN.search(text)
        or line.count("#") != line.count("#^")
        or any(v.count("[") != 2 or v.count("]") != 2 for _, v in links)
    ):
        entry = parse_entry(line)
        assert entry is not None  # a list item with a block id
        return entry
    flat = tuple(part for k, v in fields + links for part in (intern(k), _shared(v.strip())))
    return Entry(0, line, " ".join(text.split()), None, ident, flat)


def source_link(key: str, folder: str) -> str:
    """``name#blockid`` as the wikilink Obsidian follows to the exact line: by the daily
    note's path (``daily_name``), which no note of the person's of the same name can take
    over."""
    day, ident = key.split("#", 1)
    return f"[[{daily_path(day, folder).removesuffix('.md')}#^{ident}]]"


def fact_link(path: str, ident: str) -> str:
    """A wikilink to a fact line."""
    return f"[[{path.removesuffix('.md')}#^{ident}]]"


def _field_value(value: str) -> str:
    return " ".join(value.replace("[", "(").replace("]", ")").split())


def with_fields(line: str, fields: list[tuple[str, str]], *, strike: bool = False) -> str:
    """The line with inline fields added before its block id, its words struck through
    when asked; the words themselves are kept."""
    match = _ITEM.match(line)
    if match is None:
        return line
    lead, rest = match["lead"], line[match.end("lead") :]
    block = _BLOCK_ID_END.search(" " + rest)
    tail = ""
    if block:
        tail = " " + (" " + rest)[block.start() :].strip()
        rest = (" " + rest)[: block.start()].strip()
    if strike:
        first_field = _FIELD_TEXT.search(rest)
        words = rest[: first_field.start()] if first_field else rest
        others = rest[len(words) :]
        words = words.strip()
        if words and not _STRUCK.match(words):
            words = f"~~{words}~~"
        rest = f"{words} {others.strip()}".strip()
    added = " ".join(f"[{key}:: {value}]" for key, value in fields)
    return f"{lead}{rest} {added}{tail}".rstrip()


def without_fields(line: str, keys: tuple[str, ...]) -> str:
    """The line without the inline fields named."""
    for key in keys:
        line = re.sub(rf"\s*\[{re.escape(key)}::(?:[^\[\]\n]|\[\[[^\]\n]*\]\])*\]", "", line)
    return line


def with_block_id(line: str, ident: str) -> str:
    """A line a person typed, given a block id so a fact can link to it."""
    return f"{line.rstrip()} ^{ident}"
