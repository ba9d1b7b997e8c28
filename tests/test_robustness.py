"""Hostile shapes of a real vault: symlinks of every kind, unreadable folders, a damaged or
vanishing index, killed and concurrent index runs. Each command must finish, say what it
skipped, and never follow anything out of the vault."""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import SHARED, as_unprivileged, chunk_rows, wait_for, write

from vaultmem import Vault
from vaultmem.cli import cli
from vaultmem.daemon.watch import running_watcher
from vaultmem.index.prepare import PARALLEL_MIN_FILES

DEADLINE = 60.0
SECRET = "outsidesecretword"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def warnings_of(root: Path) -> dict[str, list[str]]:
    code, out, err = run("status", "--json", "--vault", str(root))
    assert code == 0, err
    return {w["path"]: w["warnings"] for w in json.loads(out)["warnings"]}


# -- symlinks --------------------------------------------------------------------------


def make_outside(tmp_path: Path) -> Path:
    """A folder outside the vault holding a note with a word no vault note has."""
    outside = tmp_path / "outside"
    write(outside, "secret.md", f"# Secret\n\n{SECRET}\n")
    return outside


# Each shape: (link path inside the vault, its target as ln -s would be given it).
LINK_SHAPES: dict[str, Callable[[Path], list[tuple[str, str]]]] = {
    "loop to itself": lambda out: [("topics/self.md", "self.md")],
    "loop without a note name": lambda out: [("facts/deep/loop", "loop")],
    "mutual loop": lambda out: [("topics/a.md", "b.md"), ("topics/b.md", "a.md")],
    "folder link to .": lambda out: [("topics/here", ".")],
    "folder link to the vault root": lambda out: [("facts/deep/up", "../..")],
    "folder link to its parent": lambda out: [("facts/deep/parent", "..")],
    "dangling": lambda out: [("topics/gone.md", "nowhere/missing.md")],
    "note outside the vault": lambda out: [("topics/out.md", str(out / "secret.md"))],
    "folder outside the vault": lambda out: [("ext", str(out))],
    "top-level loop": lambda out: [("loop.md", "loop.md")],
}


def make_links(root: Path, links: list[tuple[str, str]]) -> None:
    for rel, target in links:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, root / rel)


@pytest.mark.parametrize("shape", sorted(LINK_SHAPES))
def test_every_symlink_shape_is_skipped_with_a_warning_by_every_command(
    vault_path: Path, tmp_path: Path, shape: str
) -> None:
    links = LINK_SHAPES[shape](make_outside(tmp_path))
    write(vault_path, "facts/deep/note.md", "- a plain fact about wombats\n")
    make_links(vault_path, links)
    vault = str(vault_path)
    for command in (["index"], ["reindex"], ["validate"]):
        code, _, err = run(*command, "--vault", vault)
        assert code in (0, 1), err  # validate may find problems; nothing may crash
    code, out, _ = run("search", "wombats", "--json", "--vault", vault)
    assert code == 0
    assert [hit["path"] for hit in json.loads(out)] == ["facts/deep/note.md"]  # found once
    code, _, _ = run("search", SECRET, "--vault", vault)
    assert code == 1  # nothing was followed out of the vault
    recorded = warnings_of(vault_path)
    for rel, _ in links:
        assert any("not followed" in w for w in recorded[rel]), recorded
    code, out, _ = run("status", "--json", "--vault", vault)
    assert json.loads(out)["stale"] == []  # a recorded link is not "changed" at every status


def test_symlinks_appearing_while_watch_runs_are_recorded_and_the_daemon_lives_on(
    vault_path: Path, tmp_path: Path
) -> None:
    outside = make_outside(tmp_path)
    with running_watcher(Vault(vault_path)), Vault(vault_path) as searcher:
        for shape in sorted(LINK_SHAPES):
            make_links(
                vault_path,
                [
                    (f"w/{shape.replace(' ', '-')}/{rel}", target)
                    for rel, target in LINK_SHAPES[shape](outside)
                ],
            )
        expected = {
            f"w/{shape.replace(' ', '-')}/{rel}"
            for shape in LINK_SHAPES
            for rel, _ in LINK_SHAPES[shape](outside)
        }
        wait_for(lambda: expected <= {p for p, _ in searcher.status().warnings})
        write(vault_path, "memory/2026-01-02.md", "- after the links, a quokka\n")
        wait_for(lambda: searcher.search("quokka"))
        assert not searcher.search(SECRET)
        os.unlink(vault_path / "w/loop-to-itself/topics/self.md")
        wait_for(
            lambda: (
                "w/loop-to-itself/topics/self.md" not in {p for p, _ in searcher.status().warnings}
            )
        )


def test_watch_starts_in_a_vault_full_of_symlink_loops(vault_path: Path, tmp_path: Path) -> None:
    outside = make_outside(tmp_path)
    for shape in LINK_SHAPES.values():
        make_links(vault_path, [(f"s{i}/{rel}", t) for i, (rel, t) in enumerate(shape(outside))])
    write(vault_path, "memory/2026-01-01.md", "- a numbat\n")
    with running_watcher(Vault(vault_path)), Vault(vault_path) as searcher:
        assert searcher.search("numbat")


