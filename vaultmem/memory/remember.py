"""``remember``: one message -> one canonical line in today's daily note.

The line, as people read it in Obsidian (``docs/memory.md``)::

    - 14:03 **user** Alice is allergic to peanuts #health [source:: chat] ^m3f9a1c2e

Its block id is a digest of the session and the text (plus, for a message of a transcript,
the host's id of the message: ``agent/transcripts.py``), so the same message captured twice
(an agent retrying, two hooks firing) is stored once. Noise is skipped and reported, not
stored: empty text, scheduler and heartbeat lines, and echoes of vaultmem's own context
block. Secrets (API keys, tokens, passwords, private keys) are masked before anything is
written (``secrets.py`` says what counts), so they never reach a note, a fact or ``MEMORY.md``.

``capture`` and ``note_addition`` are pure; ``store_lines`` writes a day's new lines with
one ``O_APPEND`` write under the vault's write lock (``writes.append_text``), so a line a
person, an editor or another agent appends meanwhile is never lost, and reports any failure
as ``NotStoredError``: an agent can tell from it that nothing was stored. ``store_line`` is
the one-line case (``remember``); a transcript's capture stores each day's lines at once.
"""

from __future__ import annotations

import datetime as dt
import errno
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..errors import NotStoredError, VaultmemError
from ..parse import CODE_SPAN, parse_document
from ..state import STATE_DIR, vault_write_lock
from ..writes import append_text, inside_vault, uses_crlf

# MASK and mask_secrets are re-exported: callers that imported them from here keep working.
from .facts import daily_path
from .secrets import MASK as MASK
from .secrets import mask_secrets as mask_secrets

NOISE_PREFIXES = ("[cron:", "[heartbeat", "[memory context]")
# vaultmem's own blocks: text holding these markers is an echo of what vaultmem wrote.
ECHO_MARKERS = ("<!-- vaultmem:begin -->", "<!-- vaultmem:end -->", "<!-- vaultmem:context -->")


@dataclass
class Remembered:
    """The outcome of ``Vault.remember``: where the line went, or why it was not stored."""

    path: str | None
    line: int | None
    block_id: str | None
    skipped: str | None = None
    masked: int = 0  # secrets masked in the stored line


@dataclass(frozen=True)
class Capture:
    """A message made ready to store, or the reason it is not stored."""

    line: str | None
    block_id: str | None
    skipped: str | None = None
    masked: int = 0


def block_id(session: str | None, text: str, key: str | None = None) -> str:
    """The id of a captured line: the same session and words always give the same id.

    ``key`` tells apart two messages of one session with the same words (a transcript's
    message id or timestamp: "yes" said twice is two lines); ``remember`` passes none.
    """
    normal = " ".join(text.split()).casefold()
    seed = f"{session or ''}\0{normal}" + (f"\0{key}" if key is not None else "")
    return "m" + hashlib.blake2b(seed.encode(), digest_size=5).hexdigest()


def capture(
    text: str,
    *,
    now: dt.datetime,
    role: str = "user",
    source: str | None = None,
    session: str | None = None,
    tags: tuple[str, ...] = (),
    importance: float | None = None,
    agent: str | None = None,
    key: str | None = None,
) -> Capture:
    """Turn a message into its canonical daily-note line (pure: no IO).

    ``agent`` names the agent that wrote it (``[agent:: NAME]``, for ``--agent`` filters);
    ``key`` goes into the block id only (see ``block_id``).
    """
    stripped = text.strip()
    if not stripped:
        return Capture(None, None, "empty text")
    lowered = stripped.lower()
    for prefix in NOISE_PREFIXES:
        if lowered.startswith(prefix):
            return Capture(None, None, f"noise: starts with {prefix}")
    if any(marker in stripped for marker in ECHO_MARKERS):
        return Capture(None, None, "an echo of vaultmem's own context block")
    masked_text, masked = mask_secrets(stripped)
    one_line = " ".join(masked_text.split())  # a memory is one list item: one line
    ident = block_id(session, stripped, key)
    parts = [f"- {now:%H:%M} **{_clean(role) or 'user'}** {one_line}"]
    parts += [
        f"#{_clean(tag).lstrip('#').replace(' ', '-')}" for tag in tags if _clean(tag).lstrip("#")
    ]
    if source:
        parts.append(f"[source:: {_clean(source)}]")
    if session:
        parts.append(f"[session:: {_clean(session)}]")
    if agent and _clean(agent):
        parts.append(f"[agent:: {_clean(agent)}]")
    if importance is not None:
        parts.append(f"[importance:: {importance:g}]")
    parts.append(f"^{ident}")
    return Capture(" ".join(parts), ident, None, masked)


