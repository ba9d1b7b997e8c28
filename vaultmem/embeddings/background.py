"""Embedding in the background of the watch daemon.

The daemon indexes a batch first (keyword search sees the edit at once, and its latency
does not change), then pokes this worker with the batch's paths and folders. The worker
embeds, in its own thread and with its own read-only connection to the index, the chunks
those paths hold *now* that have no vector yet: its cost follows the edit, not the size
of the vault. Reading by path (not "rows written since", by row id) stays right when an
id is reused after the last rows were deleted, when a note is renamed (its new path is in
the batch) or deleted (nothing to embed), and when another process indexed the note first.
Pokes that arrive while it works fold into one more run, their paths and folders merged.
Such a run leaves the search matrix (``matrix.py``) alone, since refreshing it reads every
row: the worker refreshes it once no poke came for ``MATRIX_AFTER`` seconds.

A run takes every chunk instead (as ``vaultmem embed`` does, pruning too) when the daemon
starts (to catch up with what changed while it was down), when the daemon reconciled the
whole vault or rebuilt a deleted index (events were lost), when the index's chunking
settings changed (every text may differ and no file event says so), and when another
process wrote the vector store (see ``embed.Changes``). A failed run keeps its paths for
the next one.

It runs only when an embedder is wanted: ``[embeddings]`` names a backend, or ``backend =
"auto"`` finds one and the vault already has vectors (someone ran ``vaultmem embed``), so
installing the extra never starts a surprise embedding of a large vault.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from vaultmem.config import EmbeddingsConfig
from vaultmem.embeddings.embedders import model_name
from vaultmem.embeddings.files import VECTORS_FILE
from vaultmem.errors import EmbeddingError, Interrupted, VaultmemError
from vaultmem.index.text import TextStore

if TYPE_CHECKING:
    from vaultmem.embeddings.embed import Scope
    from vaultmem.embeddings.protocol import Embedder


# Seconds without a poke after which the daemon refreshes the search matrix.
MATRIX_AFTER = 2.0


def wanted(state_dir: Path, config: EmbeddingsConfig) -> bool:
    """Whether the daemon should keep this vault's vectors up to date."""
    if model_name(config) is None:
        return False
    return config.backend != "auto" or (state_dir / VECTORS_FILE).exists()


class BackgroundEmbedder:
    """A thread that embeds the chunks of poked paths, until ``stop`` is set."""

    def __init__(
        self,
        index_path: Path,
        config: EmbeddingsConfig,
        say: Callable[..., None],  # (kind, message, **fields), as Watcher._say
        stop: threading.Event,
    ) -> None:
        self.index_path = index_path
        self.config = config
        self.say = say
        self.stop = stop
        self.runs = 0  # finished runs (tests wait on it)
        self._poked = threading.Event()
        self._lock = threading.Lock()  # guards the pending work below
        self._paths: set[str] = set()
        self._folders: set[str] = set()
        self._everything = True  # the first run catches up with the whole vault
        self._settings: str | None = None  # the index's chunking settings at the last run
        self._generation: str | None = None  # the store's token after the last run
        self._embedder: Embedder | None = None  # loaded once, by the first run
        self._thread = threading.Thread(target=self._loop, name="embed", daemon=True)

    def start(self) -> None:
        self._poked.set()
        self._thread.start()

    def poke(
        self, paths: Iterable[str] = (), folders: Iterable[str] = (), *, everything: bool = False
    ) -> None:
        """The index now holds new chunks for these vault-relative paths and folders (with
        ``everything``: possibly anywhere)."""
        with self._lock:
            self._paths.update(paths)
            self._folders.update(folders)
            self._everything |= everything
        self._poked.set()

    def join(self) -> None:
        self._poked.set()
        self._thread.join(timeout=30)

    def _take(self) -> Scope | None:
        """The pending work, now cleared: a scope, or ``None`` for every chunk."""
        with self._lock:
            scope = None if self._everything else (self._paths, self._folders)
            self._paths, self._folders, self._everything = set(), set(), False
        return scope

    def _give_back(self, scope: Scope | None) -> None:
        """Keep a failed run's work for the next run (after the next edit)."""
        with self._lock:
            if scope is None:
                self._everything = True
            else:
                self._paths.update(scope[0])
                self._folders.update(scope[1])

    def _loop(self) -> None:
        matrix_behind = False  # a run after an edit leaves the search matrix to refresh
        while not self.stop.is_set():
            if not self._poked.wait(MATRIX_AFTER if matrix_behind else None):
                self._refresh_matrix()  # the edits paused
                matrix_behind = False
                continue
            self._poked.clear()
            if self.stop.is_set():
                return
            scope = self._take()
            if self._run(scope):
                matrix_behind = True
            else:
                self._give_back(scope)
            self.runs += 1

    def _refresh_matrix(self) -> None:
        """Bring the search matrix up to date, so the next search need not (it reads every
        row of the index, so it is done once edits pause, not after each)."""
        from vaultmem.embeddings import matrix as matrices

        if self._embedder is None:
            return
        try:
            conn = sqlite3.connect(f"file:{self.index_path}?mode=ro", uri=True, timeout=5)
            TextStore.register(conn)
            try:
                notices: list[str] = []
                matrices.of_vault(conn, self.index_path.parent, self._embedder.name, notices)
            finally:
                conn.close()
        except (VaultmemError, sqlite3.Error, OSError) as exc:
            # Search refreshes it itself; nothing is lost.
            self.say("warning", f"warning: search matrix not refreshed: {exc}")

    def _run(self, scope: Scope | None) -> bool:
        """One run; whether it finished (a stop counts as finished: the next start
        catches up)."""
        from vaultmem.embeddings.embedders import load_embedder
        from vaultmem.embeddings.optional import embed_runner

        try:
            embed_vault = embed_runner()  # numpy: only once there is work
            conn = sqlite3.connect(f"file:{self.index_path}?mode=ro", uri=True, timeout=5)
            TextStore.register(conn)
        except (EmbeddingError, sqlite3.Error) as exc:
            self.say("warning", f"warning: embedding skipped: {exc}")
            return False
        from vaultmem.embeddings.embed import Changes  # imported by embed_runner

        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'settings'").fetchone()
            settings = None if row is None else str(row[0])
            if settings != self._settings:
                scope = None  # rechunked: any text may have changed, with no file event
            self._embedder = self._embedder or load_embedder(self.config)
            changes = Changes(scope, self._generation)
            report = embed_vault(
                conn,
                self.index_path.parent,
                self.config,
                should_stop=self.stop.is_set,
                embedder=self._embedder,
                changes=changes,
            )
            self._settings, self._generation = settings, changes.generation
            for notice in report.notices:
                self.say("warning", f"warning: {notice}")
            if report.embedded:
                fields = {"model": report.model, "embedded": report.embedded}
                fields |= {"chunks": report.chunks, "seconds": round(report.seconds, 3)}
                self.say("embedded", f"embedded: {report.summary()}", **fields)
            return True
        except Interrupted:
            return True
        except (VaultmemError, sqlite3.Error, OSError) as exc:
            self.say("warning", f"warning: embedding failed: {exc}; retried after the next edit")
        except Exception as exc:  # a bug, or a backend's own error: it must not end
            # the thread: the daemon would go on indexing and never embed again, silently.
            self.say(
                "warning",
                f"warning: embedding failed: {type(exc).__name__}: {exc};"
                " retried after the next edit",
            )
        finally:
            conn.close()
        return False
