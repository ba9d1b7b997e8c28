"""``.vaultmem/``: vaultmem's private state folder, beside the notes.

It owns the folder's permissions (``0700``, its files ``0600``: the index holds every
note's words, so it is kept as ssh and gpg keep theirs), the temp files of vaultmem's
writes (``.vaultmem/tmp/``: git-ignored, never indexed, leftovers of a killed process
removed by the next write), and the write lock that serializes vaultmem's own writers of a
vault. What is written to the notes themselves, and how, is ``writes.py``'s.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from vaultmem.errors import VaultmemError

STATE_DIR = ".vaultmem"
TEMP_DIR = "tmp"
# Our temp files start with this prefix so the watcher, the scan and git can ignore them.
TEMP_PREFIX = ".vaultmem-tmp-"
# A temp file older than this belongs to a process that died: no write takes this long.
STALE_TEMP_SECONDS = 600.0
PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def secure_state_dir(state_dir: Path) -> None:
    """Make ``.vaultmem/`` private to its owner (``0700``), as ssh and gpg do with theirs.
    Best effort: a folder we do not own or cannot change is left as it is."""
    with contextlib.suppress(OSError):
        mode = stat.S_IMODE(state_dir.stat().st_mode)
        if mode & 0o077:
            state_dir.chmod(mode & PRIVATE_DIR_MODE)


def make_state_dir(state_dir: Path) -> None:
    """Create ``.vaultmem/`` private (``0700``) from the start, or make an existing one so:
    a new vault's state folder is never open to others, not even until its next command
    tightens it (``vaultmem init``, ``restore --to``)."""
    state_dir.mkdir(mode=PRIVATE_DIR_MODE, exist_ok=True)
    secure_state_dir(state_dir)


def create_private(path: Path) -> None:
    """Create ``path`` (a state file such as the index) readable by its owner only, or make
    an existing one so. Best effort, like ``secure_state_dir``."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            if stat.S_IMODE(os.fstat(fd).st_mode) & 0o077:
                os.fchmod(fd, PRIVATE_FILE_MODE)
        finally:
            os.close(fd)


@lru_cache(maxsize=256)
def temp_dir_for(folder: str) -> str:
    """Where to write a temp file for a file in ``folder``: the nearest vault's
    ``.vaultmem/tmp/`` when it is on the same file system (a rename cannot cross file
    systems), else ``folder`` itself."""
    here = Path(folder)
    for candidate in (here, *here.parents):
        state = candidate / STATE_DIR
        if state.is_dir() and not state.is_symlink():
            temp = state / TEMP_DIR
            try:
                temp.mkdir(mode=PRIVATE_DIR_MODE, exist_ok=True)
                if temp.stat().st_dev == here.stat().st_dev:
                    return str(temp)
            except OSError:
                pass
            break
    return folder


def clean_temp_files(state_dir: Path, older_than: float = STALE_TEMP_SECONDS) -> int:
    """Remove temp files left by killed processes (older than ``older_than`` seconds) from
    ``.vaultmem/tmp/``. Returns how many were removed."""
    removed = 0
    cutoff = time.time() - older_than
    with contextlib.suppress(OSError), os.scandir(state_dir / TEMP_DIR) as entries:
        for entry in entries:
            with contextlib.suppress(OSError):
                if entry.name.startswith(TEMP_PREFIX) and entry.stat().st_mtime < cutoff:
                    os.unlink(entry.path)
                    removed += 1
    return removed


def new_file_mode(folder: Path) -> int:
    if folder.name == STATE_DIR or STATE_DIR in folder.parts:
        return PRIVATE_FILE_MODE
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_temp(path: Path, data: bytes) -> str:
    """``data`` in a new, fsynced temp file with ``path``'s permissions; returns its name."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = new_file_mode(path.parent)
    import tempfile  # with shutil and random: only for a command that writes

    folder = temp_dir_for(str(path.parent))
    try:
        fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, dir=folder)
    except FileNotFoundError:  # someone removed .vaultmem/tmp/ since we looked: make it again
        Path(folder).mkdir(mode=PRIVATE_DIR_MODE, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


# How deep each thread holds each vault's lock, by (thread, state folder): a thread only
# reads and writes its own keys.
_depth: dict[tuple[int, str], int] = {}


@contextlib.contextmanager
def vault_write_lock(state_dir: Path, timeout: float = 10.0) -> Iterator[None]:
    """Serialize vaultmem's own writers of one vault (processes and threads alike) with an
    ``flock`` on ``.vaultmem/write.lock``; the kernel drops it if the process dies.

    Reentrant within a thread: a write made while the same thread holds the lock (a sync
    rebuilding ``MEMORY.md`` in the middle of its merge) goes ahead instead of waiting for
    itself.

    Raises:
        VaultmemError: the lock cannot be taken (held too long, or ``.vaultmem`` is not
            writable).
    """
    # Imported here: what a process that only reads (a search) never needs.
    try:
        import fcntl
    except ImportError:  # Windows
        raise AssertionError("the write lock needs flock (not on Windows)") from None
    import threading

    key = (threading.get_ident(), str(state_dir))
    if key in _depth:
        _depth[key] += 1
        try:
            yield
        finally:
            _depth[key] -= 1
        return
    try:
        fd = os.open(state_dir / "write.lock", os.O_RDWR | os.O_CREAT, PRIVATE_FILE_MODE)
    except OSError as exc:
        raise VaultmemError(
            f"cannot open {state_dir / 'write.lock'} ({exc.strerror or exc}); "
            f"vaultmem needs to write in {state_dir}"
        ) from exc
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
        clean_temp_files(state_dir)
        _depth[key] = 1
        try:
            yield
        finally:
            del _depth[key]
    finally:
        os.close(fd)  # closing the descriptor releases the lock
