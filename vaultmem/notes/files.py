"""Files inside the vault: safe paths, the scan of what to index, guarded reads.

Everything that reads the vault's folders goes through here (writes go through
``writes.py``), so the rules live in one place: a path given by a person must stay inside
the vault (no ``..``, no symlink out), the scan never follows symlinks, and a read never
raises on bad bytes: it returns the text it could decode, or nothing, with a warning
saying why (how bytes become text is ``decode.py``). ``excerpt`` is the guarded read a
person or an agent asks for by path.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from vaultmem.errors import (
    NotANoteError,
    PathOutsideVaultError,
    VaultmemError,
    check_path,
    shown_path,
)
from vaultmem.notes.decode import ReadIssue, decode_note

NOTE_SUFFIXES = (".md", ".markdown")
MAX_MTIME_NS = 2**62


class FileStat(NamedTuple):
    """What a cheap ``stat`` says about one note; ``path`` is vault-relative with ``/``.

    A named tuple, not a dataclass: a no-op ``vaultmem index`` makes one per note (100,000
    of them), and a frozen dataclass costs several times more to build.
    """

    path: str
    size: int
    mtime_ns: int
    skip_reason: str | None = None


@dataclass(frozen=True)
class ReadResult:
    """A note's text (``None`` when it is not indexed), its content hash and any warnings.

    ``issues`` are the warnings about the note's bytes (also in ``warnings``, first);
    ``truncated`` says ``text`` is only the note's first part (``read_note``)."""

    text: str | None
    content_hash: str
    warnings: tuple[str, ...]
    size: int = 0  # from the open file, so they describe the bytes that were read
    mtime_ns: int = 0
    issues: tuple[ReadIssue, ...] = ()
    truncated: bool = False


def content_hash(data: bytes) -> str:
    """A short, stable digest of file bytes (what ``files.hash`` stores)."""
    # Imported on first use: hashlib loads OpenSSL (a few ms), which a walk of the vault
    # (a no-op index run, a status) never needs.
    import hashlib

    return hashlib.blake2b(data, digest_size=16).hexdigest()


def resolve_in_vault(root: Path, user_path: str | os.PathLike[str]) -> tuple[Path, str]:
    """Turn a path a person typed into an absolute path and a vault-relative one.

    Accepts paths relative to the vault or absolute paths inside it. The one door of every
    path into the vault a person or an agent names (``show``, ``get``, ``log``, ``diff``,
    ``restore``, MCP ``get``): a name the file system cannot even be asked about (a NUL
    byte, a lone surrogate) is refused here in one line. A name too long resolves, and then
    names no file.

    Raises:
        PathOutsideVaultError: the path, after resolving ``..`` and symlinks, leaves the vault.
        BadPathError: no file can have the path (``errors.path_problem``).
    """
    root = root.resolve()
    candidate = Path(user_path)
    if not candidate.is_absolute():
        candidate = root / candidate
    try:
        resolved = candidate.resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise PathOutsideVaultError(
            f"{user_path}: cannot be resolved inside the vault ({exc})"
        ) from exc
    except ValueError:  # "embedded null byte", "surrogates not allowed"
        check_path(user_path, "the path")
        raise
    if resolved != root and root not in resolved.parents:
        raise PathOutsideVaultError(f"{user_path} is outside the vault {root}")
    return resolved, resolved.relative_to(root).as_posix()


def note_in_vault(
    root: Path, user_path: str | os.PathLike[str], exclude: tuple[str, ...]
) -> tuple[Path, str]:
    """``resolve_in_vault`` for a path that must name a note: a ``.md`` file the index
    would take, under no dot-folder and no excluded one. What a person or an agent may
    read by path is only this: never ``.git/config``, ``.env`` or ``.vaultmem/``.

    Raises:
        PathOutsideVaultError: the path leaves the vault.
        NotANoteError: the path (after resolving symlinks) is not a note's.
    """
    absolute, rel = resolve_in_vault(root, user_path)
    if not is_note_path(rel, exclude):
        raise NotANoteError(f"{shown_path(rel)} is not a note of the vault; only notes are read")
    return absolute, rel


