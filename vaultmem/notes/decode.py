"""A note's bytes as text, decided without IO and without ever raising on its content.

A byte-order mark says the encoding (UTF-8, UTF-16 or UTF-32, either byte order; Windows
editors save "Unicode" as UTF-16 with one); without one the text is UTF-8. Invalid bytes
are decoded as U+FFFD, with a warning. A NUL byte is read as U+FFFD too, with a warning (a
``nul-byte`` issue); only text whose first 8 KiB hold a NUL byte *and* are not text is
binary. The first part of a note over the size limit is cut at a line end (a
``too-large`` issue). ``files.read_note`` reads the bytes and hands them here.
"""

from __future__ import annotations

import codecs
from typing import NamedTuple


class ReadIssue(NamedTuple):
    """Something in a note's bytes that hides part of it, decided once here: the index
    stores ``message`` as a warning (``status`` shows it) and ``validate`` reports it as a
    problem of ``kind`` at ``line``."""

    kind: str  # "too-large", "nul-byte" or "binary": validate's kinds of problem
    line: int  # 1-based
    message: str


class NoteText(NamedTuple):
    """What ``decode_note`` makes of a note's bytes: its text (``None`` when it is binary),
    and the warnings and issues about them (the issues' messages first among the warnings)."""

    text: str | None
    warnings: tuple[str, ...]
    issues: tuple[ReadIssue, ...]


_BOMS = (  # UTF-32 first: its little-endian BOM begins with UTF-16's
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


# How much of a note tells whether it is text, as git tells it (git looks at 8,000 bytes).
SNIFF_BYTES = 8192
# What a NUL in a note is read as: a NUL can end a string in C and SQLite's functions, and
# makes git take the file for binary; U+FFFD, the replacement character, is not a letter,
# so the words on either side stay words of their own.
REPLACEMENT = "\ufffd"
BINARY_WARNING = "skipped: binary file (contains NUL bytes)"
PARTLY_INDEXED = "partly indexed:"  # how the warning of a note over the limit begins


def decode_note(data: bytes, size: int, max_bytes: int, *, truncated: bool) -> NoteText:
    """The text of a note's bytes (``files.read_note`` says how it is read).

    Args:
        data: the bytes read; with ``truncated``, the note's first ``max_bytes``.
        size: the note's size in bytes, for the warning of a truncated note.
        max_bytes: the limit of ``index.max_file_bytes``.
        truncated: the note is larger than ``max_bytes`` and ``data`` is its first part.
    """
    encoding = next((name for bom, name in _BOMS if data.startswith(bom)), "utf-8-sig")
    text, bad = _decode(data, encoding, final=not truncated)
    if "\0" in text and _binary(text, bad):
        issue = ReadIssue("binary", 1, BINARY_WARNING)
        return NoteText(None, (issue.message,), (issue,))
    issues: list[ReadIssue] = []
    if truncated:
        text, issue = _first_part(text, size, max_bytes)
        issues.append(issue)
    nuls = text.count("\0")
    if nuls:
        line = _line_at(text, text.index("\0"))
        message = (
            f"{nuls} NUL byte(s), the first on line {line}, indexed as U+FFFD (the note is "
            "unchanged); git takes a file with NUL bytes for binary: delete them"
        )
        issues.append(ReadIssue("nul-byte", line, message))
        text = text.replace("\0", REPLACEMENT)
    warnings = tuple(issue.message for issue in issues)
    if bad is not None:
        name = encoding.removesuffix("-sig").upper()
        warnings += (f"invalid {name} at byte {bad}: undecodable bytes indexed as U+FFFD",)
    return NoteText(text, warnings, tuple(issues))


def _binary(text: str, bad: int | None) -> bool:
    """Whether a note is really binary, not text with a stray NUL: its first 8 KiB hold a
    NUL and are either not valid text (``bad``: the first invalid byte) or more than a
    tenth NULs."""
    head = text[:SNIFF_BYTES]
    nuls = head.count("\0")
    return nuls > 0 and ((bad is not None and bad < SNIFF_BYTES) or nuls * 10 > len(head))


def _decode(data: bytes, encoding: str, *, final: bool) -> tuple[str, int | None]:
    """``data`` as text and the offset of its first invalid byte (``None``: all valid).
    Invalid bytes become U+FFFD; unless ``final``, a character cut off at the end (the
    first part of a longer note) is left out instead."""
    try:
        if final:
            return data.decode(encoding), None
        return codecs.getincrementaldecoder(encoding)().decode(data, False), None
    except UnicodeDecodeError as exc:
        if final:
            return data.decode(encoding, "replace"), exc.start
        return codecs.getincrementaldecoder(encoding)("replace").decode(data, False), exc.start


def _first_part(text: str, size: int, max_bytes: int) -> tuple[str, ReadIssue]:
    """The part of an oversized note's first ``max_bytes`` that is indexed, and the issue
    that says so: up to its last line end, unless that would leave out more than half of
    it (one long line: a 20 MB message); then all of it, up to its last whole character."""
    end = max(text.rfind("\n"), text.rfind("\r"))
    over = f"{PARTLY_INDEXED} {size:,} bytes is over index.max_file_bytes ({max_bytes:,}); "
    if end >= len(text) // 2:
        text = text[: end + 1]
        first_left_out = _line_at(text, len(text))
        message = f"lines 1-{first_left_out - 1} are indexed, line {first_left_out} on is not"
    else:
        first_left_out = _line_at(text, len(text))
        whole = f"lines 1-{first_left_out - 1} and " if first_left_out > 1 else ""
        message = f"{whole}the start of line {first_left_out} are indexed, the rest is not"
    return text, ReadIssue(
        "too-large",
        first_left_out,
        f"{over}{message} searchable (split the note, or raise the limit)",
    )


def _line_at(text: str, pos: int) -> int:
    """The 1-based line of ``text`` that offset ``pos`` is on, counting line ends as the
    parser does (``\\r\\n``, ``\\n`` and a lone ``\\r``)."""
    return 1 + text.count("\n", 0, pos) + text.count("\r", 0, pos) - text.count("\r\n", 0, pos)
