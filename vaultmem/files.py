"""Files inside the vault: safe paths, the scan of what to index, guarded reads, atomic writes.

Everything that touches the vault's folders goes through here, so the rules live in one
place: a path given by a person must stay inside the vault (no ``..``, no symlink out), the
scan never follows symlinks, and a read never raises on bad bytes: it returns the text it
could decode, or nothing, with a warning saying why.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .errors import PathOutsideVaultError, VaultmemError

NOTE_SUFFIXES = (".md", ".markdown")
# Our own temp files start with this prefix so the watcher and the scan can ignore them.
TEMP_PREFIX = ".vaultmem-tmp-"
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


def _new_file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write(path: Path, data: bytes, *, exclusive: bool = False) -> bool:
    """Write ``data`` to ``path`` so a reader sees the old file or the new one, never half.

    A unique temp file in the same folder is written, fsynced and renamed over the target;
    it takes the target's permissions (a new file: the usual ones under the umask). With
    ``exclusive``, an existing file is left alone and ``False`` is returned.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = _new_file_mode()
    fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        if exclusive:
            try:
                os.link(tmp, path)  # fails if path exists: no window where we could clobber
            except FileExistsError:
                return False
            except OSError:
                # No hard links here (exFAT, some network shares): create exclusively.
                try:
                    with open(path, "xb") as handle:
                        handle.write(data)
                        handle.flush()
                        os.fsync(handle.fileno())
                except FileExistsError:
                    return False
            finally:
                os.unlink(tmp)
        else:
            os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return True


@contextlib.contextmanager
def vault_write_lock(state_dir: Path, timeout: float = 10.0) -> Iterator[None]:
    """Serialize vaultmem's own writers of one vault (processes and threads alike) with an
    ``flock`` on ``.vaultmem/write.lock``; the kernel drops it if the process dies."""
    import fcntl

    fd = os.open(state_dir / "write.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise VaultmemError(
                        f"another vaultmem process held {state_dir / 'write.lock'} for "
                        f"{timeout:.0f} s; try again"
                    ) from None
                time.sleep(0.005)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def update_text(path: Path, change: Callable[[str], str | None], attempts: int = 5) -> bool:
    """Rewrite a note with ``change(old_text) -> new_text`` (``None``: leave it), atomically,
    without clobbering an edit made meanwhile: if the file changed between our read and our
    rename, the change is re-applied on top of the new text.

    Returns:
        Whether the file was written.

    Raises:
        VaultmemError: the file kept changing under us.
    """
    for _ in range(attempts):
        try:
            before = path.stat()
            old = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            before, old = None, ""
        new = change(old)
        if new is None:
            return False
        if _unchanged(path, before):
            atomic_write(path, new.encode("utf-8"))
            return True
    raise VaultmemError(f"{path} kept changing while vaultmem tried to write it; try again")


def _unchanged(path: Path, before: os.stat_result | None) -> bool:
    try:
        now = path.stat()
    except FileNotFoundError:
        return before is None
    return before is not None and (now.st_mtime_ns, now.st_size, now.st_ino) == (
        before.st_mtime_ns,
        before.st_size,
        before.st_ino,
    )
