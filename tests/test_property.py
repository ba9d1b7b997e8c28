"""Property: after any sequence of file changes, the incremental index equals a rebuild.

A hypothesis state machine creates, edits, appends to, renames and deletes notes (and
writes garbage bytes into some), runs ``Vault.index()`` after each step, and checks that
the incrementally maintained index holds exactly the chunks, tags, links and fields (and
gives the same search results) as an index rebuilt from the files into another database.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from conftest import snapshot, soak
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule

from vaultmem import Vault

NAMES = st.sampled_from(
    ["a.md", "b.md", "memory/2026-01-01.md", "facts/x/y.md", "topics/中文.md", "moved/y.md"]
)
LINES = st.sampled_from(
    [
        "- budget review ^b1",
        "- 预算 五万元",
        "- deploy #bug",
        "# Heading",
        "## 子标题",
        "plain paragraph text",
        "- [[Alice]] likes tea [importance:: 0.5]",
        "```",
        "> [!note] callout",
        "---",
        "title: x",
        "",
        "| a | b |",
        "|---|---|",
        "- 飞书插件配置",
        "tail words #tag/nested",
    ]
)
BODIES = st.lists(LINES, max_size=12).map("\n".join)
GARBAGE = st.binary(max_size=64)
QUERIES = ["budget", "预算", "deploy", "飞书插件配置", "alice", "callout", "heading", "子标题"]


@settings(
    max_examples=soak(60, 15),
    stateful_step_count=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
class IndexMatchesRebuild(RuleBasedStateMachine):
    notes = Bundle("notes")

    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="vaultmem-prop-"))
        self.root = self.tmp / "vault"
        (self.root / ".vaultmem").mkdir(parents=True)
        self.vault = Vault(self.root)
        self.vault.index()

    def teardown(self) -> None:
        self.vault.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _write(self, name: str, data: bytes) -> None:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    @rule(target=notes, name=NAMES, body=BODIES)
    def create(self, name: str, body: str) -> str:
        self._write(name, body.encode())
        self.vault.index()
        return name

    @rule(name=notes, body=BODIES)
    def edit(self, name: str, body: str) -> None:
        # As the watch daemon does: only the path that changed.
        self._write(name, body.encode())
        self.vault.index_paths([name])

    @rule(name=notes, line=LINES)
    def append(self, name: str, line: str) -> None:
        path = self.root / name
        old = path.read_bytes() if path.exists() else b""
        self._write(name, old + b"\n" + line.encode())
        self.vault.index()

    @rule(name=notes, junk=GARBAGE)
    def garbage(self, name: str, junk: bytes) -> None:
        self._write(name, junk)
        self.vault.index_paths([name])

    @rule(name=notes, new=NAMES)
    def rename(self, name: str, new: str) -> None:
        path = self.root / name
        if path.exists() and name != new:
            (self.root / new).parent.mkdir(parents=True, exist_ok=True)
            path.rename(self.root / new)
        self.vault.index_paths([name, new])

    @rule(name=notes)
    def delete(self, name: str) -> None:
        (self.root / name).unlink(missing_ok=True)
        self.vault.index()

    @rule(
        folder=st.sampled_from(["facts", "facts/x", "memory", "topics"]),
        new=st.sampled_from(["moved", "facts/z"]),
    )
    def move_folder(self, folder: str, new: str) -> None:
        source, target = self.root / folder, self.root / new
        if (
            source.is_dir()
            and not target.exists()
            and not str(target).startswith(str(source) + "/")
        ):
            target.parent.mkdir(parents=True, exist_ok=True)
            source.rename(target)
        self.vault.index_paths([], folders=[folder, new])

    @invariant()
    def incremental_equals_rebuild(self) -> None:
        rebuilt_path = self.tmp / "rebuilt.db"
        with Vault(self.root, index_path=rebuilt_path) as rebuilt:
            rebuilt.reindex()
            assert snapshot(self.vault.index_path) == snapshot(rebuilt_path)
            for query in QUERIES:
                ours = [
                    (h.path, h.chunk_id, h.line_start) for h in self.vault.search(query, limit=50)
                ]
                theirs = [
                    (h.path, h.chunk_id, h.line_start) for h in rebuilt.search(query, limit=50)
                ]
                assert sorted(ours) == sorted(theirs), query


TestIndexMatchesRebuild = pytest.mark.soak(IndexMatchesRebuild.TestCase)
