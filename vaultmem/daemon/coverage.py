"""What a long-running process that follows the vault (the watch daemon, the MCP server's
live index) cannot learn from file-system events: folders inotify does not watch
(``WatchCoverage``) and the vault itself moved or deleted under it (``VaultGuard``).
See ``docs/daemon.md``, "When inotify runs out of watches" and "When the vault is moved
or deleted".
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from vaultmem.errors import VaultNotFoundError, shown_path
from vaultmem.notes.files import is_note_path
from vaultmem.notes.state import STATE_DIR

if TYPE_CHECKING:
    pass

# The folders inotify could not watch (its watch limit reached) are rescanned this often:
# a stat of their notes, as ``vaultmem index`` does (``WatchCoverage``).
UNWATCHED_RESCAN_EVERY = 1.0
Change = tuple[str, str]  # ("file" | "folder", vault-relative path)


class VaultGuard:
    """The vault's folder and its ``.vaultmem`` as a long-running process found them (device
    and inode of each), so it can tell when they were moved or deleted under it.

    Why: a daemon goes on by path. After ``mv vault elsewhere`` or ``rm -rf vault`` it would
    index nothing forever, or build ``vault/.vaultmem/index.db`` again at the old path (and
    make the ``rm`` fail with a file written in the middle of it). Two ``stat`` calls tell:
    cheap enough for every pass of the daemon's loop (at least four a second when idle).
    A vault deleted and made again at the same path is another folder: it is caught too.
    """

    def __init__(self, root: Path) -> None:
        """Remember ``root`` (the vault's resolved folder) as it is now.

        Raises:
            VaultNotFoundError: it is gone already.
        """
        self.root = root
        self._found = self._identity()
        self.check()

    def present(self) -> bool:
        """Whether the vault is still the folder found at the start, at the same path."""
        return self._found is not None and self._identity() == self._found

    @property
    def message(self) -> str:
        """What a process says (one line) when it stops because the vault is gone."""
        return f"vault folder moved or deleted: stopping ({shown_path(str(self.root))})"

    def check(self) -> None:
        """Raises:
        VaultNotFoundError: the vault was moved or deleted (``message``)."""
        if not self.present():
            raise VaultNotFoundError(self.message)

    def _identity(self) -> tuple[int, int, int, int] | None:
        try:
            top = os.stat(self.root)
            state = os.stat(self.root / STATE_DIR, follow_symlinks=False)
        except OSError:
            return None
        return top.st_dev, top.st_ino, state.st_dev, state.st_ino


# One watch in /proc/self/fdinfo/<an inotify descriptor>: the watched inode and the device
# it is on, both in hex; the device as the kernel numbers it (major << 20 | minor).
_FDINFO_WATCH = re.compile(r"^inotify wd:\S+ ino:([0-9a-f]+) sdev:([0-9a-f]+)", re.MULTILINE)
_WATCH_LIMITS = ("/proc/sys/fs/inotify/max_user_watches", "/proc/sys/user/max_inotify_watches")


class WatchCoverage:
    """Which of the vault's note folders inotify does not watch, and their rescans.

    inotify needs one watch per folder, and a user has at most ``fs.inotify.max_user_watches``
    of them, shared by every program they run (and per user namespace,
    ``user.max_inotify_watches``). watchdog fails when it cannot watch the vault's folder
    itself, but a sub-folder it cannot watch (``ENOSPC`` from ``inotify_add_watch``, at
    start or when the folder is made later) it skips without a word: edits there would
    never reach the index. The kernel lists what an inotify descriptor watches in
    ``/proc/self/fdinfo`` (device and inode of each), so ``look`` compares that with the
    vault's note folders: the whole vault at start (and after watchdog watched everything
    again, after an overflow), then only the folders a batch made, moved or deleted (a walk
    of 10,000 folders takes a third of a second; of a batch's, milliseconds). A folder not
    watched is said once and covered: ``rescan_if_due`` runs the index's stat-based run over
    it every ``every`` seconds (the daemon), or the live index runs it before each read
    (``agent/live.py``).

    A folder made a moment ago may not be watched *yet* (watchdog adds its watch when it
    reads the folder's create event): it is rescanned at once, but counts for the warning
    only when a second look, ``every`` seconds later, finds it still unwatched.

    Without inotify descriptors (macOS, where one FSEvents stream covers the tree) or
    where the kernel's numbers do not match ``stat``'s (the vault's own folder, which is
    watched, is not found among them), nothing is compared and nothing is said.
    """

    def __init__(
        self,
        root: Path,
        exclude: tuple[str, ...],
        inotify_fds: set[int],
        *,
        every: float = UNWATCHED_RESCAN_EVERY,
        covered_by: str | None = None,
    ) -> None:
        """Compare ``root``'s note folders with what ``inotify_fds`` watch.

        Args:
            root: the vault folder.
            exclude: ``index.exclude``: folders whose notes are not indexed.
            inotify_fds: the descriptors of the observer watching the vault.
            every: seconds between rescans of the folders not watched.
            covered_by: how those folders are covered, for the warning (by default:
                "rescanned every N seconds").
        """
        self.root = root
        self.exclude = exclude
        self.every = every
        self.covered_by = covered_by or f"rescanned every {every:.1f} seconds"
        self._fds = sorted(inotify_fds)
        #: The outermost folders not watched (a rescan covers what is under them).
        self.unwatched: list[str] = []
        #: The warning, once said.
        self.warning = ""
        self._missing: set[str] = set()  # every folder not watched, as last looked at
        self._look_again = float("inf")  # monotonic time of the confirming second look
        self._rescan_at = 0.0

    @property
    def count(self) -> int:
        """How many folders are not watched."""
        return len(self._missing)

    def look(self, folders: Iterable[str] = ()) -> str | None:
        """Compare the folders under ``folders`` ("" for the whole vault: at start, and
        after an overflow; else those a batch made, moved or deleted) with the watches;
        with none, only a second look that is due runs.

        Returns:
            The warning, the first time some folder stays unwatched; otherwise ``None``.
        """
        named = set(folders)
        scope = [""] if "" in named else batch_scope({("folder", rel) for rel in named})[1]
        if not scope and time.monotonic() >= self._look_again:
            scope = list(self.unwatched)
        if not self._fds or not scope:
            return None
        watched = self._watched()
        found: set[str] = set()
        for (device, inode), rel in _note_folders(self.root, self.exclude, scope):
            kernel_device = os.major(device) << 20 | os.minor(device)
            if (f"{inode:x}", f"{kernel_device:x}") not in watched:
                found.add(rel)
        if scope == [""] and "" in found:  # the kernel's numbers do not match stat's here
            self._fds = []
            return None
        confirmed = found & self._missing
        if scope == [""]:
            kept: set[str] = set()
        else:  # what the look did not cover stays as it was
            prefixes = tuple(f"{folder}/" for folder in scope)
            kept = {
                rel for rel in self._missing if rel not in scope and not rel.startswith(prefixes)
            }
        self._missing = kept | found
        self.unwatched = batch_scope({("folder", rel) for rel in self._missing})[1]
        self._look_again = (
            time.monotonic() + self.every if self._missing and not self.warning else float("inf")
        )
        if not confirmed or self.warning:
            return None
        self.warning = (
            f"inotify watch limit reached (fs.inotify.max_user_watches = {_watch_limit()}): "
            + (f"{self.count} folders are " if self.count != 1 else "1 folder is ")
            + f"{self.covered_by} instead"
        )
        return self.warning

    def rescan_if_due(self, rescan: Callable[[list[str]], object]) -> None:
        """Run ``rescan`` on the folders not watched, if ``every`` seconds passed since the
        last one. A rescan that takes long (a large folder) is spaced out to ten times its
        duration, so covering folders never takes more than a tenth of the daemon's time."""
        now = time.monotonic()
        if not self.unwatched or now < self._rescan_at:
            return
        rescan(self.unwatched)
        spent = time.monotonic() - now
        self._rescan_at = time.monotonic() + max(self.every, 10 * spent)

    def _watched(self) -> set[tuple[str, str]]:
        """(inode, device) of everything our inotify descriptors watch, in the kernel's hex
        (compared as text: 10,000 watches are read in 20 ms)."""
        watched: set[tuple[str, str]] = set()
        for fd in self._fds:
            with contextlib.suppress(OSError), open(f"/proc/self/fdinfo/{fd}") as info:
                watched.update(_FDINFO_WATCH.findall(info.read()))
        return watched


def _note_folders(
    root: Path, exclude: tuple[str, ...], scope: list[str]
) -> Iterator[tuple[tuple[int, int], str]]:
    """Each folder under ``root``'s folders ``scope`` (themselves included; "" is the vault's
    own) whose notes are indexed (no dot-folders, no ``exclude``, no symlinks), with its
    (device, inode); only folders that can be listed: one that cannot is not watchable
    either (the index records it). As ``files.scan_notes`` walks, without reading a note."""
    excluded = set(exclude)
    anchored = any(entry.startswith("/") for entry in excluded)
    top = os.fspath(root)
    stack: list[tuple[tuple[int, int], str]] = []
    for folder in scope:
        if folder and not is_note_path(folder + "/x.md", exclude):
            continue
        with contextlib.suppress(OSError):  # gone (a deleted folder of the batch)
            found = os.stat(os.path.join(top, folder), follow_symlinks=False)
            if stat.S_ISDIR(found.st_mode):
                stack.append(((found.st_dev, found.st_ino), folder))
    while stack:
        key, rel = stack.pop()
        prefix = rel + "/" if rel else ""
        children: list[tuple[tuple[int, int], str]] = []
        try:
            with os.scandir(os.path.join(top, rel)) as entries:
                for entry in entries:
                    name = entry.name
                    child = prefix + name
                    if name[0] == "." or name in excluded or (anchored and "/" + child in excluded):
                        continue
                    with contextlib.suppress(OSError):  # gone since the listing
                        if entry.is_dir(follow_symlinks=False):
                            found = entry.stat(follow_symlinks=False)
                            children.append(((found.st_dev, found.st_ino), child))
        except OSError:
            continue  # gone, or cannot be listed
        yield key, rel
        stack.extend(children)


def _watch_limit() -> str:
    """The inotify watch limit of this user here: the smaller of the system's and the user
    namespace's (each is enforced)."""
    limits = []
    for name in _WATCH_LIMITS:
        with contextlib.suppress(OSError, ValueError):
            limits.append(int(Path(name).read_text()))
    return str(min(limits)) if limits else "unknown"


def inotify_fds() -> set[int]:
    """This process's inotify descriptors (none where there is no ``/proc``)."""
    found: set[int] = set()
    with contextlib.suppress(OSError):
        for name in os.listdir("/proc/self/fd"):
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/self/fd/{name}") == "anon_inode:inotify":
                    found.add(int(name))
    return found


def batch_scope(batch: set[Change]) -> tuple[list[str], list[str]]:
    """Paths and folders of a batch, without paths or folders inside a named folder."""
    folders = sorted({rel for kind, rel in batch if kind == "folder"})
    outer: list[str] = []
    for folder in folders:
        if not any(folder.startswith(o + "/") for o in outer):
            outer.append(folder)
    paths = sorted(
        rel
        for kind, rel in batch
        if kind == "file" and not any(rel.startswith(o + "/") for o in outer)
    )
    return paths, outer