def remember(
    root: Path,
    text: str,
    *,
    now: dt.datetime,
    role: str = "user",
    source: str | None = None,
    session: str | None = None,
    tags: Iterable[str] = (),
    importance: float | None = None,
    agent: str | None = None,
    daily_folder: str = "memory",
) -> Remembered:
    """Store one message as a line of the daily note of ``now``'s date in ``daily_folder``
    (``Vault.remember``, which indexes it); not stored when it is noise or already there.

    Raises:
        NotStoredError: the line could not be written (nothing was stored).
        VaultmemError: ``importance`` is outside 0..1.
    """
    if importance is not None and not 0 <= importance <= 1:
        raise VaultmemError(f"importance must be between 0 and 1, got {importance}")
    made = capture(
        text,
        now=now,
        role=role,
        source=source,
        session=session,
        tags=tuple(tags),
        importance=importance,
        agent=agent,
    )
    if made.line is None or made.block_id is None:
        return Remembered(None, None, None, made.skipped, made.masked)
    rel, number = store_line(root, made, now.date(), daily_folder)
    if number is None:
        return Remembered(rel, None, made.block_id, "already remembered", made.masked)
    return Remembered(rel, number, made.block_id, None, made.masked)


def _clean(value: str) -> str:
    """A field value on one line, without the brackets that would end an inline field."""
    return " ".join(value.replace("[", "(").replace("]", ")").split())


def local_time(when: dt.datetime) -> dt.datetime | None:
    """``when`` as naive local wall-clock time, the time a daily line shows (a naive time is
    local already); ``None`` when converting it leaves the years 1 to 9999 (``0001-01-01
    00:00+05:00`` in UTC), so it has no note to go in."""
    if when.tzinfo is None:
        return when
    try:
        return when.astimezone().replace(tzinfo=None)
    except (OverflowError, OSError, ValueError):
        return None


def daily_note_path(day: dt.date, folder: str) -> str:
    """Where a day's note lives, vault-relative, in the daily ``folder``."""
    return daily_path(day.isoformat(), folder)


def daily_note_header(day: dt.date) -> str:
    """The first lines of a new daily note."""
    return f"---\ndate: {day.isoformat()}\ntype: daily\n---\n\n# {day.isoformat()}\n\n"


def note_addition(old: str, line: str, ident: str, day: dt.date) -> str | None:
    """What to append to a daily note (its current text ``old``) so that ``line`` becomes
    its last line, or ``None`` if the line's block id is already there (the same message
    captured twice). The one-line case of ``lines_addition``."""
    return lines_addition(old, [(line, ident)], day)[0]


def lines_addition(
    old: str, lines: list[tuple[str, str]], day: dt.date
) -> tuple[str | None, list[str]]:
    """What to append to a daily note (its current text ``old``) so that the ``(line,
    block id)`` pairs whose id is not in the note yet become its last lines, in order:
    ``(addition or None, the ids appended)``. An id twice in ``lines`` is appended once.

    The addition uses the note's own line ending (CRLF stays CRLF), starts on a line of its
    own, begins a new note with its header, and first closes any block a person left open
    at the end of the note (a code fence, an HTML block, a ``%%`` comment), so the lines are
    never swallowed by it: indexed as code, hidden, or never consolidated.
    """
    present = set(_ENDING_ID.findall(old))
    new: list[str] = []
    appended: list[str] = []
    for line, ident in lines:
        if ident not in present:
            present.add(ident)
            new.append(line)
            appended.append(ident)
    if not new:
        return None, []
    newline = "\r\n" if uses_crlf(old) else "\n"
    body = "".join(line + newline for line in new)
    if not old:
        return daily_note_header(day).replace("\n", newline) + body, appended
    lead = "" if old.endswith(("\n", "\r")) else newline
    closers = open_block_closers(old + lead)
    return lead + "".join(closer + newline for closer in closers) + body, appended


