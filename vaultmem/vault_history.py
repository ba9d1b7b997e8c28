"""``Vault``'s git methods: commit, log, line history, diff, sync and restore.

The work is ``history.py``'s and ``sync.py``'s (a snapshot written elsewhere:
``versioning.py``); gitpython loads only when one of these is called. Paths are taken
absolute or relative to the vault and must stay inside it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from vaultmem.vault_base import VaultBase

if TYPE_CHECKING:
    from vaultmem.git.history import Commit, LineVersion, RestoreResult
    from vaultmem.git.sync import SyncResult


class HistoryMethods(VaultBase):
    """git's part of ``Vault``."""

    def _relative(self, path: str) -> str:
        """``path`` (absolute, or relative to the vault) relative to the vault's root.

        Raises:
            PathOutsideVaultError: the path leaves the vault.
        """
        from vaultmem.notes.files import resolve_in_vault

        return resolve_in_vault(self.root, path)[1]

    def commit(self, message: str | None = None) -> Commit | None:
        """Commit the vault's changes; ``None`` when there were none.

        Raises:
            GitError: the vault is not in a repository, or git refused.
        """
        history = self.history
        try:
            return history.commit(message)
        finally:
            self.notices += history.notices

    def log(self, path: str | None = None, since: str | None = None) -> list[Commit]:
        """Commits that touched the vault, or one note, newest first."""
        rel = self._relative(path) if path else None
        return self.history.log(rel, since)

    def line_history(self, path: str, line: int) -> list[LineVersion]:
        """When one line of a note was written and changed, newest first."""
        return self.history.line_history(self._relative(path), line)

    def diff(self, rev: str | None = None, path: str | None = None) -> str:
        """The diff of the vault (or one note) against a revision (default: the last commit)."""
        rel = self._relative(path) if path else None
        return self.history.diff(rev, rel)

    def sync(self, remote: str | None = None, *, today: dt.date | None = None) -> SyncResult:
        """Commit local changes, fetch, merge, push, and index what the merge brought.

        Each kind of file merges its own way (``vaultmem/merge.py``): fact lines by block id,
        daily notes keeping both devices' lines, and ``MEMORY.md``'s and the topic pages'
        generated blocks rebuilt from the merged facts (as of ``today``). Only where both
        devices changed the same words is the other side written beside the note as a
        conflict copy (``SyncResult.conflicts``). Never force-pushes. See ``vaultmem/sync.py``.

        Raises:
            GitError: no remote, an unreachable one, a detached HEAD, a merge or rebase in
                progress, or unresolved conflicts; nothing is changed in those cases.
        """
        history = self.history
        try:
            result = history.sync(remote, lambda: self._rebuild_blocks(today))
        finally:
            self.notices += history.notices
        self.index()
        return result

    def restore(self, at: str, paths: Iterable[str] = (), to: Path | None = None) -> RestoreResult:
        """Bring back the vault (or some paths) as it was at a revision or date.

        With ``to``, the snapshot is written into that new (or empty) folder and indexed
        there, and this vault is not touched. Without it, the present state is committed
        first, the snapshot is restored as a new commit (so a restore can be undone by
        restoring the commit before it), and the index follows.

        Raises:
            GitError: no such revision or date, or git refused.
            VaultmemError: ``to`` is a folder that is not empty, or inside the vault; a
                date that does not exist; a path that did not exist then.
        """
        from vaultmem.git.history import RestoreResult
        from vaultmem.git.versioning import export_snapshot

        rels = [self._relative(p) for p in paths]
        if to is None:
            result = self.history.restore(at, rels)
            self.index()
            return result
        to = Path(to).expanduser()
        target, written = export_snapshot(self.history, self.root, at, rels, to)
        with type(self)(to) as snapshot:
            snapshot.index()
        return RestoreResult(target, written)