def is_note_path(rel: str, exclude: tuple[str, ...]) -> bool:
    """Whether a vault-relative path names a note vaultmem indexes (by its name alone)."""
    parts = rel.split("/")
    if not parts[-1].lower().endswith(NOTE_SUFFIXES):
        return False
    return not any(
        part.startswith(".") or part in exclude or _anchored(parts[: n + 1]) in exclude
        for n, part in enumerate(parts)
    )


def _anchored(parts: list[str]) -> str:
    """A folder as an ``exclude`` entry names it by path: ``/Meta/Templates`` (the leading
    ``/`` anchors it at the vault's root, as in ``.gitignore``; a bare name is any depth)."""
    return "/" + "/".join(parts)


def scan_notes(
    root: Path,
    exclude: tuple[str, ...],
    under: str = "",
    *,
    unchanged: set[tuple[str, int, int]] | None = None,
) -> Iterator[FileStat]:
    """Yield every note under ``root`` (or under its folder ``under``): ``*.md`` files,
    dot-folders and ``exclude`` skipped.

    Symlinks are never followed. A symlinked note, a symlinked folder and a symlink loop
    are reported with a ``skip_reason`` (so the index records why it holds nothing for
    them), and so are a note or a folder that cannot be read: nothing is skipped silently.

    Args:
        root: the vault folder.
        exclude: folder names (or ``/``-anchored paths) not to walk into.
        under: walk only this vault-relative folder.
        unchanged: the ``(path, size, mtime_ns)`` of notes known not to have changed. A
            plain note whose stat is in it is not yielded but taken out of the set, so that
            what is left in it afterwards is what the walk did not meet: a no-op index run
            of 100,000 notes makes no object per note (see ``index/runs.py``, ``plan_scan``).
    """
    excluded = set(exclude)
    anchored = any(entry.startswith("/") for entry in excluded)  # "/Meta/Templates"
    if under and not is_note_path(under + "/x.md", exclude):
        return
    known = unchanged if unchanged is not None else set()
    stack = [(root / under, under)]
    while stack:
        folder, folder_rel = stack.pop()
        prefix = folder_rel + "/" if folder_rel else ""
        try:
            # Iterated as it is read, not listed first: a list of the 70,000 entries of one
            # daily-notes folder made the walk of a 100,000-note vault 20% slower.
            with os.scandir(folder) as entries:
                for entry in entries:
                    name = entry.name
                    rel = prefix + name
                    if name[0] == "." or name in excluded or (anchored and "/" + rel in excluded):
                        continue
                    is_note = name.lower().endswith(NOTE_SUFFIXES)
                    if is_note and entry.is_file(follow_symlinks=False):
                        # The common case first, spelled out: it runs once per note on every
                        # index run (100,000 times for a no-op run of a large vault).
                        try:
                            lst = entry.stat(follow_symlinks=False)
                        except OSError:
                            lst = None  # told apart below
                        if (
                            lst is not None
                            and rel.isascii()
                            and 0 <= lst.st_mtime_ns <= MAX_MTIME_NS
                        ):
                            key = (rel, lst.st_size, lst.st_mtime_ns)
                            if key in known:
                                known.remove(key)
                            else:
                                yield FileStat(*key)
                            continue
                    found = _entry_stat(root, entry, rel, is_note, stack)
                    if found is not None:
                        yield found
        except OSError as exc:  # the folder cannot be listed (or stopped being readable)
            if folder_rel and exc.errno not in (errno.ENOENT, errno.ENOTDIR):  # not just gone
                yield _unreadable(folder_rel, exc, "folder")


def _entry_stat(
    root: Path, entry: os.DirEntry[str], rel: str, is_note: bool, folders: list[tuple[Path, str]]
) -> FileStat | None:
    """What ``scan_notes`` reports for a folder entry that is not a plain note: a folder is
    added to ``folders`` to be walked; a symlink, an odd file or an unreadable one gets a
    ``FileStat`` with why (or ``None`` when it is not reported)."""
    try:
        if entry.is_symlink():
            return _link_stat(root, rel, entry.stat(follow_symlinks=False))
        if entry.is_dir(follow_symlinks=False):
            folders.append((Path(entry.path), rel))
            return None
        if is_note:
            return _note_stat(root, rel, entry.stat(follow_symlinks=False))
    except OSError as exc:
        if exc.errno == errno.ENOENT:  # deleted since the folder was listed
            return None
        return _unreadable(rel, exc, "note") if is_note else None
    return None


