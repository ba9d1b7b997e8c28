"""Recreating the index schema drops whatever else a database holds: views, triggers, virtual
tables with their shadow tables, and tables with names that need quoting."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import write

from vaultmem import Vault

FOREIGN = """
CREATE TABLE "odd ""name"" [x]" (a INTEGER PRIMARY KEY AUTOINCREMENT, b);
INSERT INTO "odd ""name"" [x]" (b) VALUES (1);
CREATE TABLE stale (x);
CREATE VIEW "stale view" AS SELECT x FROM stale;
CREATE VIEW chunks_old AS SELECT 1;
CREATE TRIGGER "stale trigger" AFTER INSERT ON stale BEGIN SELECT 1; END;
CREATE VIRTUAL TABLE "old fts" USING fts5 (body);
CREATE INDEX stale_x ON stale (x);
"""


def objects(path: Path) -> set[tuple[str, str]]:
    """Every (type, name) of the database at ``path`` but SQLite's own tables."""
    conn = sqlite3.connect(path)
    try:
        found = conn.execute("SELECT type, name FROM sqlite_master").fetchall()
    finally:
        conn.close()
    return {(kind, name) for kind, name in found if not name.startswith("sqlite_")}


def add_foreign_objects(path: Path, sql: str) -> None:
    conn = sqlite3.connect(path)
    try:
        conn.executescript(sql)
    finally:
        conn.close()


@pytest.mark.parametrize("how", ["reindex", "not ours"])
def test_stale_and_foreign_objects_are_dropped(vault_path: Path, how: str) -> None:
    write(vault_path, "note.md", "kept words\n")
    with Vault(vault_path) as vault:
        vault.index()
        ours = objects(vault.index_path)
    index_path = vault_path / ".vaultmem/index.db"
    change = "" if how == "reindex" else "UPDATE meta SET value = 'other' WHERE key = 'app';"
    add_foreign_objects(index_path, FOREIGN + change)
    assert ("view", "stale view") in objects(index_path)
    with Vault(vault_path) as vault:
        report = vault.reindex() if how == "reindex" else vault.index()
        if how == "not ours":
            assert any("not a vaultmem index" in n for n in report.notices)
        assert objects(vault.index_path) == ours
        assert vault.search("kept")[0].path == "note.md"