@pytest.mark.parametrize("command", ["show", "log"])
def test_a_looping_path_given_to_a_command_is_a_clear_error(vault_path: Path, command: str) -> None:
    os.symlink("self.md", vault_path / "topics/self.md")
    code, _, err = run(command, "topics/self.md", "--vault", str(vault_path))
    assert code == 1
    assert err.startswith("Error: topics/self.md")


# -- killed and concurrent index runs -----------------------------------------------------


BIG_NOTES = 2 * PARALLEL_MIN_FILES


@pytest.fixture(scope="module")
def big_vault_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Generated notes, enough for an index run to fork its worker processes
    (``PARALLEL_MIN_FILES``)."""
    generator = SHARED / "bench/gen_vault.py"
    if not generator.exists():
        pytest.skip(f"{generator} is not available")
    out = tmp_path_factory.mktemp("big") / "vault"
    notes = str(BIG_NOTES)
    subprocess.run([sys.executable, str(generator), str(out), "--notes", notes], check=True)
    (out / ".vaultmem").mkdir()
    return out


@pytest.fixture
def big_vault(big_vault_source: Path, tmp_path: Path) -> Path:

    return Path(shutil.copytree(big_vault_source, tmp_path / "big"))


def vaultmem(*args: str) -> list[str]:
    return [sys.executable, "-m", "vaultmem", *args]


def children_of(pid: int) -> set[int]:
    """Live processes whose parent is ``pid`` (from /proc; zombies are dead)."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if int(ppid) == pid and state != "Z":
            found.add(int(entry))
    return found


def is_alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_workers_of_a_killed_reindex_die_with_it_and_the_old_index_stays_usable(
    big_vault: Path, tmp_path: Path
) -> None:
    subprocess.run(vaultmem("index", "--vault", str(big_vault)), check=True, capture_output=True)
    before = chunk_rows(big_vault / ".vaultmem/index.db")
    proc = subprocess.Popen(
        vaultmem("reindex", "--vault", str(big_vault)), stderr=subprocess.DEVNULL
    )
    workers: set[int] = set()
    try:
        wait_for(
            lambda: workers.update(children_of(proc.pid)) or workers or proc.poll() is not None
        )
        assert workers, "the reindex finished before it forked workers"
        proc.kill()
        proc.wait()
        wait_for(lambda: not any(is_alive(pid) for pid in workers), timeout=20)
    finally:
        for pid in workers:  # whatever happens, leave no orphan behind
            if is_alive(pid):
                os.kill(pid, 9)
    query = (big_vault / "queries.txt").read_text().split("\t", 1)[0]
    found = subprocess.run(
        vaultmem("search", query, "--vault", str(big_vault)), capture_output=True
    )
    assert found.returncode == 0, found.stderr
    assert chunk_rows(big_vault / ".vaultmem/index.db") == before
    with Vault(big_vault, index_path=tmp_path / "rebuilt.db") as rebuilt:
        rebuilt.reindex()
    assert chunk_rows(tmp_path / "rebuilt.db") == before


# -- a damaged index ----------------------------------------------------------------------


def fts_pages(db: Path) -> list[int]:
    """The page numbers of the full-text tables (FTS5's shadow tables), from ``dbstat``."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT pageno FROM dbstat WHERE name LIKE 'chunks_fts%' ORDER BY pageno"
        ).fetchall()
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    finally:
        conn.close()
    assert page_size == 4096
    return [r[0] for r in rows]


def test_random_damage_to_the_full_text_tables_never_gives_a_traceback(vault_path: Path) -> None:
    for i in range(300):
        write(vault_path, f"memory/2026-03-{i % 28 + 1:02d}-{i}.md", f"- entry {i} kestrel words\n")
    db = vault_path / ".vaultmem/index.db"
    with Vault(vault_path) as vault:
        vault.index()
        vault.db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pristine = db.read_bytes()
    pages = fts_pages(db)
    rng = random.Random(12)
    vault = str(vault_path)
    for trial in range(30):
        data = bytearray(pristine)
        page = rng.choice(pages)
        offset = (page - 1) * 4096 + rng.randrange(4096 - 16)
        data[offset : offset + 16] = rng.randbytes(16)
        db.write_bytes(bytes(data))
        for command in (["search", "kestrel"], ["index"], ["status"]):
            code, _, err = run(*command, "--vault", vault)  # a traceback raises here
            where = f"trial {trial}, page {page}, offset {offset}, {command[0]}"
            assert code == 0, f"{where}: {err}"
            assert "Error" not in err, f"{where}: {err}"
    code, out, _ = run("search", "kestrel", "--limit", "1000", "--json", "--vault", vault)
    assert len(json.loads(out)) == 300


# -- unreadable folders and notes -----------------------------------------------------------


@pytest.fixture
def shared_vault() -> Iterator[Path]:
    """A vault any user may enter (``tmp_path`` is its owner's alone), removed afterwards."""
    top = Path(tempfile.mkdtemp(prefix="vaultmem-perm-"))
    top.chmod(0o755)
    root = top / "vault"
    Vault.init(root)
    yield root
    for folder, _, _ in os.walk(top):
        os.chmod(folder, 0o755)
    shutil.rmtree(top)


def open_to_all(root: Path) -> None:
    for folder, _, files in os.walk(root):
        os.chmod(folder, 0o777)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o666)


