"""Files inside the vault: safe paths, the scan of what to index, guarded reads.

Everything that reads the vault's folders goes through here (writes go through
``writes.py``), so the rules live in one place: a path given by a person must stay inside
the vault (no ``..``, no symlink out), the scan never follows symlinks, and a read never
raises on bad bytes: it returns the text it could decode, or nothing, with a warning
saying why.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .errors import PathOutsideVaultError

NOTE_SUFFIXES = (".md", ".markdown")
MAX_MTIME_NS = 2**62


@dataclass(frozen=True)
class FileStat:
    """What a cheap ``stat`` says about one note; ``path`` is vault-relative with ``/``."""

    path: str
    size: int
    mtime_ns: int
    skip_reason: str | None = None


@dataclass(frozen=True)
class ReadResult:
    """A note's text (``None`` when it is not indexed), its content hash and any warnings."""

    text: str | None
    content_hash: str
    warnings: tuple[str, ...]
    size: int = 0  # from the open file, so they describe the bytes that were read
    mtime_ns: int = 0


def content_hash(data: bytes) -> str:
    """A short, stable digest of file bytes (what ``files.hash`` stores)."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def resolve_in_vault(root: Path, user_path: str | os.PathLike[str]) -> tuple[Path, str]:
    """Turn a path a person typed into an absolute path and a vault-relative one.

    Accepts paths relative to the vault or absolute paths inside it.

    Raises:
        PathOutsideVaultError: the path, after resolving ``..`` and symlinks, leaves the vault.
    """
    root = root.resolve()
    candidate = Path(user_path)
    if not candidate.is_absolute():
        candidate = root / candidate
    try:
        resolved = candidate.resolve()
    except (OSError, RuntimeError) as exc:  # a name too long, a symlink loop
        raise PathOutsideVaultError(
            f"{user_path}: cannot be resolved inside the vault ({exc})"
        ) from exc
    if resolved != root and root not in resolved.parents:
        raise PathOutsideVaultError(f"{user_path} is outside the vault {root}")
    return resolved, resolved.relative_to(root).as_posix()


def is_note_path(rel: str, exclude: tuple[str, ...]) -> bool:
    """Whether a vault-relative path names a note vaultmem indexes (by its name alone)."""
    parts = rel.split("/")
    if not parts[-1].lower().endswith(NOTE_SUFFIXES):
        return False
    return not any(part.startswith(".") or part in exclude for part in parts)


def scan_notes(root: Path, exclude: tuple[str, ...], under: str = "") -> Iterator[FileStat]:
    """Yield every note under ``root`` (or under its folder ``under``): ``*.md`` files,
    dot-folders and ``exclude`` skipped.

    Symlinks are never followed. A symlinked note is reported with a ``skip_reason`` so the
    index can record why it holds no text for it.
    """
    excluded = set(exclude)
    if under and not is_note_path(under + "/x.md", exclude):
        return
    stack = [(root / under, under + "/" if under else "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name.startswith(".") or name in excluded:
                continue
            rel = prefix + name
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append((Path(entry.path), rel + "/"))
                elif name.lower().endswith(NOTE_SUFFIXES):
                    found = _note_stat(root, rel, entry.stat(follow_symlinks=False))
                    if found is not None:
                        yield found
            except OSError:
                continue


def stat_note(root: Path, rel: str, exclude: tuple[str, ...]) -> FileStat | None:
    """The ``FileStat`` of one note as ``scan_notes`` would give it, or ``None`` when the
    path is not an indexed note (missing, ignored, not a regular file, or reached through a
    symlinked folder)."""
    if not is_note_path(rel, exclude):
        return None
    path = root / rel
    try:
        if os.path.realpath(path.parent) != os.path.join(
            os.path.realpath(root), *rel.split("/")[:-1]
        ):
            return None
        return _note_stat(root, rel, os.lstat(path))
    except OSError:
        return None


def _note_stat(root: Path, rel: str, lst: os.stat_result) -> FileStat | None:
    if stat.S_ISLNK(lst.st_mode):
        return FileStat(printable(rel), 0, 0, _symlink_reason(root, root / rel))
    if not stat.S_ISREG(lst.st_mode):  # a FIFO or a device would block or never end
        return None
    if printable(rel) != rel:
        return FileStat(
            printable(rel), 0, 0, "file name is not valid UTF-8; rename the file to index it"
        )
    # SQLite integers are 64-bit; a clock-skewed mtime must not overflow them.
    return FileStat(rel, lst.st_size, min(max(lst.st_mtime_ns, 0), MAX_MTIME_NS))


def printable(rel: str) -> str:
    """The path as valid UTF-8 text (undecodable bytes of a file name shown escaped)."""
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(rel).decode("utf-8", errors="backslashreplace")
    return rel


def _symlink_reason(root: Path, link: Path) -> str:
    try:
        target = link.resolve()
    except OSError:
        return "symlink that cannot be resolved; not followed"
    if root.resolve() not in target.parents:
        return f"symlink leading outside the vault ({target}); not followed"
    return "symlink inside the vault; not followed (its target is indexed at its own path)"


def read_note(path: Path, max_bytes: int) -> ReadResult:
    """Read one note for indexing without ever raising on its content.

    Files over ``max_bytes`` and binary files (any NUL byte) are not indexed. A UTF-8 BOM is
    dropped; invalid UTF-8 is decoded with U+FFFD in place of the bad bytes, with a warning.
    The file itself is never changed.
    """
    try:
        with open(path, "rb") as handle:
            st = os.fstat(handle.fileno())
            size, mtime_ns = st.st_size, min(max(st.st_mtime_ns, 0), MAX_MTIME_NS)
            if size > max_bytes:
                warning = f"skipped: {size} bytes is over index.max_file_bytes"
                return ReadResult(None, f"size:{size}", (warning,), size, mtime_ns)
            data = handle.read()
    except OSError as exc:
        return ReadResult(None, "", (f"skipped: cannot read ({exc.strerror})",))
    digest = content_hash(data)
    if b"\0" in data:
        return ReadResult(
            None, digest, ("skipped: binary file (contains NUL bytes)",), size, mtime_ns
        )
    try:
        return ReadResult(data.decode("utf-8-sig"), digest, (), size, mtime_ns)
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8-sig", errors="replace")
        warning = f"invalid UTF-8 at byte {exc.start}: undecodable bytes indexed as U+FFFD"
        return ReadResult(text, digest, (warning,), size, mtime_ns)
