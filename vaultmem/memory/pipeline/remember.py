"""``remember``: one message -> one canonical line in today's daily note.

The line, as people read it in Obsidian (``docs/memory.md``)::

    - 14:03 **user** Alice is allergic to peanuts #health [source:: chat] ^m3f9a1c2e

Its block id is a digest of the session and the text (plus, for a message of a transcript,
the host's id of the message: ``transcripts.py``), so the same message captured twice
(an agent retrying, two hooks firing) is stored once. Noise is skipped and reported, not
stored: empty text, scheduler and heartbeat lines, and echoes of vaultmem's own context
block. Secrets (API keys, tokens, passwords, private keys) are masked before anything is
written (``memory/language/secrets.py`` says what counts), so they never reach a note, a
fact or ``MEMORY.md``.

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

from vaultmem.errors import NotStoredError, VaultmemError
from vaultmem.memory.language.secrets import MASK as MASK
from vaultmem.memory.language.secrets import mask_field
from vaultmem.memory.language.secrets import mask_secrets as mask_secrets

# MASK and mask_secrets are re-exported: callers that imported them from here keep working.
from vaultmem.memory.pipeline.edits import block_id_lines
from vaultmem.memory.pipeline.facts import daily_path, long_note_path
from vaultmem.notes.daily_lines import line_time
from vaultmem.notes.date_range import check_day
from vaultmem.notes.decode import REPLACEMENT
from vaultmem.notes.generated_block import ECHO_MARKERS
from vaultmem.notes.parse import CODE_SPAN, parse_document
from vaultmem.notes.state import STATE_DIR, vault_write_lock
from vaultmem.notes.writes import append_text, atomic_write, inside_vault, update_text, uses_crlf

NOISE_PREFIXES = ("[cron:", "[heartbeat", "[memory context]")
# The tag a tag holding a secret becomes (``#ghp_...`` -> ``#secret-masked``).
SECRET_TAG = "secret-masked"
# vaultmem's own blocks: text holding these markers is an echo of what vaultmem wrote.

# The most bytes of words one daily line holds (64 KiB): a longer message would make its
# day's note too large to index (``index.max_file_bytes``) and slow every reader of it. Its
# line holds its start, linked to a note of its own that holds it whole
# (``facts.long_note_path``).
MAX_LINE_BYTES = 65_536
# Every kind of line end (CRLF, CR, and those Python and Unicode count: VT, FF, FS, GS,
# RS, NEL, U+2028, U+2029, which editors do not show as one) and every other character no
# text vaultmem writes holds: the C0 controls but tab and line feed, DEL, the C1 controls,
# lone surrogates (JSON's "\ud800": UTF-8 cannot even hold one) and the non-characters
# U+FFFE and U+FFFF. One class of characters: a 100 MB message is scanned once, in 1 s.
_UNWRITABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")
_LINE_ENDS = frozenset("\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


@dataclass
class Remembered:
    """The outcome of ``Vault.remember``: where the line went, or why it was not stored."""

    path: str | None
    line: int | None
    block_id: str | None
    skipped: str | None = None
    masked: int = 0  # secrets masked in the stored line
    full_text: str | None = None  # the note holding a message over MAX_LINE_BYTES whole


@dataclass(frozen=True)
class Capture:
    """A message made ready to store, or the reason it is not stored."""

    line: str | None
    block_id: str | None
    skipped: str | None = None
    masked: int = 0
    # A message over MAX_LINE_BYTES: the vault-relative path of the note that holds it
    # whole, and that note's text (``store_lines`` writes it before the line).
    full_path: str | None = None
    full_note: str | None = None


def block_id(session: str | None, text: str, key: str | None = None) -> str:
    """The id of a captured line: the same session and words always give the same id.

    ``key`` tells apart two messages of one session with the same words (a transcript's
    message id or timestamp: "yes" said twice is two lines); ``remember`` passes none.
    The id is a digest of the session, the words (case-folded, one space between them)
    and the key, taken a slice at a time (``_words_digest``).
    """
    digest = hashlib.blake2b(f"{session or ''}\0".encode("utf-8", "surrogatepass"), digest_size=5)
    _words_digest(digest, text)
    if key is not None:
        digest.update(f"\0{key}".encode("utf-8", "surrogatepass"))
    return "m" + digest.hexdigest()


# How many characters of a message ``_words_digest`` splits at a time (their words: ~3 MB).
_ID_SLICE = 1 << 18


def _words_digest(digest: hashlib.blake2b, text: str) -> None:
    """Feed ``" ".join(text.split()).casefold()`` to ``digest`` without making it: split
    whole, a 100 MB message made 20 million strings at once (1.3 GB). Slices are joined
    with the one space their words had between them, so the digest is the same whatever
    the slice size. Lone surrogates (JSON's ``"\\ud800"``) are hashed as they are."""
    started = spaced = False  # a word was fed; whitespace came after the last one
    for start in range(0, len(text), _ID_SLICE):
        piece = text[start : start + _ID_SLICE]
        words = piece.split()
        if not words:
            spaced = spaced or started
            continue
        joined = " ".join(words).casefold()
        if started and (spaced or piece[0].isspace()):
            joined = " " + joined
        digest.update(joined.encode("utf-8", "surrogatepass"))
        started, spaced = True, piece[-1].isspace()


def clean_text(text: str) -> str:
    """``text`` as vaultmem writes it: every line end as ``\\n``, every other control
    character (``_UNWRITABLE``) as U+FFFD, the replacement character; tab and all other
    characters (CJK, emoji and their joiners, accents) untouched.

    U+FFFD, not a space or nothing: a person sees that something was there, and it is no
    letter, so the words on either side stay apart (as a NUL kept them apart). Idempotent.
    """
    return _UNWRITABLE.sub(_replacement, text.replace("\r\n", "\n"))


def _replacement(match: re.Match[str]) -> str:
    return "\n" if match.group() in _LINE_ENDS else REPLACEMENT


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

    This is the one place every daily line is made (``remember``, MCP ``remember``,
    transcript capture), so the rules for hostile text live here: control characters are
    replaced (``clean_text``), and a message over ``MAX_LINE_BYTES`` keeps its start on
    the line and is kept whole in a note of its own (``full_path``), linked from the line.
    The work is linear in the message, and a large one is never split into words whole.
    """
    stripped = text.strip()
    if not stripped:
        return Capture(None, None, "empty text")
    lowered = stripped[:_NOISE_CHARS].lower()
    for prefix in NOISE_PREFIXES:
        if lowered.startswith(prefix):
            return Capture(None, None, f"noise: starts with {prefix}")
    if any(marker in stripped for marker in ECHO_MARKERS):
        return Capture(None, None, "an echo of vaultmem's own context block")
    cleaned = clean_text(stripped)
    if not _A_WORD.search(cleaned):
        return Capture(None, None, "no text: only control characters")
    masked_text, masked = mask_secrets(cleaned)
    one_line, cut = line_words(masked_text)  # a memory is one list item: one line
    ident = block_id(session, stripped, key)
    full_path = full_note = None
    if cut:
        full_path = long_note_path(now.date().isoformat(), ident)
        full_note = long_note(now.date(), ident, masked_text)
        one_line += f" [full:: [[{full_path.removesuffix('.md')}]]]"
    # Every field given is masked as the words are (a token in a session id, a tag or a
    # role is a token still), with the marker a field can hold (``mask_field``).
    role_text, role_masked = _field(role)
    tag_texts = [_tag(tag) for tag in tags]
    given = (("source", source), ("session", session), ("agent", agent))
    named = {key: _field(value) for key, value in given if value}
    masked += role_masked + sum(n for _, n in tag_texts) + sum(n for _, n in named.values())
    parts = [f"- {now:%H:%M} **{role_text or 'user'}** {one_line}"]
    parts += [f"#{tag}" for tag, _ in tag_texts if tag]
    parts += [f"[{key}:: {value}]" for key, (value, _) in named.items() if value]
    if importance is not None:
        parts.append(f"[importance:: {importance:g}]")
    parts.append(f"^{ident}")
    # The fields are cleaned with the words: a NUL in a session id hides a note as well.
    return Capture(clean_text(" ".join(parts)), ident, None, masked, full_path, full_note)


# Noise prefixes are matched on this many first characters (not a lowered copy of it all).
_NOISE_CHARS = 64
_A_WORD = re.compile(r"[^\s\ufffd]")


def line_words(text: str) -> tuple[str, bool]:
    """A message's words as its daily line holds them (every run of whitespace, line ends
    included, as one space), and whether they were cut: over ``MAX_LINE_BYTES``, the line
    holds the words that fit, cut at a space when one is near, and ``…``.

    Only the first ``4 * MAX_LINE_BYTES`` characters are looked at, so a 100 MB message
    costs no more here than a 256 kB one (a message mostly of whitespace may be cut a
    little short of the limit).
    """
    window = text[: 4 * MAX_LINE_BYTES]
    words = " ".join(window.split())
    if len(window) == len(text) and (
        len(words) <= MAX_LINE_BYTES // 4 or len(words.encode()) <= MAX_LINE_BYTES
    ):
        return words, False
    start = words.encode()[: MAX_LINE_BYTES - 4].decode("utf-8", "ignore")  # room for " …"
    space = start.rfind(" ")
    if space > len(start) - 200:  # a word cut in two only when no space is near the end
        start = start[:space]
    return start + " …", True


def long_note(day: dt.date, ident: str, text: str) -> str:
    """The note that holds a long message whole: its date, and a link back to its line
    (``source``); then the message with its own line ends, as cleaned and masked."""
    source = f'"[[{day.isoformat()}#^{ident}]]"'
    return f"---\ndate: {day.isoformat()}\ntype: long-text\nsource: {source}\n---\n\n{text}\n"


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
        return Remembered(
            rel, None, made.block_id, "already remembered", made.masked, made.full_path
        )
    return Remembered(rel, number, made.block_id, None, made.masked, made.full_path)


def _field(value: str) -> tuple[str, int]:
    """A field's value as its line holds it: cleaned as the words are (``clean_text``),
    then on one line, without brackets, its secrets masked (``mask_field``)."""
    return mask_field(clean_text(value))


def _tag(value: str) -> tuple[str, int]:
    """A tag as its line holds it, without its ``#``: one word (spaces as hyphens). A tag
    that holds a secret is ``SECRET_TAG``: a tag cannot hold a marker's space."""
    text, masked = _field(value)
    return (SECRET_TAG, masked) if masked else (text.lstrip("#").replace(" ", "-"), 0)


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
        NotStoredError: the lines could not be written, with the reason; none was stored
            (a ``day`` no note can have, ``date_range``, among the reasons).
    """
    pairs = [(m.line, m.block_id) for m in made if m.line is not None and m.block_id is not None]
    rel = daily_note_path(day, folder)
    result: list[tuple[str, list[str]]] = []
    late: list[bool] = []  # a line was said before the note's last one: it goes in its place
    inserted: list[tuple[str, list[str]]] = []  # then: the note's new text, the ids added

    def addition(old: str) -> str | None:
        late[:] = [said_before_the_end(old, [line for line, _ in pairs])]
        if late[0]:
            return None  # ``update_text`` below puts the lines in their places
        extra, appended = lines_addition(old, pairs, day)
        result[:] = [(extra, appended)] if extra is not None else []
        return extra

    def insertion(old: str) -> str | None:
        new, added = lines_in_time_order(old, pairs, day)
        inserted[:] = [(new, added)] if new is not None else []
        return new

    try:
        check_day(day, "the note's date")  # every line filed under a date passes here
        path = inside_vault(root, rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        with vault_write_lock(root / STATE_DIR):
            created = _write_long_notes(root, made)  # first: a line never links to nothing
            try:
                done = append_text(path, addition)
                if late and late[0]:
                    update_text(path, insertion)
            except BaseException:
                for note in created:
                    note.unlink(missing_ok=True)
                raise
    except VaultmemError as exc:
        raise NotStoredError(f"the memory was not stored: {exc}") from exc
    except OSError as exc:
        raise NotStoredError(f"the memory was not stored: {_os_reason(rel, exc)}") from exc
    if inserted:
        text, added = inserted[0]
        return rel, {ident: block_id_lines(text, ident)[0] for ident in added}
    if done is None or not result:
        return rel, {}
    extra, appended = result[0]
    # The appended lines are the last ones: count back from the end of the note.
    last = (done[1] + extra).count("\n")
    first = last - len(appended) + 1
    return rel, {ident: first + n for n, ident in enumerate(appended)}


def said_before_the_end(old: str, lines: list[str]) -> bool:
    """Whether a line was said before the last timed line of the note (``old``): appended,
    it would stand out of time order."""
    last = max((t for t in map(line_time, old.splitlines()) if t is not None), default=None)
    return last is not None and any((line_time(line) or last) < last for line in lines)


def lines_in_time_order(
    old: str, lines: list[tuple[str, str]], day: dt.date
) -> tuple[str | None, list[str]]:
    """The note (``old``, ``\n`` line ends) with the ``(line, block id)`` pairs not in it yet,
    each before the first line said after it, else at the end: ``(new text or None, the
    ids added)``. A place inside a block a person left open (a code fence, an HTML block,
    a ``%%`` comment) is passed over, so a line is never swallowed by it."""
    present = set(_ENDING_ID.findall(old))
    text, added = old, []
    for line, ident in lines:
        if ident in present:
            continue
        present.add(ident)
        added.append(ident)
        said = line_time(line) or "99:99"  # a line without a time goes at the end
        rows = text.splitlines(keepends=True)
        later = [n for n, row in enumerate(rows) if (line_time(row) or "") > said]
        # At most three places are tried (each is a parse of the note up to it): a note
        # that keeps a block open around its lines gets the line at its end instead.
        places = (n for n in later[:3] if not open_block_closers("".join(rows[:n])))
        place = next(places, None)
        if place is None:
            text += lines_addition(text, [(line, ident)], day)[0] or ""
        else:
            text = "".join([*rows[:place], line + "\n", *rows[place:]])
    return (text if added else None), added


def _write_long_notes(root: Path, made: list[Capture]) -> list[Path]:
    """Write the notes that hold long messages whole (``Capture.full_path``); the ones
    made now are returned. A note already there is left as it is: the same message was
    stored before (its name holds the block id), or a person has edited it since.

    Raises:
        VaultmemError: a note could not be written (its path is a symlink, no space...).
    """
    created: list[Path] = []
    try:
        for capture_ in made:
            if capture_.full_path is None or capture_.full_note is None:
                continue
            target = inside_vault(root, capture_.full_path)
            try:
                data = capture_.full_note.encode("utf-8")
                if atomic_write(target, data, exclusive=True):
                    created.append(target)
            except OSError as exc:
                raise VaultmemError(_os_reason(capture_.full_path, exc)) from exc
    except BaseException:
        for note in created:
            note.unlink(missing_ok=True)
        raise
    return created


def _os_reason(rel: str, exc: OSError) -> str:
    if exc.errno in (errno.EISDIR, errno.ENOTDIR):
        return f"{rel} (or a folder on its path) is not a regular file"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"no space left to write {rel}"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"{rel} cannot be written ({exc.strerror})"
    return f"{rel}: {exc.strerror or exc}"
