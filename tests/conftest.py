"""Shared fixtures: an isolated environment and real vaults under ``tmp_path``."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from vaultmem import Vault
from vaultmem.index.text import TextStore

SHARED = Path(__file__).resolve().parents[2] / "shared"
#: Soak and long randomized tests (marked ``soak``) run in full where ``VAULTMEM_SOAK=1``
#: (``.ci/run`` sets it); a plain ``pytest`` runs a tenth of each, so that the suite stays
#: within minutes on a busy laptop (docs/contributing.md).
SOAK = os.environ.get("VAULTMEM_SOAK") == "1"


def soak(full: int, short: int) -> int:
    """How many rounds a soak test runs: ``full`` in a soak run, else ``short``."""
    return full if SOAK else short


# Growth, not time: a test of linear time runs a function on an input of n and of 10n
# characters and compares the CPU each takes (this process's; the least of a few runs,
# measured again before a large ratio is believed, as a busy machine adds noise). A linear
# function grows about 10x, a quadratic one 100x. No test asserts a wall-clock time.
GROWTH_N = 300  # characters of the small input; the large one has ten times as many
MOST_GROWTH = 30.0
NOISE_FLOOR = 0.005  # s of CPU: below this the large input is too cheap to judge


def _cpu(func: Callable[[str], object], text: str, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        func(text)
        best = min(best, time.process_time() - start)
    return best


def growth(func: Callable[[str], object], text: Callable[[int], str], n: int = GROWTH_N) -> float:
    """How much more CPU ``func`` takes on ``text(10 * n)`` than on ``text(n)``."""
    ratio = 0.0
    for runs in (3, 5, 9):
        small = max(_cpu(func, text(n), runs), 1e-4)
        large = _cpu(func, text(10 * n), runs)
        if large < NOISE_FLOOR:
            return 1.0
        ratio = large / small
        if ratio < MOST_GROWTH:
            return ratio
    return ratio


def repeated(unit: str) -> Callable[[int], str]:
    """``n`` characters of ``unit`` said again and again."""
    return lambda n: (unit * (n // len(unit) + 1))[:n]


# The fields of one search hit in --json output, as docs/json-output.md lists them.
HIT_FIELDS = {
    "path",
    "line_start",
    "line_end",
    "heading",
    "score",
    "text",
    "tags",
    "kind",
    "chunk_id",
    "block_id",
    "tier",
    "superseded",
    "match_start",
    "match_end",
    "also_in",
}


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the developer's vault, home folder or git identity."""
    home = tmp_path_factory.mktemp("home")
    gitconfig = home / ".gitconfig"
    gitconfig.write_text("[user]\n\tname = Test User\n\temail = test@example.com\n")
    monkeypatch.delenv("VAULTMEM_VAULT", raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(gitconfig))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


@pytest.fixture
def utc() -> Iterator[None]:
    """Local time is UTC for an in-process test (a real time zone change, undone afterwards)."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


@pytest.fixture
def vault_path(tmp_path: Path) -> Path:
    """A new, empty vault made by ``Vault.init``."""
    path = tmp_path / "vault"
    Vault.init(path)
    return path


@pytest.fixture
def vault(vault_path: Path) -> Iterator[Vault]:
    """The same vault, opened."""
    with Vault(vault_path) as opened:
        yield opened


@pytest.fixture
def example_vault(tmp_path: Path) -> Iterator[Vault]:
    """A vault with the example memory, indexed."""
    path = tmp_path / "example"
    Vault.init(path, example=True)
    with Vault(path) as opened:
        opened.index()
        yield opened


def write(root: Path, rel: str, text: str | bytes) -> Path:
    """Write a note (text as UTF-8, or raw bytes), creating folders."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


#: A small Obsidian vault of the project's own, in English and Chinese (.obsidian/,
#: Daily/, Templates/, aliases, nested tags, callouts, embeds, %%comments%%): the tests of
#: a real-shaped vault that run in a fresh clone, without ../shared.
MINI_VAULT = Path(__file__).parent / "data" / "obsidian-mini"


def copy_mini_vault(dest: Path) -> Path:
    """A copy of ``MINI_VAULT`` at ``dest`` (the fixture itself is never changed)."""
    shutil.copytree(MINI_VAULT, dest)
    return dest


