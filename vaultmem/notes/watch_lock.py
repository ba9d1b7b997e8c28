"""The one-daemon-per-vault lock: an ``flock`` on ``.vaultmem/watch.lock`` that the kernel
releases when the daemon ends however it ends, and the questions "which daemon, if any,
watches this vault?" and "what does it warn of?" that ``vaultmem status`` asks. Apart from
``daemon/watch.py`` so that ``Vault.status`` can ask without importing the daemon (or watchdog).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from vaultmem.errors import DaemonRunningError

try:
    import fcntl
except ImportError:  # Windows: no flock; see docs/daemon.md
    fcntl = None  # type: ignore[assignment]

LOCK_NAME = "watch.lock"
# What the running daemon says about itself (``watch.DaemonStatus``).
STATUS_NAME = "watch.json"


class WatchLock:
    """One daemon per vault: an exclusive ``flock`` held for the daemon's lifetime."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock, or say which process holds it.

        Raises:
            DaemonRunningError: another daemon is watching this vault.
        """
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        if fcntl is not None:
            # ``holder`` (vaultmem status) takes a shared lock for an instant: try for a while.
            for attempt in range(20):
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError:
                    if attempt < 19:
                        time.sleep(0.02)
            else:
                holder = os.read(fd, 64).decode(errors="replace").strip()
                os.close(fd)
                raise DaemonRunningError(
                    f"a vaultmem watch daemon (pid {holder or '?'}) is already watching this "
                    "vault; stop it first, or use it: it keeps the index up to date"
                ) from None
        pid = f"{os.getpid()}\n".encode()
        os.pwrite(fd, pid, 0)  # the pid first, then cut what is left: never an empty file
        os.ftruncate(fd, len(pid))
        self._fd = fd

    def release(self) -> None:
        """Let go of the lock (the file stays: deleting a lock file races with its takers)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    @staticmethod
    def holder(path: Path) -> int | None:
        """The pid of the daemon holding the lock at ``path``, or ``None`` if none does."""
        if fcntl is None:
            return None
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            text = os.read(fd, 64).decode(errors="replace").strip().split("\n")[0]
            return int(text) if text.isdigit() else None
        else:
            return None
        finally:
            os.close(fd)


def daemon_pid(vault_root: Path) -> int | None:
    """The pid of the daemon watching this vault, or ``None``."""
    return WatchLock.holder(vault_root / ".vaultmem" / LOCK_NAME)


def daemon_warnings(vault_root: Path) -> list[str]:
    """What the daemon watching this vault warns of while it runs (its ``watch.json``'s
    ``warnings``: folders inotify cannot watch, say); nothing when no daemon runs."""
    pid = daemon_pid(vault_root)
    if pid is None:
        return []
    try:
        said = json.loads((vault_root / ".vaultmem" / STATUS_NAME).read_bytes())
    except (OSError, ValueError):
        return []
    if not isinstance(said, dict) or said.get("pid") != pid:
        return []  # an earlier daemon's file, not yet rewritten by this one
    warnings = said.get("warnings")
    return [str(w) for w in warnings] if isinstance(warnings, list) else []
