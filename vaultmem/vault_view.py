"""``VaultView``: the part of an open ``Vault`` that the parts below it are handed.

Recall (``Vault.context``, ``recent``, ``get``) and the watch daemon (``Vault.watch``) sit
below ``vault.py`` in the layers (docs/architecture.md): ``Vault`` hands them itself, and
they name what they use of it here instead of importing ``vault.py``. Every name is a
public one of ``Vault``; mypy checks that ``Vault`` has them all.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from vaultmem.config import Config
    from vaultmem.git.history import Commit
    from vaultmem.git.sync import SyncResult
    from vaultmem.index.database import Index
    from vaultmem.index.runs import IndexReport
    from vaultmem.notes.files import Excerpt
    from vaultmem.search.keyword import Hit


Stop = Callable[[], bool]


class VaultView(Protocol):
    """What recall and the daemon use of an open vault."""

    root: Path
    config: Config
    index_path: Path

    @property
    def db(self) -> Index: ...

    def search(
        self,
        query: str,
        *,
        limit: int | None = ...,
        agent: str | None = ...,
        track: bool = ...,
        today: dt.date | None = ...,
        context: int | None = ...,
    ) -> list[Hit]: ...

    def show(self, path: str, line: int | None = ..., context: int = ...) -> Excerpt: ...

    def with_block_id(self, block_id: str) -> list[tuple[str, int, int, str]]: ...

    def facts_dated(self, first: dt.date, last: dt.date) -> list[tuple[str, int, str]]: ...

    def index(
        self, progress: None = ..., *, rebuild: bool = ..., should_stop: Stop | None = ...
    ) -> IndexReport: ...

    def index_paths(
        self,
        paths: Iterable[str],
        folders: Iterable[str] = ...,
        should_stop: Stop | None = ...,
        *,
        wait: bool = ...,
    ) -> IndexReport: ...

    def commit(self, message: str | None = ...) -> Commit | None: ...

    def sync(self, remote: str | None = ..., *, today: dt.date | None = ...) -> SyncResult: ...

    def close(self) -> None: ...
