"""Where a vault is: a folder holding ``.vaultmem/``, named explicitly, by
``$VAULTMEM_VAULT``, or found the way git finds its repository (the nearest folder at or
above the current one that holds it)."""

from __future__ import annotations

import os
from pathlib import Path

from vaultmem.errors import VaultNotFoundError, check_path
from vaultmem.notes.state import STATE_DIR

ENV_VAR = "VAULTMEM_VAULT"


def vault_root(path: str | os.PathLike[str]) -> Path:
    """The resolved folder of the vault at ``path``.

    Raises:
        VaultNotFoundError: the folder does not exist or is not a vault.
        BadPathError: no folder can have that path (a NUL byte, a name too long).
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
    return root.resolve()


def find_vault(path: str | os.PathLike[str] | None, start: Path | None) -> str | os.PathLike[str]:
    """``path``, else ``$VAULTMEM_VAULT``, else the nearest folder at or above ``start``
    (default: the current one) that holds ``.vaultmem/``.

    Raises:
        VaultNotFoundError: none of these names a vault.
    """
    if path is not None:
        return path
    env = os.environ.get(ENV_VAR)
    if env:
        return env
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / STATE_DIR).is_dir():
            return folder
    raise VaultNotFoundError(
        f"no vault found in {here} or above it; pass --vault PATH, set {ENV_VAR}, "
        "or create one with `vaultmem init PATH`"
    )
