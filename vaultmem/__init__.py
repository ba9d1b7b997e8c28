"""vaultmem: long-term memory for AI agents in plain Markdown files.

``from vaultmem import Vault`` is all most users need; see ``docs/python-api.md``.
"""

from typing import TYPE_CHECKING, Any

from vaultmem.errors import (
    ConfigError,
    DaemonRunningError,
    GitError,
    IndexLockedError,
    PathOutsideVaultError,
    VaultmemError,
    VaultNotFoundError,
)

if TYPE_CHECKING:
    from vaultmem.index.runs import IndexReport
    from vaultmem.search.keyword import Hit
    from vaultmem.vault import Status, Vault

__version__ = "0.1.0"

# Where each name that takes time to import lives. ``import vaultmem`` loads none of them
# until asked, so ``vaultmem --version`` and the CLI's usage errors start fast, and an
# index run (YAML, Markdown parsing) loads only for ``IndexReport``.
_LAZY = {
    "Vault": "vault",
    "Status": "vault",
    "Hit": "search.keyword",
    "IndexReport": "index.runs",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f".{module}", __name__), name)


__all__ = [
    "ConfigError",
    "DaemonRunningError",
    "GitError",
    "Hit",
    "IndexLockedError",
    "IndexReport",
    "PathOutsideVaultError",
    "Status",
    "Vault",
    "VaultNotFoundError",
    "VaultmemError",
    "__version__",
]