# A block id at the end of a line (``^id``), as Obsidian reads it: what "already there" means.
_ENDING_ID = re.compile(r"\^([A-Za-z0-9-]+)[ \t]*\r?$", re.M)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# HTML blocks of CommonMark's kinds 1-5 run until their end marker, across blank lines.
_HTML_ENDS = (
    (re.compile(r"^ {0,3}<(?:script|pre|style|textarea)(?:\s|>|$)", re.I), None),
    (re.compile(r"^ {0,3}<!--"), "-->"),
    (re.compile(r"^ {0,3}<\?"), "?>"),
    (re.compile(r"^ {0,3}<![A-Za-z]"), ">"),
    (re.compile(r"^ {0,3}<!\[CDATA\["), "]]>"),
)
_PROBE = "- vaultmem probe line ^vaultmemprobe"
# What can open a block that runs past a blank line: a fence, an HTML block, a comment.
_MAY_OPEN = re.compile(r"^ {0,3}(?:`{3}|~{3}|<)|%%", re.M)


def open_block_closers(text: str) -> list[str]:
    """The lines that close whatever block is still open at the end of ``text``: a line
    appended after them starts a list item of its own. Uses the same parser as the index,
    so "open" means what the index (and Obsidian) would see."""
    closers: list[str] = []
    if not _MAY_OPEN.search(text):  # no fence, HTML or comment at all: nothing to parse
        return closers
    for _ in range(4):  # a closer may reveal another block still open around it
        body = text + "".join(c + "\n" for c in closers)
        closer = _closer(body)
        if closer is None:
            return closers
        closers.append(closer)
    return closers


def _closer(body: str) -> str | None:
    doc = parse_document(body + _PROBE + "\n")
    last = body.count("\n") + 1
    for block in doc.blocks:
        if block.line_start <= last <= block.line_end and block.kind in ("code", "html"):
            first = block.text.split("\n", 1)[0]
            fence = _FENCE.match(first)
            if fence:
                return fence.group(1)
            for opener, end in _HTML_ENDS:
                match = opener.match(first)
                if match:
                    if end is None:
                        tag = re.match(r"\s*<(\w+)", first)
                        return f"</{tag.group(1).lower() if tag else 'pre'}>"
                    return end
            return ""  # an HTML block that ends at a blank line
    # ``%%`` inside inline code (`%%`) opens no comment, in Obsidian as here.
    comments = sum(CODE_SPAN.sub("", b.text).count("%%") for b in doc.blocks if b.kind != "code")
    return "%%" if comments % 2 else None


def store_line(root: Path, made: Capture, day: dt.date, folder: str) -> tuple[str, int | None]:
    """Append a captured line to the day's note: ``(vault-relative path, line number)``,
    the number ``None`` when the line was already there.

    Raises:
        NotStoredError: the line could not be written, with the reason; nothing was stored.
    """
    rel, numbers = store_lines(root, [made], day, folder)
    assert made.block_id is not None
    return rel, numbers.get(made.block_id)


def store_lines(
    root: Path, made: list[Capture], day: dt.date, folder: str
) -> tuple[str, dict[str, int]]:
    """Append captured lines to the day's note (in the daily ``folder``) in one write:
    ``(vault-relative path, {block id: line number})`` for the lines appended; a line whose
    id is already in the note is left out (stored before).

    Raises:
        NotStoredError: the lines could not be written, with the reason; none was stored.
    """
    pairs = [(m.line, m.block_id) for m in made if m.line is not None and m.block_id is not None]
    rel = daily_note_path(day, folder)
    result: list[tuple[str, list[str]]] = []

    def addition(old: str) -> str | None:
        extra, appended = lines_addition(old, pairs, day)
        result[:] = [(extra, appended)] if extra is not None else []
        return extra

    try:
        path = inside_vault(root, rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        with vault_write_lock(root / STATE_DIR):
            done = append_text(path, addition)
    except VaultmemError as exc:
        raise NotStoredError(f"the memory was not stored: {exc}") from exc
    except OSError as exc:
        raise NotStoredError(f"the memory was not stored: {_os_reason(rel, exc)}") from exc
    if done is None or not result:
        return rel, {}
    extra, appended = result[0]
    # The appended lines are the last ones: count back from the end of the note.
    last = (done[1] + extra).count("\n")
    first = last - len(appended) + 1
    return rel, {ident: first + n for n, ident in enumerate(appended)}


def _os_reason(rel: str, exc: OSError) -> str:
    if exc.errno in (errno.EISDIR, errno.ENOTDIR):
        return f"{rel} (or a folder on its path) is not a regular file"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"no space left to write {rel}"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"{rel} cannot be written ({exc.strerror})"
    return f"{rel}: {exc.strerror or exc}"
