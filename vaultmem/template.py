"""What a new vault is made of: the packaged template (``MEMORY.md``, the tier folders, a
``.gitignore``) and the example memory, laid into a new folder or beside the notes of a
folder being adopted (an Obsidian vault, an OpenClaw workspace) without changing any file
already there. ``create_vault`` (``Vault.init``) lays them down, then commits."""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, field
from pathlib import Path

from vaultmem.errors import VaultmemError, check_path
from vaultmem.notes.state import STATE_DIR, make_state_dir
from vaultmem.notes.writes import atomic_write

_PACKAGE = Path(__file__).parent
FOLDERS = ("memory", "facts", "topics", "archive")  # memory: the default daily folder


@dataclass
class InitReport:
    """What ``vaultmem init`` laid down (``created``; ``kept``: template files the folder
    already had), and what it did with git: the ``repository`` it made (``"new"``), found
    (``"existing"``) or did not make (``"none"``), and the files it ``committed``."""

    root: Path
    created: list[str]
    kept: list[str]
    repository: str = "none"
    committed: list[str] = field(default_factory=list)


def template_dir(name: str) -> Path:
    """Where a packaged folder (``vault_template`` or ``example``) lives in this install."""
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise VaultmemError(f"vaultmem's {name}/ folder is missing from this installation")


def lay_down(path: str | os.PathLike[str], *, example: bool = False) -> InitReport:
    """Copy every template file (and with ``example``, the example memory) that does not
    exist yet into ``path``, never changing an existing file; a fresh clone of a vault's
    remote first checks out its branch.

    Raises:
        VaultmemError: ``path`` is a file, or inside another vault, or cannot be created.
        BadPathError: no folder can have ``path`` (a NUL byte, a name over 255 bytes).
        GitError: git refused (see ``git/repository.py``, ``check_out_cloned_branch``).
    """
    check_path(path, "the vault path")
    root = Path(path).expanduser()
    if root.exists() and not root.is_dir():
        raise VaultmemError(f"{path} exists and is not a folder")
    for parent in root.resolve().parents:
        if (parent / STATE_DIR).is_dir():  # its notes would be indexed by both vaults
            raise VaultmemError(
                f"{path} is inside the vault at {parent}; a vault inside a vault is not "
                "supported: use that vault, or choose a folder outside it"
            )
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise VaultmemError(f"cannot create the folder {path}: {exc.strerror or exc}") from exc
    root = root.resolve()
    from vaultmem.git.repository import check_out_cloned_branch

    check_out_cloned_branch(root)  # a second device's fresh clone joins the vault there
    make_state_dir(root / STATE_DIR)  # before any file of it: private from the start
    report = InitReport(root, [], [])
    sources = [template_dir("vault_template")]
    if example:
        sources.append(template_dir("example"))
    for source in sources:
        for file in sorted(p for p in source.rglob("*") if p.is_file()):
            rel = file.relative_to(source).as_posix()
            if "__pycache__" in rel:
                continue
            if atomic_write(root / rel, file.read_bytes(), exclusive=True):
                report.created.append(rel)
            else:
                report.kept.append(rel)
    from vaultmem.config import load_config

    daily = load_config(root).vault.daily_folder  # a config already there may name another
    for folder in (daily, *FOLDERS[1:]):
        (root / folder).mkdir(parents=True, exist_ok=True)
    return report


def create_vault(
    path: str | os.PathLike[str], *, example: bool = False, git: bool = True
) -> InitReport:
    """``Vault.init``: lay the template down (``lay_down``), show the example's facts in
    ``MEMORY.md`` from the start, then make the folder a git repository if it is not in
    one and commit (``git/repository.commit_init``); with ``git`` false, neither.

    Raises:
        VaultmemError: ``path`` is a file, or inside another vault.
        GitError: git refused.
    """
    from vaultmem.config import load_config
    from vaultmem.git.repository import commit_init
    from vaultmem.memory.pipeline.runner import rebuild_blocks

    report = lay_down(path, example=example)
    if example and "MEMORY.md" in report.created:
        # The example's facts are already distilled: MEMORY.md shows them from the start.
        rebuild_blocks(report.root, load_config(report.root), dt.date.today())
    done = commit_init(report.root, report.created, git=git)
    report.repository, report.committed = done.repository, done.committed
    return report
