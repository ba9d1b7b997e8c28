"""What vault operations ask of git beyond one ``History`` call: committing at the end of a
memory run without failing it (``commit_quietly``), and writing a past snapshot into a
folder outside the vault (``export_snapshot``, ``vaultmem restore --to``).

Git itself is called from ``history.py``; this module only receives an open ``History``,
so importing it starts no git.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from vaultmem.errors import GitError, VaultmemError, check_path
from vaultmem.notes.state import STATE_DIR, make_state_dir

if TYPE_CHECKING:
    from vaultmem.git.history import Commit, History


def commit_quietly(
    history: Callable[[], History], message: str, notices: list[str], only: list[str]
) -> str | None:
    """Commit when the vault is in a git repository; a notice, not an error, otherwise.

    Args:
        history: opens the vault's history (it raises ``GitError`` outside a repository).
        message: the commit message.
        notices: where a failure to commit, and what git said on its own, are told.
        only: the files the run wrote (the memory log goes with them): a person's pending
            edits elsewhere are not the run's to commit.

    Returns:
        The new commit's sha, or ``None`` (nothing to commit, or not committed).
    """
    try:
        opened = history()
        commit = opened.commit(message, only=only)
    except GitError as exc:
        notices.append(f"not committed: {exc}")
        return None
    notices += opened.notices
    return commit.sha if commit else None


def export_snapshot(
    history: History, root: Path, at: str, paths: list[str], to: Path
) -> tuple[Commit, list[str]]:
    """Write the vault at ``root`` as it was at ``at`` (or only ``paths``) into the new or
    empty folder ``to``, made a vault (its ``.vaultmem/``); the vault is not touched.

    Returns:
        The commit restored and the vault-relative paths written.

    Raises:
        GitError: no such revision or date, or git refused.
        VaultmemError: ``to`` is a folder that is not empty, or inside the vault, or cannot
            be created; a date that does not exist; a path that did not exist then.
        BadPathError: no folder can have ``to`` (a NUL byte, a name over 255 bytes).
    """
    check_path(to, "the folder to restore to")
    if to.resolve().is_relative_to(root):
        # A snapshot inside the vault would be indexed (every hit twice) and committed.
        raise VaultmemError(f"{to} is inside the vault; restore --to a folder outside it")
    if to.exists() and (not to.is_dir() or any(to.iterdir())):
        raise VaultmemError(f"{to} exists and is not an empty folder; choose a new one")
    target = history.resolve(at)
    history.existed_at(target, paths)
    try:
        to.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise VaultmemError(f"cannot create the folder {to}: {exc.strerror or exc}") from exc
    written = history.export(target.sha, paths, to)
    make_state_dir(to / STATE_DIR)
    return target, written
