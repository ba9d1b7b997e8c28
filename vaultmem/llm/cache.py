"""The LLM pass's answers, kept in ``.vaultmem/llm-cache.db`` (SQLite) by content hash.

One table, ``answers(key, answer)``: ``key`` is the SHA-256 of the model's name and the
whole request (messages and reply schema), ``answer`` the reply as JSON, stored only after
it passed validation. So a question asked again (a dry run then the real run, a run that
was killed and run again, a second device with the same model) costs no request and gets
the same answer; a new model or a changed prompt is a new key. Nothing here is the truth:
deleting the file only means asking again, so a file that cannot be read is set aside
(the pass runs without a cache) and it is never committed.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

CACHE_FILE = "llm-cache.db"


def cache_key(model: str, request: dict[str, Any]) -> str:
    """The hash naming one question to one model."""
    text = json.dumps([model, request], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class AnswerCache:
    """Validated answers by question hash; a broken file is a miss, never an error."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.problem = ""  # why the cache is not in use, if it is not
        self._conn: sqlite3.Connection | None = None
        try:
            conn = sqlite3.connect(path, timeout=5.0)
        except sqlite3.Error as exc:
            self.problem = f"{path.name}: {exc}"
            return
        try:
            conn.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, answer TEXT)")
            conn.commit()
        except sqlite3.Error as exc:  # not a database, or read-only: run without it
            conn.close()
            self.problem = f"{path.name}: {exc}"
            return
        self._conn = conn

    def get(self, key: str) -> Any:
        """The stored answer, or ``None``."""
        if self._conn is None:
            return None
        try:
            row = self._conn.execute("SELECT answer FROM answers WHERE key = ?", (key,)).fetchone()
            return None if row is None else json.loads(row[0])
        except (sqlite3.Error, ValueError):
            return None

    def put(self, key: str, answer: Any) -> None:
        """Store an answer (a failure to store only costs a request next time)."""
        if self._conn is None:
            return
        try:
            self._conn.execute(
                "INSERT OR REPLACE INTO answers (key, answer) VALUES (?, ?)",
                (key, json.dumps(answer, ensure_ascii=False)),
            )
            self._conn.commit()
        except sqlite3.Error as exc:
            self.problem = f"{self.path.name}: {exc}"

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