def stat_note(root: Path, rel: str, exclude: tuple[str, ...]) -> FileStat | None:
    """The ``FileStat`` of one path as ``scan_notes`` would give it, or ``None`` when
    ``scan_notes`` would not report it (missing, ignored, not a regular file, or reached
    through a symlinked folder)."""
    *folders, name = rel.split("/")
    if (
        name.startswith(".")
        or name in exclude
        or not is_note_path("/".join([*folders, "x.md"]), exclude)
    ):
        return None
    path = root / rel
    try:
        # Non-strict realpath never raises on a loop: a looping parent just does not match.
        if os.path.realpath(path.parent) != os.path.join(os.path.realpath(root), *folders):
            return None
        lst = os.lstat(path)
        if stat.S_ISLNK(lst.st_mode):
            return _link_stat(root, rel, lst)
        if not is_note_path(rel, exclude):
            return None
        return _note_stat(root, rel, lst)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return _unreadable(rel, exc, "note") if is_note_path(rel, exclude) else None
    except ValueError:  # a NUL byte in the name
        return None


def _note_stat(root: Path, rel: str, lst: os.stat_result) -> FileStat | None:
    if not stat.S_ISREG(lst.st_mode):  # a FIFO or a device would block or never end
        return None
    if printable(rel) != rel:
        return FileStat(
            printable(rel), 0, 0, "file name is not valid UTF-8; rename the file to index it"
        )
    # SQLite integers are 64-bit; a clock-skewed mtime must not overflow them.
    return FileStat(rel, lst.st_size, _clamp(lst.st_mtime_ns))


def _link_stat(root: Path, rel: str, lst: os.stat_result) -> FileStat | None:
    """A symlink, never followed: recorded with why when it is named like a note, leads
    to a folder, or loops; ``None`` for a link to an attachment or to nothing.

    The link's own size and mtime are its stat, so a link replaced by another is
    looked at again.
    """
    path = root / rel
    if not rel.lower().endswith(NOTE_SUFFIXES):
        try:
            if not stat.S_ISDIR(os.stat(path).st_mode):
                return None
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                return None
    reason = _symlink_reason(root, path)
    return FileStat(printable(rel), lst.st_size, _clamp(lst.st_mtime_ns), reason)


def _unreadable(rel: str, exc: OSError, kind: str) -> FileStat:
    what = "its notes are" if kind == "folder" else "it is"
    reason = f"{kind} cannot be read ({exc.strerror or exc}); {what} not indexed"
    return FileStat(printable(rel), 0, 0, reason)


def _clamp(mtime_ns: int) -> int:
    return min(max(mtime_ns, 0), MAX_MTIME_NS)


def printable(rel: str) -> str:
    """The path as valid UTF-8 text (undecodable bytes of a file name shown escaped)."""
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(rel).decode("utf-8", errors="backslashreplace")
    return rel


def _symlink_reason(root: Path, link: Path) -> str:
    """Why a symlink is not followed, in words; never raises (a loop, a dangling link or
    an unreachable target is itself the reason)."""
    try:
        # strict: a loop raises ELOOP instead of Path.resolve()'s RuntimeError on 3.11
        target = os.path.realpath(link, strict=True)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symlink loop; not followed"
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return "dangling symlink (its target does not exist); not followed"
        return f"symlink whose target cannot be reached ({exc.strerror or exc}); not followed"
    except ValueError as exc:
        return f"symlink that cannot be resolved ({exc}); not followed"
    home = os.path.realpath(root)
    if os.path.commonpath([home, target]) != home:
        return f"symlink leading outside the vault ({target}); not followed"
    if os.path.isdir(target):
        return (
            "symlinked folder inside the vault; not followed "
            "(its notes are indexed at their own paths)"
        )
    return "symlink inside the vault; not followed (its target is indexed at its own path)"


