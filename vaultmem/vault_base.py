"""What every part of ``Vault`` stands on: the open vault (its root, config and notices),
its shadow index (kept usable by ``keeper.py``), its git history and this device's name.

``Vault`` (``vault.py``) is this base with two groups of methods, each in its own module:
the memory pipeline's (``vault_memory.py``) and git's (``vault_history.py``).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Self

from vaultmem.config import Config, load_config
from vaultmem.embeddings import release_matrix
from vaultmem.errors import VaultNotFoundError, check_path
from vaultmem.index.recovery import IndexKeeper
from vaultmem.notes.state import STATE_DIR, secure_state_dir

if TYPE_CHECKING:
    from vaultmem.git.history import History
    from vaultmem.index.database import Index
    from vaultmem.index.runs import IndexReport, Progress
    from vaultmem.notes.files import FileStat

INDEX_FILE = "index.db"


class VaultBase:
    """An open vault and its index; ``Vault`` adds the rest."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        index_path: Path | None = None,
        tracer: Callable[[str], None] | None = None,
    ) -> None:
        """Open the vault at ``path``.

        Args:
            path: the vault folder (the one holding ``.vaultmem/``).
            index_path: use another index file (tests compare two indexes of one vault).
            tracer: called with every SQL statement run on the index, for debugging.

        Raises:
            VaultNotFoundError: the folder does not exist or is not a vault.
            BadPathError: no folder can have that path (a NUL byte, a name too long).
            ConfigError: ``.vaultmem/config.toml`` or ``local.toml`` is invalid.
        """
        check_path(path, "the vault path")  # --vault, $VAULTMEM_VAULT, a library caller
        root = Path(path).expanduser()
        if not root.is_dir():
            raise VaultNotFoundError(f"no vault at {path}: the folder does not exist")
        if not (root / STATE_DIR).is_dir():
            raise VaultNotFoundError(
                f"{path} is not a vault (no {STATE_DIR}/ folder); "
                f"run `vaultmem init {path}` to create or adopt one"
            )
        self.root = root.resolve()
        secure_state_dir(self.root / STATE_DIR)  # the index holds every note's words
        #: What vaultmem did on its own that a person should hear of (for example: a
        #: corrupt index was rebuilt, a setting was ignored). The CLI prints these as warnings.
        self.notices: list[str] = []
        self.config: Config = load_config(self.root, self.notices)
        self.index_path = index_path or self.root / STATE_DIR / INDEX_FILE
        self._keeper = IndexKeeper(
            self.root, self.config.index, self.index_path, tracer, self.notices
        )

    @property
    def db(self) -> Index:
        """The open shadow index (opened, created or rebuilt on first use)."""
        return self._keeper.db

    def close(self) -> None:
        """Close the index connection, and the search matrix if a search mapped it."""
        self._keeper.close()
        release_matrix(self.root / STATE_DIR)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def scan(self) -> list[FileStat]:
        """Stat every note in the vault (no reads)."""
        from vaultmem.notes.files import scan_notes

        return list(scan_notes(self.root, self.config.index.exclude))

    def index(
        self,
        progress: Progress | None = None,
        *,
        rebuild: bool = False,
        should_stop: Callable[[], bool] | None = None,
    ) -> IndexReport:
        """Bring the index up to date with the files: stat all, read only what changed.

        With ``rebuild``, every note is read again and the index rebuilt from scratch, in
        one transaction: other processes keep searching the old index until it is done.
        An index that turns out corrupt midway is deleted and rebuilt from the files.

        Raises:
            IndexLockedError: another process holds the index past the busy timeout.
            Interrupted: ``should_stop`` returned true; nothing of the run was written.
        """
        return self._keeper.refresh(progress, rebuild, should_stop)

    def reindex(self, progress: Progress | None = None) -> IndexReport:
        """Rebuild the index from the files alone (see ``index``)."""
        return self.index(progress, rebuild=True)

    def index_paths(
        self,
        paths: Iterable[str],
        folders: Iterable[str] = (),
        should_stop: Callable[[], bool] | None = None,
        *,
        wait: bool = True,
    ) -> IndexReport:
        """Update the index for some notes only: the given vault-relative paths (changed,
        created or gone) and everything under the given folders. The watch daemon's step.

        With ``wait`` false, a run of another process is waited for only as long as the
        busy timeout (``remember``: its line is stored already, the next run indexes it).

        Raises:
            IndexLockedError: another process holds the index past the wait.
        """
        return self._keeper.refresh_paths(paths, folders, should_stop, wait)

    def _log_access(self, places: list[tuple[str, str | None]]) -> None:
        from vaultmem.memory.pipeline.ledger import log_access

        log_access(self.root, self.device, places, self.notices)

    @property
    def device(self) -> str:
        """This device's name in the memory log."""
        from vaultmem.memory.pipeline.ledger import device_name

        return device_name(self.config.memory.device)

    def _commit_quietly(self, message: str, notices: list[str]) -> str | None:
        """Commit when the vault is in a git repository; a notice, not an error, otherwise."""
        from vaultmem.git.versioning import commit_quietly

        return commit_quietly(lambda: self.history, message, notices)

    @property
    def history(self) -> History:
        """The vault's git history (see ``vaultmem.git.history``)."""
        from vaultmem.git.history import History  # gitpython takes 40 ms to import: only when used

        return History(self.root, self.config.git.timeout_seconds, self.config.vault.daily_folder)

    def _rebuild_blocks(self, today: dt.date | None) -> None:
        """After a merge: ``MEMORY.md``'s and the topic pages' blocks from the merged facts."""
        from vaultmem.memory.pipeline.runner import rebuild_blocks

        self.notices += rebuild_blocks(self.root, self.config, today or dt.date.today())
