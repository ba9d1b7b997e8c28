"""Capture of agent session transcripts: each message into the daily note of its own date.

``capture_transcript`` reads a host's JSONL transcript (``transcript_formats.py`` knows the
formats), turns every message into the line ``remember`` would write for it (the same noise filters
and secret masking: ``remember.py``'s ``capture``), groups the lines by the local
date the message was sent, and appends each day's new lines with one locked write
(``store_lines``). ``docs/capture.md`` is the user's view.

Idempotent by block ids, not by any saved state: a message's id is a digest of its
session, its words and the host's id of the message (Claude Code's ``uuid``, OpenClaw's
``id``; else its timestamp as written; else how many times the same words were said
before in that session of the file). Capturing a file again, or after it grew, appends
only lines whose id is not in their note yet; "yes" said twice is two lines. Nothing is
cached in ``.vaultmem/``: a re-run parses the whole file again (5,000 messages in well
under a second, ``docs/capture.md``), so deleting ``.vaultmem/`` cannot duplicate a line.

A line that is not JSON (a crash mid-write), or is nested too deeply for Python to read
(``RecursionError``), is skipped and counted; a last line without its line end that is not
JSON yet is one the host is still writing, read by the next run. As nothing is saved
between runs, a bad line is skipped again by every later capture: it never blocks the
lines after it. A message whose timestamp is a time no note can have (``date_range``:
the year 10000, or 1 January of year 1) is skipped and counted too, never filed under
another date. Bytes that are not UTF-8 are replaced (U+FFFD), keeping the message's other
words. A non-empty file none of whose lines is a JSON object is no transcript: an error.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import itertools
import json
import os
import re
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from vaultmem.errors import NotStoredError, VaultmemError, check_path
from vaultmem.memory.pipeline.remember import (
    Capture,
    block_id,
    capture,
    daily_note_path,
    local_time,
    store_lines,
)
from vaultmem.memory.pipeline.transcript_formats import FORMATS, PARSERS, Context, Message, detect
from vaultmem.notes.date_range import in_range

# How many entries auto-detection looks at: the first ones always tell (a header or the
# first message), but a transcript may open with bookkeeping lines.
DETECT_ENTRIES = 50


class TranscriptError(VaultmemError):
    """A transcript that cannot be read, or whose format vaultmem does not know."""


@dataclass
class CaptureReport:
    """What ``Vault.capture`` did with a transcript.

    ``added`` lines were appended now, ``already`` messages were in their notes before,
    ``skipped`` messages held no words to keep (tool calls, noise, vaultmem's own context),
    ``malformed`` lines were not JSON, ``too_deep`` lines were nested too deeply to read,
    ``out_of_range`` messages carried a time outside the dates a note can have
    (``days.py``), ``incomplete`` says the last line is still being written (the next
    capture reads it); ``failed`` says which notes could not be written (their messages
    were not stored: capture again once the cause is fixed).
    """

    transcript: str
    format: str | None
    added: int = 0
    already: int = 0
    skipped: int = 0
    malformed: int = 0
    too_deep: int = 0
    out_of_range: int = 0
    incomplete: bool = False
    masked: int = 0
    paths: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "transcript": self.transcript,
            "format": self.format,
            "added": self.added,
            "already": self.already,
            "skipped": self.skipped,
            "malformed": self.malformed,
            "too_deep": self.too_deep,
            "out_of_range": self.out_of_range,
            "incomplete": self.incomplete,
            "masked": self.masked,
            "paths": self.paths,
            "failed": self.failed,
        }


@dataclass
class _Entries:
    """The JSON objects of a transcript's lines, read lazily; counts the bad lines.

    Bytes that are not UTF-8 become U+FFFD: the rest of the message's words are kept
    rather than the line lost. A last line without its line end that is not JSON yet is
    ``incomplete`` (the host is still writing it), not ``malformed``.
    """

    path: Path
    malformed: int = 0
    too_deep: int = 0
    incomplete: bool = False
    objects: int = 0

    def __iter__(self) -> Iterator[Mapping[str, Any]]:
        with _open_regular(self.path) as handle:
            for number, raw in enumerate(handle):
                if number == 0:
                    raw = raw.removeprefix(b"\xef\xbb\xbf")  # a BOM some editors write
                if not raw.strip():
                    continue
                try:
                    entry = json.loads(raw.decode("utf-8", "replace"))
                except (ValueError, RecursionError) as exc:
                    # A line nested deeper than Python's recursion limit (~1,000 levels)
                    # is skipped like a bad line: each capture skips it again, the same
                    # way, so it never stops the lines after it from being stored.
                    if not raw.endswith(b"\n"):
                        self.incomplete = True
                    elif isinstance(exc, RecursionError):
                        self.too_deep += 1
                    else:
                        self.malformed += 1
                    continue
                if isinstance(entry, dict):
                    self.objects += 1
                    yield entry
                else:
                    self.malformed += 1


def _open_regular(path: Path) -> BinaryIO:
    """``path`` opened for reading if it is a regular file. Opened without blocking, then
    checked: a FIFO would wait for a writer, a device (``/dev/zero``) never end.

    Raises:
        TranscriptError: it cannot be opened, or is no regular file.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise TranscriptError(f"cannot read transcript {path}: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise TranscriptError(f"{path} is not a regular file; nothing was captured")
    return os.fdopen(fd, "rb")


def capture_transcript(
    root: Path,
    transcript: Path,
    *,
    fmt: str = "auto",
    agent: str | None = None,
    session: str | None = None,
    daily_folder: str,
) -> CaptureReport:
    """Append a transcript's new messages to the daily notes of their dates, in
    ``daily_folder`` (see the module docstring). Indexing the notes is the caller's
    (``Vault.capture``).

    Raises:
        TranscriptError: the transcript cannot be read, the format is unknown, or
            ``auto`` cannot tell it.
        BadPathError: no file can have the transcript's path (a NUL byte, a name over
            255 bytes), as a hook's JSON may name it.
    """
    if fmt != "auto" and fmt not in FORMATS:
        raise TranscriptError(
            f"unknown transcript format {fmt!r}; use auto or {', '.join(FORMATS)}"
        )
    check_path(transcript, "the transcript path")
    with contextlib.suppress(OSError):  # unreadable: opening it says why, in one line
        if transcript.is_dir():
            raise TranscriptError(f"{transcript} is a folder, not a transcript file")
    entries = _Entries(transcript)
    stream = iter(entries)
    head = list(itertools.islice(stream, DETECT_ENTRIES))
    name = fmt if fmt != "auto" else detect(head)
    report = CaptureReport(str(transcript), name)
    if not head and (entries.malformed or entries.too_deep or entries.incomplete):
        raise TranscriptError(f"{transcript} is not a JSONL transcript (no line is a JSON object)")
    if name is None:
        if head:
            raise TranscriptError(
                f"{transcript}: cannot tell its format from its first lines; "
                f"name it with --format ({', '.join(FORMATS)})"
            )
        return report
    parse, ctx = PARSERS[name], Context()
    messages = (m for entry in itertools.chain(head, stream) for m in parse(entry, ctx))
    where = _Dailies(root, daily_folder)
    days, undated = _lines_by_day(where, messages, report, transcript, name, agent, session)
    report.malformed, report.too_deep = entries.malformed, entries.too_deep
    report.incomplete = entries.incomplete
    if undated:
        _drop_stored_elsewhere(where, days, undated, report)
    for day in sorted(days):
        _store_day(where, day, days[day], report)
    return report


@dataclass(frozen=True)
class _Dailies:
    """The vault's root and its daily folder (``[vault] daily_folder``)."""

    root: Path
    folder: str


def _lines_by_day(
    where: _Dailies,
    messages: Iterator[Message],
    report: CaptureReport,
    transcript: Path,
    fmt: str,
    agent: str | None,
    session: str | None,
) -> tuple[dict[dt.date, list[Capture]], set[str]]:
    """The lines to store, by local date; and the ids of lines dated by the file's mtime
    (their date can change as the file grows, so they are looked for in every note)."""
    days: dict[dt.date, list[Capture]] = {}
    undated: set[str] = set()
    stored = _StoredIds(where)
    said: dict[tuple[str, str, str], int] = {}
    previous: dt.datetime | None = None
    mtime: dt.datetime | None = None
    for message in messages:
        if not message.text:
            report.skipped += 1
            continue
        who = session or message.session or transcript.stem
        local = local_time(message.time) if message.time is not None else None
        if message.out_of_range or (message.time is not None and not (local and in_range(local))):
            report.out_of_range += 1  # a time no note can have: skipped, never misfiled
            continue
        when = local or previous
        if when is None:
            mtime = mtime or _mtime(transcript)
            when = mtime
        else:
            previous = when
        key = message.key
        if key is None:  # the nth time these words were said in this session of the file
            seen = (who, message.role, block_id(None, message.text))  # the words' digest
            said[seen] = said.get(seen, 0) + 1
            key = f"#{said[seen]}"
        # Most of a re-run's messages are stored already: knowing it from the id spares
        # masking their secrets again (the costly part). The locked append checks again.
        ident = block_id(who, message.text.strip(), key)
        if any(ident in stored.of(day) for day in _days_to_look_in(message.time, when)):
            report.already += 1
            continue
        made = capture(
            message.text, now=when, role=message.role, source=fmt, session=who, agent=agent, key=key
        )
        report.masked += made.masked
        if made.line is None or made.block_id is None:
            report.skipped += 1
            continue
        days.setdefault(when.date(), []).append(made)
        if when is mtime:
            undated.add(made.block_id)
    return days, undated


class _StoredIds:
    """The block ids at line ends in each day's note, read once per day."""

    def __init__(self, where: _Dailies) -> None:
        self.where = where
        self.days: dict[dt.date, set[str]] = {}

    def of(self, day: dt.date) -> set[str]:
        if day not in self.days:
            try:
                rel = daily_note_path(day, self.where.folder)
                text = (self.where.root / rel).read_text("utf-8", "replace")
            except OSError:  # no note yet (or not a file: the append reports it)
                text = ""
            self.days[day] = set(_ID_AT_END.findall(text))
        return self.days[day]


def _days_to_look_in(time: dt.datetime | None, when: dt.datetime) -> list[dt.date]:
    """The notes an earlier capture may have put this message in. A time with an offset
    lands on the local date of the time zone of the run that captured it: any date within
    a day of its UTC date (offsets are within -12 h and +14 h), so a run in another time
    zone finds it there and does not store it twice."""
    if time is None or time.tzinfo is None:
        return [when.date()]  # local wall-clock time: the same date in any time zone
    try:
        utc = time.astimezone(dt.UTC).date()
        return [when.date(), *(utc + dt.timedelta(days=d) for d in (-1, 0, 1))]
    except (OverflowError, ValueError):
        return [when.date()]


def _mtime(transcript: Path) -> dt.datetime:
    """The file's last change, local time: the date of messages without a time (now, when
    the file's clock is one no note can have)."""
    try:
        when = dt.datetime.fromtimestamp(transcript.stat().st_mtime)
    except (OSError, OverflowError, ValueError):
        return dt.datetime.now()
    return when if in_range(when) else dt.datetime.now()


_ID_AT_END = re.compile(r"\^(m[0-9a-f]{10})[ \t]*\r?$", re.M)


def _drop_stored_elsewhere(
    where: _Dailies, days: dict[dt.date, list[Capture]], undated: set[str], report: CaptureReport
) -> None:
    """Leave out lines dated by the file's mtime that an earlier run stored in another
    day's note (the file's mtime moved on since)."""
    found: set[str] = set()
    for note in sorted((where.root / where.folder).glob("*.md")):
        try:
            found.update(
                i for i in _ID_AT_END.findall(note.read_text("utf-8", "replace")) if i in undated
            )
        except OSError:
            continue
    if not found:
        return
    for day, made in days.items():
        kept = [m for m in made if m.block_id not in found]
        report.already += len(made) - len(kept)
        days[day] = kept


def _store_day(where: _Dailies, day: dt.date, made: list[Capture], report: CaptureReport) -> None:
    if not made:
        return
    try:
        rel, numbers = store_lines(where.root, made, day, where.folder)
    except NotStoredError as exc:
        rel = daily_note_path(day, where.folder)
        report.failed.append(f"{rel}: {len(made)} message(s): {exc}")
        return
    report.added += len(numbers)
    report.already += len(made) - len(numbers)
    if numbers:
        report.paths.append(rel)
    # The notes that hold long messages whole (``remember.MAX_LINE_BYTES``): indexed too.
    report.paths += [m.full_path for m in made if m.full_path and m.block_id in numbers]


# -- hooks ------------------------------------------------------------------------------


def transcript_from_hook(data: str) -> tuple[Path, str | None]:
    """The transcript a host's hook names on stdin, and its session id.

    Claude Code sends ``{"session_id", "transcript_path", "cwd", "hook_event_name"}``;
    Codex sends the same keys, but ``transcript_path`` may be null: its rollout is then
    looked up by session id under ``$CODEX_HOME/sessions`` (default ``~/.codex``).

    Raises:
        TranscriptError: the input is not such JSON, or names no transcript that exists.
    """
    try:
        hook = json.loads(data)
    except ValueError as exc:
        raise TranscriptError(f"the hook input on stdin is not JSON ({exc})") from exc
    except RecursionError:
        raise TranscriptError("the hook input on stdin is nested too deeply to read") from None
    if not isinstance(hook, dict):
        raise TranscriptError("the hook input on stdin is not a JSON object")
    session = hook.get("session_id") if isinstance(hook.get("session_id"), str) else None
    named = hook.get("transcript_path")
    if isinstance(named, str) and named:
        path = Path(named).expanduser()
        if not path.is_absolute() and isinstance(hook.get("cwd"), str):
            path = Path(hook["cwd"]) / path
        return path, session
    if session:
        found = _codex_rollout(session)
        if found is not None:
            return found, session
    raise TranscriptError(
        "the hook input names no transcript (no transcript_path"
        + (f", and no Codex rollout for session {session}" if session else "")
        + ")"
    )


def _codex_rollout(session: str) -> Path | None:
    home = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")
    if not re.fullmatch(r"[A-Za-z0-9._-]+", session):  # a file name part, nothing more
        return None
    matches = sorted((home / "sessions").glob(f"**/rollout-*{session}.jsonl"))
    return matches[-1] if matches else None
