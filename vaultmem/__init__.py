"""vaultmem: long-term memory for AI agents in plain Markdown files.

``from vaultmem import Vault`` is all most users need; see ``docs/python-api.md``.
"""

from .errors import (
    ConfigError,
    DaemonRunningError,
    GitError,
    IndexLockedError,
    PathOutsideVaultError,
    VaultmemError,
    VaultNotFoundError,
)
from .indexing import IndexReport
from .search import Hit
from .vault import Status, Vault

__version__ = "0.1.0"

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
