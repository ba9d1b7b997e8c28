"""The watch daemon with a real watchdog observer on real files: every way a note changes
is followed, bursts are batched, other processes can search meanwhile, one daemon per
vault, and a daemon killed mid-batch catches up on restart."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import chunk_rows, wait_for, write

from vaultmem import Vault
from vaultmem.daemon.events import next_batch
from vaultmem.daemon.watch import daemon_pid, running_watcher
from vaultmem.errors import DaemonRunningError
from vaultmem.index.text import TextStore

DEADLINE = 60.0  # generous: the tests never assert a speed


def found(vault: Vault, query: str, path: str | None = None) -> bool:
    return any(
        path is None or h.path == path
        for h in vault.search(query, limit=1000, include_archive=True)
    )


def matches_rebuild(root: Path, tmp: Path) -> bool:
    with Vault(root, index_path=tmp / "rebuilt.db") as rebuilt:
        rebuilt.reindex()
    return chunk_rows(root / ".vaultmem/index.db") == chunk_rows(tmp / "rebuilt.db")


@pytest.fixture
def watched(vault_path: Path) -> Iterator[Vault]:
    """A running in-process daemon on the vault, and a separate Vault to search with."""
    write(vault_path, "memory/2026-01-01.md", "# Day\n\n- first line\n")
    with running_watcher(Vault(vault_path)), Vault(vault_path) as searcher:
        yield searcher


def test_every_way_a_note_changes(watched: Vault) -> None:
    root = watched.root
    note = root / "memory/2026-01-01.md"
    with note.open("a") as handle:  # an in-place append
        handle.write("- appended aardvark\n")
    wait_for(lambda: found(watched, "aardvark"))
    write(root, "facts/new.md", "- created bandicoot\n")
    wait_for(lambda: found(watched, "bandicoot"))
    tmp = root / "facts/.new.md.tmp123"  # an editor's atomic save
    tmp.write_text("- saved capybara\n")
    os.replace(tmp, root / "facts/new.md")
    wait_for(lambda: found(watched, "capybara") and not found(watched, "bandicoot"))
    (root / "facts/new.md").rename(root / "facts/renamed.md")
    wait_for(
        lambda: (
            found(watched, "capybara", "facts/renamed.md")
            and not found(watched, "capybara", "facts/new.md")
        )
    )
    (root / "facts/renamed.md").unlink()
    wait_for(lambda: not found(watched, "capybara"))


def test_folders_created_moved_and_deleted(watched: Vault) -> None:
    root = watched.root
    write(root, "projects/atlas/plan.md", "- dingo plan\n")
    write(root, "projects/atlas/deep/more.md", "- echidna notes\n")
    wait_for(lambda: found(watched, "dingo") and found(watched, "echidna"))
    (root / "projects").rename(root / "archive/projects")
    wait_for(lambda: found(watched, "echidna", "archive/projects/atlas/deep/more.md"))
    wait_for(lambda: not found(watched, "dingo", "projects/atlas/plan.md"))
    import shutil

    shutil.rmtree(root / "archive/projects")
    wait_for(lambda: not found(watched, "dingo") and not found(watched, "echidna"))


def test_ignored_files_never_reach_the_index(watched: Vault) -> None:
    root = watched.root
    write(root, ".obsidian/workspace.md", "- ferret in obsidian config\n")
    write(root, "memory/.2026-01-01.md.swp", "ferret swap")
    write(root, "memory/2026-01-01.md~", "ferret backup")
    write(root, "memory/4913", "ferret vim probe")
    write(
        root, "memory/marker.md", "- gecko marker\n"
    )  # written last: once it is in, the rest were seen
    wait_for(lambda: found(watched, "gecko"))
    assert not found(watched, "ferret")


def test_a_burst_of_a_thousand_files_while_others_search(watched: Vault) -> None:
    root = watched.root
    stop = threading.Event()
    failures: list[BaseException] = []

    def search_meanwhile() -> None:
        with Vault(root) as reader:
            while not stop.is_set():
                try:
                    reader.search("hedgehog", limit=5)
                except BaseException as exc:  # any failure of a concurrent reader is a bug
                    failures.append(exc)

    reader = threading.Thread(target=search_meanwhile)
    reader.start()
    try:
        for i in range(1000):
            write(
                root,
                f"burst/{i % 10}/note-{i}.md",
                f"# Note {i}\n\n- hedgehog {i}\n- line two {i}\n",
            )
        wait_for(lambda: len(watched.search("hedgehog", limit=5000)) == 1000)
    finally:
        stop.set()
        reader.join()
    assert failures == []


def test_readers_never_see_half_a_file(watched: Vault) -> None:
    root = watched.root
    note = root / "facts/versions.md"
    seen_versions: list[set[str]] = []
    stop = threading.Event()

    def read_meanwhile() -> None:
        conn = sqlite3.connect(root / ".vaultmem/index.db")
        TextStore.register(conn)
        while not stop.is_set():
            texts = [
                r[0]
                for r in conn.execute("SELECT text FROM chunks WHERE path = 'facts/versions.md'")
            ]
            if texts:
                seen_versions.append({t.split("version ")[1] for t in texts})
        conn.close()

    thread = threading.Thread(target=read_meanwhile)
    thread.start()
    try:
        for version in range(40):
            note.write_text("".join(f"- item {i} version v{version}\n" for i in range(5)))
            time.sleep(0.01)
        wait_for(lambda: found(watched, "v39"))
        # On a busy machine the reader may not have run a query since the index had rows:
        # let it see the note at least once before it stops.
        wait_for(lambda: bool(seen_versions))
    finally:
        stop.set()
        thread.join()
    assert seen_versions
    assert all(len(versions) == 1 for versions in seen_versions)


def test_the_index_file_deleted_while_watching_is_rebuilt(watched: Vault) -> None:
    watched.close()
    for name in ("index.db", "index.db-wal", "index.db-shm"):
        (watched.root / ".vaultmem" / name).unlink(missing_ok=True)
    wait_for(lambda: (watched.root / ".vaultmem/index.db").exists())
    write(watched.root, "later.md", "- ibis after the rebuild\n")
    wait_for(lambda: found(watched, "ibis"))
    assert found(watched, "first line")


def test_a_note_that_fails_to_parse_is_recorded_and_retried(watched: Vault) -> None:
    bad = write(watched.root, "bad.md", "---\ntitle: [broken\n---\n- jackal\n")
    wait_for(lambda: found(watched, "jackal"))
    warnings = dict(watched.status().warnings)
    assert "malformed YAML frontmatter" in warnings["bad.md"][0]
    bad.write_text("---\ntitle: fixed\n---\n- jackal fixed\n")
    wait_for(lambda: "bad.md" not in dict(watched.status().warnings))


def test_one_daemon_per_vault(watched: Vault) -> None:
    assert daemon_pid(watched.root) == os.getpid()
    with pytest.raises(DaemonRunningError, match=f"pid {os.getpid()}"):
        watched.watch(threading.Event())
    done = subprocess.run(
        [sys.executable, "-m", "vaultmem", "watch", "--vault", str(watched.root)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert f"Error: a vaultmem watch daemon (pid {os.getpid()}) is already watching" in done.stderr


def test_next_batch_coalesces_a_burst_but_not_a_lone_change() -> None:
    import queue

    changes: queue.Queue[tuple[str, str]] = queue.Queue()
    stop = threading.Event()
    assert next_batch(changes, stop, idle=0.01) == set()
    for i in range(50):
        changes.put(("file", f"n{i % 5}.md"))
    assert next_batch(changes, stop) == {("file", f"n{i}.md") for i in range(5)}
    changes.put(("file", "lone.md"))
    assert next_batch(changes, stop) == {("file", "lone.md")}


def start_daemon(root: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "vaultmem", "watch", "--vault", str(root)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for(lambda: daemon_pid(root) == proc.pid and (root / ".vaultmem/watch.json").exists())
    return proc


def restart_and_catch_up(root: Path, tmp: Path, word: str, count: int) -> None:
    """Start the daemon again: it must find every note holding ``word`` and match a rebuild."""
    proc = start_daemon(root)
    try:
        with Vault(root) as vault:
            wait_for(lambda: len(vault.search(word, limit=10 * count)) == count)
        assert matches_rebuild(root, tmp)
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_sigterm_stops_the_daemon_cleanly(vault_path: Path) -> None:
    proc = start_daemon(vault_path)
    write(vault_path, "n.md", "- koala\n")
    with Vault(vault_path) as vault:
        wait_for(lambda: found(vault, "koala"))
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert err.rstrip().endswith("stopped")
    assert daemon_pid(vault_path) is None


def test_kill_nine_mid_burst_then_restart_catches_up(vault_path: Path, tmp_path: Path) -> None:
    proc = start_daemon(vault_path)
    for i in range(300):
        write(vault_path, f"memory/2026-02-{i % 28 + 1:02d}-{i}.md", f"- lemur {i}\n")
    proc.kill()  # SIGKILL, most likely in the middle of a batch
    proc.communicate(timeout=30)
    for i in range(300, 400):
        write(vault_path, f"memory/2026-03-{i % 28 + 1:02d}-{i}.md", f"- lemur {i}\n")
    (vault_path / "memory/2026-02-01-0.md").unlink()
    restart_and_catch_up(vault_path, tmp_path, "lemur", 399)  # the kernel released the lock


def test_soak_of_random_edits_renames_and_deletes(vault_path: Path, tmp_path: Path) -> None:
    rng = random.Random(8)
    names = [
        f"{folder}/n{i}.md"
        for folder in ("memory", "facts/a", "facts/b", "topics")
        for i in range(25)
    ]
    with running_watcher(Vault(vault_path)):
        for step in range(2000):
            name = rng.choice(names)
            path = vault_path / name
            action = rng.random()
            if action < 0.5 or not path.exists():
                write(
                    vault_path,
                    name,
                    "".join(f"- step {step} line {j} mongoose\n" for j in range(rng.randint(1, 6))),
                )
            elif action < 0.7:
                with path.open("a") as handle:
                    handle.write(f"- appended {step}\n")
            elif action < 0.85:
                target = vault_path / rng.choice(names)
                target.parent.mkdir(parents=True, exist_ok=True)
                path.rename(target)
            else:
                path.unlink()
        wait_for(lambda: matches_rebuild(vault_path, tmp_path))


def test_git_checkouts_of_hundreds_of_files(watched: Vault) -> None:
    root = watched.root

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)

    git("add", "-A")
    git("commit", "-qm", "base")
    git("checkout", "-qb", "feature")
    for i in range(300):
        write(root, f"topics/t{i % 7}/note-{i}.md", f"# Topic {i}\n\n- narwhal {i}\n")
    git("add", "-A")
    git("commit", "-qm", "300 notes")
    wait_for(lambda: len(watched.search("narwhal", limit=1000)) == 300)
    git("checkout", "-q", "main")  # removes the 300 notes at once
    wait_for(lambda: watched.search("narwhal", limit=1000) == [])
    git("checkout", "-q", "feature")  # and brings them back
    wait_for(lambda: len(watched.search("narwhal", limit=1000)) == 300)


def test_lost_kernel_events_make_the_daemon_reconcile(
    vault_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import logging

    from vaultmem.daemon import watch

    original = watch.EventFilter.on_any_event

    def deaf_to_one_note(self: watch.EventFilter, event: object) -> None:
        if "unheard" not in str(getattr(event, "src_path", "")):
            original(self, event)  # type: ignore[arg-type]

    monkeypatch.setattr(watch.EventFilter, "on_any_event", deaf_to_one_note)
    with running_watcher(Vault(vault_path)), Vault(vault_path) as vault:
        write(vault_path, "unheard.md", "- oryx that no event announced\n")
        write(vault_path, "heard.md", "- heard penguin\n")
        wait_for(lambda: found(vault, "penguin"))
        assert not found(vault, "oryx")
        # What watchdog logs when the kernel's inotify queue overflowed:
        logging.getLogger("watchdog.observers.inotify_c").warning(
            "Inotify queue overflowed; filesystem events were lost"
        )
        wait_for(lambda: found(vault, "oryx"))


def test_a_name_that_is_not_utf8_does_not_sink_its_batch(watched: Vault) -> None:
    root = watched.root
    write(root, "facts/good1.md", "- platypus one\n")
    write(root, os.fsdecode(b"facts/bad\xff.md"), "- platypus bad\n")
    write(root, "facts/good2.md", "- platypus two\n")
    wait_for(
        lambda: {h.path for h in watched.search("platypus")} == {"facts/good1.md", "facts/good2.md"}
    )
    wait_for(lambda: "facts/bad\\xff.md" in dict(watched.status().warnings))


def test_the_lock_is_never_refused_because_status_looked(vault_path: Path) -> None:
    from vaultmem.daemon.watch import WatchLock

    lock_path = vault_path / ".vaultmem/watch.lock"
    stop = threading.Event()
    seen: set[object] = set()

    def poll() -> None:
        while not stop.is_set():
            seen.add(WatchLock.holder(lock_path))

    poller = threading.Thread(target=poll)
    poller.start()
    try:
        for _ in range(100):
            lock = WatchLock(lock_path)
            lock.acquire()
            lock.release()
    finally:
        stop.set()
        poller.join()
    assert seen <= {None, os.getpid()}


def test_an_idle_daemon_does_not_touch_the_disk(watched: Vault) -> None:
    status = watched.root / ".vaultmem/watch.json"
    wait_for(status.exists)
    time.sleep(1.5)
    before = status.stat().st_mtime_ns
    time.sleep(2.5)
    assert status.stat().st_mtime_ns == before


def test_sigterm_during_a_long_batch(vault_path: Path, tmp_path: Path) -> None:
    proc = start_daemon(vault_path)
    for i in range(3000):
        write(vault_path, f"burst/{i % 30}/n{i}.md", f"# N{i}\n\n- quetzal {i}\n- more words {i}\n")
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert err.rstrip().endswith("stopped")
    restart_and_catch_up(vault_path, tmp_path, "quetzal", 3000)  # whatever the stop left out


def runtime_imports(module: str) -> set[str]:
    """The vaultmem modules a module imports when it runs (not under ``TYPE_CHECKING``)."""
    import ast

    import vaultmem

    tree = ast.parse((Path(vaultmem.__file__).parent / f"{module}.py").read_text())
    package = "vaultmem."
    typing_only = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING"
        for node in ast.walk(block)
    }
    return {
        (node.module or "").removeprefix(package)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").startswith(package)
        and id(node) not in typing_only
    }


def test_the_daemon_and_the_vault_do_not_import_each_other() -> None:
    """daemon/watch.py is handed its Vault (only ``Vault.watch`` imports the daemon, when
    called); ``Vault.status`` asks notes/watch_lock.py (through status.py), which needs
    neither."""
    assert "vault" not in runtime_imports("daemon/watch")
    assert "status" in runtime_imports("vault")
    assert "notes.watch_lock" in runtime_imports("status")
    assert runtime_imports("notes/watch_lock") == {"errors"}
    code = "import sys, vaultmem.vault; assert 'watchdog' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_daemon_started_while_the_index_is_locked_waits_then_catches_up(
    vault_path: Path,
) -> None:
    (vault_path / ".vaultmem/config.toml").write_text(
        "[index]\nbusy_timeout_ms = 100\nrun_wait_ms = 200\n"
    )
    write(vault_path, "n.md", "- wombat\n")
    with Vault(vault_path) as vault:
        vault.index()
    write(vault_path, "n.md", "- wombat numbat\n")  # for the daemon's first reconcile to find
    blocker = sqlite3.connect(vault_path / ".vaultmem/index.db")
    blocker.execute("BEGIN EXCLUSIVE")  # a long `vaultmem reindex` elsewhere
    proc = subprocess.Popen(
        [sys.executable, "-m", "vaultmem", "watch", "--vault", str(vault_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: daemon_pid(vault_path) == proc.pid)
        time.sleep(1.0)  # the lock outlasts several of the daemon's waits
        assert proc.poll() is None, proc.communicate(timeout=30)[1]
        blocker.rollback()
        with Vault(vault_path) as vault:
            wait_for(lambda: found(vault, "numbat"))
        assert proc.poll() is None
    finally:
        blocker.close()
        proc.terminate()
        proc.communicate(timeout=30)
