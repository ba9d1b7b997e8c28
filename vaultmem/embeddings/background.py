"""Embedding in the background of the watch daemon.

The daemon indexes a batch first (keyword search sees the edit at once, and its latency
does not change), then pokes this worker, which embeds whatever has no vector yet in its
own thread, with its own read-only connection to the index. Pokes that arrive while it
works fold into one more run. It runs only when an embedder is wanted: ``[embeddings]``
names a backend, or ``backend = "auto"`` finds one and the vault already has vectors
(someone ran ``vaultmem embed``), so installing the extra never starts a surprise
embedding of a large vault.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

from ..config import EmbeddingsConfig
from ..errors import Interrupted, VaultmemError
from .embedders import model_name
from .store import VECTORS_FILE


def wanted(state_dir: Path, config: EmbeddingsConfig) -> bool:
    """Whether the daemon should keep this vault's vectors up to date."""
    if model_name(config) is None:
        return False
    return config.backend != "auto" or (state_dir / VECTORS_FILE).exists()


class BackgroundEmbedder:
    """A thread that embeds new chunks after each poke, until ``stop`` is set."""

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
        self._thread = threading.Thread(target=self._loop, name="embed", daemon=True)

    def start(self) -> None:
        self._poked.set()  # a first run fills what is missing since the daemon last ran
        self._thread.start()

    def poke(self) -> None:
        """New chunks may be in the index."""
        self._poked.set()

    def join(self) -> None:
        self._poked.set()
        self._thread.join(timeout=30)

    def _loop(self) -> None:
        while not self.stop.is_set():
            self._poked.wait()
            self._poked.clear()
            if self.stop.is_set():
                return
            self._run()
            self.runs += 1

    def _run(self) -> None:
        from .embed import embed_vault  # numpy: only once there is work

        try:
            conn = sqlite3.connect(f"file:{self.index_path}?mode=ro", uri=True, timeout=5)
        except sqlite3.Error as exc:
            self.say("warning", f"warning: embedding skipped: {exc}")
            return
        try:
            report = embed_vault(
                conn, self.index_path.parent, self.config, should_stop=self.stop.is_set
            )
            if report.embedded:
                fields = {"model": report.model, "embedded": report.embedded}
                fields["seconds"] = round(report.seconds, 3)
                self.say("embedded", f"embedded: {report.summary()}", **fields)
        except Interrupted:
            return
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
