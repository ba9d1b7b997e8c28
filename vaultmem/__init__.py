"""vaultmem: long-term memory for AI agents in plain Markdown files.

``from vaultmem import Vault`` is all most users need; see ``docs/python-api.md``.
"""

from typing import TYPE_CHECKING, Any

from .errors import (
    ConfigError,
    DaemonRunningError,
    GitError,
    IndexLockedError,
    PathOutsideVaultError,
    VaultmemError,
    VaultNotFoundError,
)
from .search import Hit
from .vault import Status, Vault

if TYPE_CHECKING:
    from .indexing import IndexReport

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # An index run parses notes (YAML, Markdown): ``import vaultmem`` loads it only when
    # ``IndexReport`` is asked for, so a command that only reads the index starts fast.
    if name == "IndexReport":
        from .indexing import IndexReport

        return IndexReport
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