def copy_shared(rel: str, dest: Path) -> Path:
    """Copy a folder of ``../shared`` into ``dest`` (shared/ is read-only input)."""
    source = SHARED / rel
    if not source.is_dir():
        pytest.skip(f"{source} is not available")
    shutil.copytree(source, dest)
    return dest


def snapshot(db: Path) -> tuple[list[tuple[object, ...]], ...]:
    """Every row of an index, keyed by stable identities, to compare two indexes."""
    conn = sqlite3.connect(db)
    TextStore.register(conn)  # the chunks view spells out stored texts with it
    try:
        chunks = conn.execute(
            "SELECT path, chunk_id, kind, line_start, line_end, heading, text, block_id, date"
            " FROM chunks ORDER BY path, chunk_id"
        ).fetchall()
        files = conn.execute(
            "SELECT path, hash, date, names, warnings, chunks FROM files ORDER BY path"
        ).fetchall()
        tags = conn.execute(
            "SELECT t.path, c.chunk_id, t.tag FROM tags t LEFT JOIN chunks c ON c.id = t.chunk"
            " ORDER BY 1, 2, 3"
        ).fetchall()
        links = conn.execute(
            "SELECT c.path, c.chunk_id, target, embed FROM links l JOIN chunks c ON c.id = l.chunk"
            " ORDER BY 1, 2, 3"
        ).fetchall()
        fields = conn.execute(
            "SELECT c.path, c.chunk_id, key, value FROM fields f JOIN chunks c ON c.id = f.chunk"
            " ORDER BY 1, 2, 3, 4"
        ).fetchall()
        # The inverted index itself, term by term, mapped to stable chunk identities.
        conn.execute(
            "CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, 'chunks_fts', 'instance')"
        )
        fts = conn.execute(
            "SELECT c.path, c.chunk_id, v.term, v.col, v.offset FROM temp.vocab v"
            " JOIN chunks c ON c.id = v.doc ORDER BY 1, 2, 3, 4, 5"
        ).fetchall()
        orphans = conn.execute(
            "SELECT COUNT(*) FROM temp.vocab WHERE doc NOT IN (SELECT id FROM chunks)"
        ).fetchall()
    finally:
        conn.close()
    return chunks, files, tags, links, fields, fts, orphans


def chunk_rows(index_path: Path) -> list[tuple[object, ...]]:
    """The chunks of an index (path, id, lines, text), to compare two indexes quickly."""
    conn = sqlite3.connect(index_path)
    TextStore.register(conn)
    try:
        return conn.execute(
            "SELECT path, chunk_id, line_start, line_end, text FROM chunks ORDER BY 1, 2"
        ).fetchall()
    finally:
        conn.close()


def two_devices(tmp_path: Path) -> tuple[Vault, Vault]:
    """Device A made a vault and pushed it to a bare remote; device B cloned it."""
    import git  # only the git tests need it

    bare = tmp_path / "remote.git"
    git.Repo.init(bare, bare=True, initial_branch="main")
    Vault.init(tmp_path / "a")
    a = Vault(tmp_path / "a")
    a.history.run("remote", "add", "origin", str(bare))
    a.sync()
    git.Repo.clone_from(str(bare), str(tmp_path / "b"))
    return a, Vault(tmp_path / "b")


def run_cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``vaultmem ARGS --vault ROOT`` as a real process: exit code, stdout, stderr."""
    return subprocess.run(
        [sys.executable, "-m", "vaultmem", *args, "--vault", str(root)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def wait_for(condition: Callable[[], object], timeout: float = 60.0) -> None:
    """Poll until ``condition()`` is true; fail after ``timeout`` seconds (generous: tests
    never assert a speed)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.02)
    raise AssertionError(f"condition not met within {timeout} s")


def as_unprivileged(work: Callable[[], object]) -> object:
    """Run ``work`` where file permissions apply: here if we are not root, else in a forked
    child that has dropped to the ``nobody`` user (root reads through any chmod)."""
    if os.geteuid() != 0:
        return work()
    # Modules imported on first use must be loaded now: the child cannot read root's folders.
    import encodings.utf_8_sig  # noqa: F401

    read, written = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop root, do the work, send back its JSON
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
        except OSError:
            os._exit(2)
        try:
            os.write(written, json.dumps(work()).encode())
        except BaseException:
            traceback.print_exc()
            os._exit(1)
        os._exit(0)
    os.close(written)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) == 2:
        pytest.skip("cannot drop root privileges here")
    assert status == 0, "the unprivileged child failed (its traceback is above)"
    return json.loads(data)