def read_note(path: Path, max_bytes: int) -> ReadResult:
    """Read one note for indexing without ever raising on its content (``decode.py`` says
    how its bytes become text). The file itself is never changed.

    A note over ``max_bytes`` is read up to ``max_bytes``: that part is hashed with the
    note's size, and decoded up to its last line end (up to its last whole character when
    its first line is longer). A binary note has no text.
    """
    try:
        with open(path, "rb") as handle:
            st = os.fstat(handle.fileno())
            size, mtime_ns = st.st_size, _clamp(st.st_mtime_ns)
            # read(n) allocates n bytes first: 20 MB for every small note of a vault.
            data = handle.read() if size <= max_bytes else handle.read(max_bytes + 1)
    except OSError as exc:
        return ReadResult(None, "", (f"skipped: cannot read ({exc.strerror or exc})",))
    truncated = len(data) > max_bytes
    if truncated:
        data = data[:max_bytes]
        size = max(size, max_bytes + 1)
    # A note's first part is told by its bytes and its size: the part read is all the
    # index holds, and a note that grows or shrinks beyond it is looked at again.
    digest = content_hash(data) + (f"/{size}" if truncated else "")
    text, warnings, issues = decode_note(data, size, max_bytes, truncated=truncated)
    # A binary note's first part is no part: nothing of it is indexed.
    read_part = truncated and text is not None
    return ReadResult(text, digest, warnings, size, mtime_ns, issues, read_part)


@dataclass
class Excerpt:
    """Lines of one note, for ``vaultmem show`` and ``Vault.get``."""

    path: str
    line_start: int
    lines: list[str]
    block_id: str | None = None  # the id it was asked by

    @property
    def line_end(self) -> int:
        return self.line_start + len(self.lines) - 1

    def as_dict(self) -> dict[str, Any]:
        """The excerpt as a JSON-ready dict (``block_id`` only when asked by one)."""
        out: dict[str, Any] = {
            "path": self.path,
            "line_start": self.line_start,
            "line_end": self.line_end,
            "text": "\n".join(self.lines),
        }
        if self.block_id is not None:
            out["block_id"] = self.block_id
        return out


def split_line(target: str) -> tuple[str, int | None]:
    """``PATH:LINE`` -> (PATH, LINE); a suffix that is not 1-9 ASCII digits is part of PATH."""
    head, sep, tail = target.rpartition(":")
    if sep and _LINE_NUMBER.fullmatch(tail):
        return head, int(tail)
    return target, None


_LINE_NUMBER = re.compile(r"[0-9]{1,9}")


def is_file(path: Path) -> bool:
    """``path`` is a regular file (following symlinks); a name the file system cannot even
    look up (too long, a loop) names no file, rather than raising."""
    try:
        return path.is_file()
    except OSError:
        return False


def excerpt(
    root: Path,
    path: str,
    line: int | None,
    context: int,
    max_bytes: int,
    exclude: tuple[str, ...],
) -> Excerpt:
    """The lines of a note: all of it, or the block holding ``line`` and ``context`` lines
    around it. Only a note is read (``note_in_vault``): this is the one door through which
    ``vaultmem show``, ``Vault.get`` and the MCP server read a file by path.

    Raises:
        PathOutsideVaultError: ``path`` leaves the vault.
        NotANoteError: ``path`` is inside the vault but not a note's.
        VaultmemError: the file does not exist, is not text, or ``line`` is past its end.
    """
    from vaultmem.notes.parse import (  # the parser: not for a walk of the vault
        parse_document,
        split_lines,
    )

    absolute, rel = note_in_vault(root, path, exclude)
    if not is_file(absolute):
        raise VaultmemError(f"{shown_path(rel)}: no such file in the vault")
    read = read_note(absolute, max_bytes)
    if read.text is None:
        raise VaultmemError(f"{shown_path(rel)}: {read.warnings[0]}")
    lines = split_lines(read.text)
    if line is None:
        return Excerpt(rel, 1, lines)
    if read.truncated and line > len(lines) - (lines[-1] == ""):  # past the part read
        raise VaultmemError(f"{shown_path(rel)}: line {line} is not read: {read.issues[0].message}")
    if not 1 <= line <= len(lines):
        raise VaultmemError(f"{shown_path(rel)} has {len(lines)} lines; there is no line {line}")
    blocks = [b for b in parse_document(read.text).blocks if b.line_start <= line <= b.line_end]
    start, end = (blocks[-1].line_start, blocks[-1].line_end) if blocks else (line, line)
    start, end = max(1, start - context), min(len(lines), end + context)
    return Excerpt(rel, start, lines[start - 1 : end])
