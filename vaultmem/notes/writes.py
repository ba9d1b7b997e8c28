"""Writing to the vault without losing anyone's words.

A vault is written by vaultmem, by the person in their editor, by a sync client and by
other agents, with no lock they all share. This module owns every write vaultmem makes to
a file, and what each one promises (``docs/guarantees.md``):

* **Appends** (``append_text``: ``remember``'s line in a daily note; a line said before
  the note's last one is put in its place by a rewrite instead) are one ``O_APPEND``
  write to the note itself, so a line anyone else appends meanwhile, with or without
  vaultmem's lock, lands before or after ours and is never overwritten. No temp file, no
  rename: nothing to leave behind if the process is killed.
* **Rewrites** (``update_text``: consolidation, ``forget``, ``MEMORY.md``) compute the new
  text from the current one, write it to a temp file and *swap* it with the note
  (``renameat2(RENAME_EXCHANGE)`` on Linux). The text swapped out is compared with the text
  the change was computed from: if anyone wrote to the note in between (an editor's save,
  an append, a sync), the change is computed again on top of their version and swapped in
  again. Where the swap is not available, the note is replaced and the old file, still
  open, is read again to the same end.
* **Line endings** are the file's own: a CRLF note stays CRLF, a bare CR stays a bare CR;
  a change is computed on the text with ``\\n`` line ends and written back in the file's
  style.
* **Symlinks**: no write goes through a symlinked file, and ``inside_vault`` refuses a path
  whose folders lead out of the vault (``PathOutsideVaultError``), so a link can never make
  vaultmem write, or copy, a file elsewhere.
* **Temp files** live in ``.vaultmem/tmp/`` (``state.py``), never beside the notes.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import time
from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO

from vaultmem.errors import PathOutsideVaultError, VaultmemError
from vaultmem.notes.state import new_file_mode, write_temp

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]


class NotUTF8Error(VaultmemError):
    """A note that is not UTF-8 text: vaultmem does not write to it, as re-encoding it
    would change bytes the person wrote."""


# -- paths ----------------------------------------------------------------------------


def inside_vault(root: Path, rel: str) -> Path:
    """The absolute path of ``rel`` for writing, after checking that its folders stay inside
    the vault once symlinks are followed and that the file itself is not a symlink.

    Raises:
        PathOutsideVaultError: a folder on the way is a link out of the vault, or the file
            is a symlink (vaultmem never writes through one).
    """
    path = root / rel
    real_root = os.path.realpath(root)
    try:
        parent = os.path.realpath(path.parent)
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop (Python 3.11)
        raise PathOutsideVaultError(f"{rel}: its folder cannot be resolved ({exc})") from exc
    if parent != real_root and not parent.startswith(real_root + os.sep):
        raise PathOutsideVaultError(
            f"{rel}: its folder is a symlink to {parent}, outside the vault; "
            "vaultmem does not write outside the vault"
        )
    refuse_symlink(path, rel)
    return path


def refuse_symlink(path: Path, shown: str | None = None) -> None:
    """Raise if ``path`` is a symlink (a missing file is fine).

    Raises:
        PathOutsideVaultError: it is one.
    """
    if path.is_symlink():
        raise PathOutsideVaultError(
            f"{shown or path} is a symlink; vaultmem does not write through symlinks "
            "(replace it with the file itself to let vaultmem write it)"
        )


# -- whole-file writes ------------------------------------------------------------------


def atomic_write(path: Path, data: bytes, *, exclusive: bool = False) -> bool:
    """Write ``data`` to ``path`` so a reader sees the old file or the new one, never half.

    For files only vaultmem writes (its state, a new file); notes a person may edit go
    through ``update_text``. A temp file is written, fsynced and renamed over the target; it
    takes the target's permissions. With ``exclusive``, an existing file is left alone and
    ``False`` is returned.

    Raises:
        PathOutsideVaultError: ``path`` is a symlink.
    """
    refuse_symlink(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = write_temp(path, data)
    try:
        if exclusive:
            created = _link_new(tmp, path, data)
            _sync_folder(path.parent)
            return created
        os.replace(tmp, path)
        _sync_folder(path.parent)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return True


def _link_new(tmp: str, path: Path, data: bytes) -> bool:
    """Create ``path`` from ``tmp`` only if it does not exist (no window to clobber)."""
    try:
        os.link(tmp, path)
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
    return True


def update_text(
    path: Path, change: Callable[[str], str | None], attempts: int = 8, *, raw: bool = False
) -> bool:
    """Rewrite a note with ``change(old_text) -> new_text`` (``None``: leave it) without
    clobbering anyone's write made meanwhile (see the module docstring).

    ``change`` sees the text with ``\\n`` line ends and the note keeps its own; with
    ``raw``, ``change`` sees and returns the text exactly as stored.

    Returns:
        Whether the file was written.

    Raises:
        NotUTF8Error: the note is not UTF-8.
        PathOutsideVaultError: the note is a symlink.
        VaultmemError: the note kept changing under us.
    """
    refuse_symlink(path)
    expected = _read_bytes(path)  # what must be at ``path`` when we swap: None = no file
    base = expected  # the text ``change`` applies to
    wrote = False
    for _ in range(attempts):
        new = _changed_bytes(base, change, raw)
        if new is None:
            if base == expected:
                return wrote
            new = base or b""  # theirs needs no change, but ours is in place: put theirs back
        if base is None and not new:
            return wrote
        with _swap_in(path, new, expected) as (displaced, swapped):
            wrote = True
            if swapped:
                late = _settle(path, expected, displaced)
                if late is None:
                    return True
                # Someone rewrote the note between our read and our swap: ``late`` is their
                # version. Compute the change again on top of it; ours is there now.
                base, expected = late, _read_bytes(path)
            else:
                base = expected = _read_bytes(path)
    raise VaultmemError(f"{path} kept changing while vaultmem tried to write it; try again")


def _settle(path: Path, expected: bytes | None, displaced: BinaryIO | None) -> bytes | None:
    """After our swap: what the displaced note holds, and whether anyone wrote to it after we
    read it. Lines appended to it are appended to ours too; ``None`` means all is kept. A
    note rewritten meanwhile is returned, to compute the change again on top of it.

    The displaced note is read until it stops changing: a writer that opened the note just
    before the swap writes into it just after (``docs/guarantees.md``)."""
    seen = expected or b""
    for _ in range(16):
        _wait_for_writers(displaced)
        now = _reread(displaced)
        if now == seen:
            return None
        if not _only_appended(seen, now):
            return now
        append_bytes(path, now[len(seen) :])
        seen = now
    return None


def _wait_for_writers(handle: BinaryIO | None, timeout: float = 2.0) -> None:
    """Wait until no process has the displaced note open for writing, so that what we read
    next is all that was written to it. Linux tells: a read lease can be taken only on a
    file nobody has open for writing. Elsewhere, or for a writer that keeps the file open
    longer than ``timeout``, we go on with what is there."""
    set_lease = getattr(fcntl, "F_SETLEASE", None) if fcntl is not None else None
    if handle is None or set_lease is None:
        return
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.fcntl(handle.fileno(), set_lease, fcntl.F_RDLCK)
            fcntl.fcntl(handle.fileno(), set_lease, fcntl.F_UNLCK)
            return
        except OSError as exc:
            if exc.errno != errno.EAGAIN or time.monotonic() > deadline:
                return  # leases not allowed here (not our file, disabled): go on
            time.sleep(0.001)


def _reread(handle: BinaryIO | None) -> bytes:
    if handle is None:
        return b""
    handle.seek(0)
    return handle.read()


def _only_appended(before: bytes, after: bytes) -> bool:
    """Whether ``after`` is ``before`` with whole lines appended."""
    return len(after) > len(before) and after.startswith(before) and before.endswith(b"\n")


def append_bytes(path: Path, data: bytes) -> None:
    """Append ``data`` to a file (created if missing) with ``O_APPEND``, then ``fsync``; a
    line others append meanwhile is never overwritten."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(path, flags, new_file_mode(path.parent))
    try:
        _append_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _read_bytes(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            refuse_symlink(path)
        raise
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def _changed_bytes(
    base: bytes | None, change: Callable[[str], str | None], raw: bool = False
) -> bytes | None:
    old = decode_note(base or b"")
    crlf = uses_crlf(old) and not raw
    new = change(old.replace("\r\n", "\n") if crlf else old)
    if new is None:
        return None
    if crlf:
        new = new.replace("\n", "\r\n")
    data = new.encode("utf-8")
    return None if data == (base or b"") else data


def decode_note(data: bytes, shown: str = "the note") -> str:
    """A note's bytes as text for editing, byte for byte (a UTF-8 BOM is kept as U+FEFF).

    Raises:
        NotUTF8Error: the bytes are not UTF-8 (UTF-16 is named as such).
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        kind = "UTF-16" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else "not valid UTF-8"
        raise NotUTF8Error(
            f"{shown} is {kind} (byte {exc.start}); vaultmem writes only UTF-8 notes and "
            "leaves this one unchanged: convert it to UTF-8 to let vaultmem write it"
        ) from exc


def uses_crlf(text: str) -> bool:
    """Whether every line of ``text`` ends in CRLF (then edits keep CRLF)."""
    count = text.count("\n")
    return count > 0 and text.count("\r\n") == count


@contextlib.contextmanager
def _swap_in(
    path: Path, data: bytes, expected: bytes | None
) -> Iterator[tuple[BinaryIO | None, bool]]:
    """Put ``data`` at ``path``; yield ``(the file that was there, still open, swapped)``.

    ``swapped`` is false when nothing was written because the note appeared or vanished
    since we read it: then compute again from what is there now.
    """
    tmp = write_temp(path, data)
    displaced: BinaryIO | None = None
    try:
        if expected is None:
            yield None, _link_new(tmp, path, data)
            return
        # The displaced file stays open (closed below, after the caller has read it).
        displaced = open(tmp, "rb") if _exchange(tmp, path) else _replace_keeping_old(tmp, path)  # noqa: SIM115
        # The rename is durable once its folder is synced. Done before the caller reads the
        # displaced note, it also gives a writer that opened the note just before the swap
        # the time to finish writing to it.
        _sync_folder(path.parent)
        yield displaced, displaced is not None
    finally:
        if displaced is not None:
            displaced.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _sync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not every system can open a folder to sync it
        fd = os.open(folder, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _replace_keeping_old(tmp: str, path: Path) -> BinaryIO | None:
    """Where files cannot be swapped: replace ``path`` while holding the old file open, so
    what was written to it up to the replace can still be read."""
    try:
        old = open(path, "rb")  # noqa: SIM115 - the caller closes it
    except FileNotFoundError:
        return None
    os.replace(tmp, path)
    return old


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


@lru_cache(maxsize=1)
def _renameat2() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # only for the first exchange of a process: a search never needs it

    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # an old C library
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]
    function.argtypes.append(ctypes.c_uint)
    function.restype = ctypes.c_int
    return function


def _exchange(tmp: str, path: Path) -> bool:
    """Atomically swap two files' names; ``False`` where the system cannot."""
    function = _renameat2()
    if function is None:
        return False
    result = function(_AT_FDCWD, os.fsencode(tmp), _AT_FDCWD, os.fsencode(path), _RENAME_EXCHANGE)
    if result == 0:
        return True
    import ctypes

    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False  # a file system that cannot exchange (NFS, some FUSE)
    if code == errno.ENOENT:  # the note was deleted meanwhile: replace as for a new file
        return False
    raise OSError(code, os.strerror(code), str(path))


# -- appends ------------------------------------------------------------------------------


def append_text(path: Path, addition: Callable[[str], str | None]) -> tuple[int, str] | None:
    """Append to a note in place with one ``O_APPEND`` write (see the module docstring).

    ``addition(current_text)`` returns the text to append (``None``: nothing to do); it sees
    the note as it is, line endings included, so it can match them. The note is created if
    missing.

    Returns:
        ``(byte offset where the addition starts, the note's text before it)``, or ``None``
        when nothing was appended.

    Raises:
        NotUTF8Error: the note is not UTF-8.
        PathOutsideVaultError: the note is a symlink.
        OSError: the note cannot be opened or written (a folder, no space, read-only).
    """
    for _ in range(3):
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(path, flags, new_file_mode(path.parent))
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                refuse_symlink(path)
            raise
        try:
            opened = os.fstat(fd)
            if not stat.S_ISREG(opened.st_mode):
                raise IsADirectoryError(errno.EISDIR, "not a regular file", str(path))
            if opened.st_nlink > 1:  # the same file may be reached from outside the vault
                raise PathOutsideVaultError(
                    f"{path} has {opened.st_nlink} hard links; vaultmem does not append to a "
                    "file that may live outside the vault too (copy it to make it its own)"
                )
            data = _read_all(fd)
            text = decode_note(data, str(path))
            extra = addition(text)
            if extra is None:
                return None
            offset = _append_all(fd, extra.encode("utf-8"))
            os.fsync(fd)
            if _still_at(path, fd):
                # Only what others appended between our read and our write is read again.
                between = os.pread(fd, max(offset - len(data), 0), len(data))
                before = data[:offset] + between
                return offset, before.decode("utf-8", errors="replace")
            # The note was replaced (an editor's save) after we opened it: our line went to
            # the old file. Append again to the new one (``addition`` sees it there or not).
        finally:
            os.close(fd)
    raise VaultmemError(f"{path} kept being replaced while vaultmem appended to it; try again")


def _read_all(fd: int) -> bytes:
    size = os.fstat(fd).st_size
    chunks: list[bytes] = []
    offset = 0
    while True:
        chunk = os.pread(fd, max(size - offset, 65536), offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def _append_all(fd: int, data: bytes) -> int:
    """Write all of ``data`` at the end; returns where it starts. A write cut short (no
    space) is taken back, so the note never ends in half a line of ours."""
    start = None
    written = 0
    try:
        while written < len(data):
            count = os.write(fd, data[written:])
            if start is None:
                start = os.lseek(fd, 0, os.SEEK_CUR) - count
            written += count
    except OSError:
        if start is not None and os.fstat(fd).st_size == start + written:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, start)
        raise
    return start if start is not None else os.fstat(fd).st_size


def _still_at(path: Path, fd: int) -> bool:
    try:
        now = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (now.st_dev, now.st_ino) == (mine.st_dev, mine.st_ino)