def index_and_report(root: Path) -> Callable[[], object]:
    def work() -> object:
        with Vault(root) as vault:
            vault.index()
            return [vault.status().warnings, [h.path for h in vault.search("ocelot")]]

    return work


def test_unreadable_folders_and_notes_are_recorded_not_skipped_silently(
    shared_vault: Path,
) -> None:
    root = shared_vault
    write(root, "private/hidden.md", "- an unseen ocelot\n")
    write(root, "listed/blocked.md", "- a blocked ocelot\n")
    write(root, "topics/locked.md", "- a locked ocelot\n")
    write(root, "topics/open.md", "- an open ocelot\n")
    open_to_all(root)
    (root / "private").chmod(0)  # neither listed nor entered
    (root / "listed").chmod(0o444)  # listed, but its entries cannot be looked at
    (root / "topics/locked.md").chmod(0)
    warnings, found = as_unprivileged(index_and_report(root))  # type: ignore[misc]
    recorded = dict(warnings)
    assert recorded["private"] == [
        "skipped: folder cannot be read (Permission denied); its notes are not indexed"
    ]
    assert recorded["listed/blocked.md"] == [
        "skipped: note cannot be read (Permission denied); it is not indexed"
    ]
    assert recorded["topics/locked.md"] == ["skipped: cannot read (Permission denied)"]
    assert found == ["topics/open.md"]


def test_a_link_to_an_unreachable_target_says_so(shared_vault: Path) -> None:
    root = shared_vault
    write(root, "locked/inner.md", "- an inner ocelot\n")
    os.symlink("../locked/inner.md", root / "topics/through.md")
    open_to_all(root)
    (root / "locked").chmod(0)
    warnings, _ = as_unprivileged(index_and_report(root))  # type: ignore[misc]
    assert dict(warnings)["topics/through.md"] == [
        "skipped: symlink whose target cannot be reached (Permission denied); not followed"
    ]


def writing(db: Path) -> bool:
    """Whether another process holds the index's write lock right now."""
    conn = sqlite3.connect(db, timeout=0)
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        assert "locked" in str(exc)
        return True
    finally:
        conn.close()
    return False


def test_a_second_index_run_waits_for_the_first_then_finds_nothing_to_do(big_vault: Path) -> None:
    # A short busy timeout: the second run must wait for the first because it is an index
    # run (index.run_wait_ms), not because SQLite's timeout happens to be long enough.
    (big_vault / ".vaultmem/config.toml").write_text("[index]\nbusy_timeout_ms = 100\n")
    for i in range(2):  # long notes make the first run last seconds
        lines = "".join(f"- line {j} of a long list about marmots\n" for j in range(30_000))
        write(big_vault, f"topics/long-{i}.md", lines)
    db = big_vault / ".vaultmem/index.db"
    subprocess.run(vaultmem("index", "--vault", str(big_vault)), check=True, capture_output=True)
    first = subprocess.Popen(
        vaultmem("reindex", "--vault", str(big_vault)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for(lambda: writing(db) or first.poll() is not None)
    assert first.poll() is None, "the first run ended before the second could start"
    second = subprocess.run(
        vaultmem("index", "--vault", str(big_vault)), capture_output=True, text=True
    )
    out, err = first.communicate()
    assert first.returncode == 0, err
    assert second.returncode == 0, second.stderr
    assert f"{BIG_NOTES + 2} files (0 changed, 0 removed)" in second.stdout


@pytest.mark.parametrize("deleted", [["index.db"], ["index.db", "index.db-wal", "index.db-shm"]])
def test_an_index_deleted_mid_run_is_never_reported_as_built(
    big_vault: Path, deleted: list[str]
) -> None:
    db = big_vault / ".vaultmem/index.db"
    subprocess.run(vaultmem("index", "--vault", str(big_vault)), check=True, capture_output=True)
    run = subprocess.Popen(
        vaultmem("reindex", "--vault", str(big_vault)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for(lambda: writing(db) or run.poll() is not None)
    assert run.poll() is None, "the run ended before the index could be deleted"
    for name in deleted:
        (big_vault / ".vaultmem" / name).unlink(missing_ok=True)
    out, err = run.communicate()
    if run.returncode == 0:  # built again: the index at the path answers
        assert "was deleted during the run; built again" in err
        assert f"{BIG_NOTES} files" in out
        query = (big_vault / "queries.txt").read_text().split("\t", 1)[0]
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT COUNT(*) FROM files").fetchone() == (BIG_NOTES,)
        found = subprocess.run(vaultmem("search", query, "--vault", str(big_vault)))
        assert found.returncode == 0
    else:  # or a clear error, never a success for an index that is gone
        assert run.returncode == 1 and err.startswith("Error: "), err
