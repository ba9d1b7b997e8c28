"""Two devices syncing one vault through a bare repository: no word written on either
device is ever lost, and both end identical."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import git
import pytest
from conftest import write

from vaultmem import GitError, Vault


def clone(bare: Path, dest: Path) -> Vault:
    git.Repo.clone_from(str(bare), str(dest))
    return Vault(dest)


@pytest.fixture
def devices(tmp_path: Path) -> tuple[Vault, Vault]:
    """Device A made the vault and pushed it to a bare remote; device B cloned it."""
    bare = tmp_path / "remote.git"
    git.Repo.init(bare, bare=True, initial_branch="main")
    Vault.init(tmp_path / "a")
    a = Vault(tmp_path / "a")
    a.history.run("remote", "add", "origin", str(bare))
    a.sync()
    b = clone(bare, tmp_path / "b")
    return a, b


def files(vault: Vault) -> dict[str, bytes]:
    return {
        p.relative_to(vault.root).as_posix(): p.read_bytes()
        for p in vault.root.rglob("*")
        if p.is_file() and ".git" not in p.parts and ".vaultmem" not in p.parts
    }


def test_both_devices_append_to_the_same_daily_note(devices: tuple[Vault, Vault]) -> None:
    a, b = devices
    write(a.root, "memory/2026-03-01.md", "# 2026-03-01\n\n- from A: apricot\n")
    a.sync()
    b.sync()
    with (a.root / "memory/2026-03-01.md").open("a") as f:
        f.write("- from A again: avocado\n")
    with (b.root / "memory/2026-03-01.md").open("a") as f:
        f.write("- from B: banana\n")
    a.sync()
    result = b.sync()
    assert result.conflicts == []
    a.sync()
    for device in (a, b):
        text = (device.root / "memory/2026-03-01.md").read_text()
        assert all(word in text for word in ("apricot", "avocado", "banana"))
        assert [h.path for h in device.search("banana")] == ["memory/2026-03-01.md"]
    assert files(a) == files(b)


def edit_on_both(devices: tuple[Vault, Vault], note: str, base: str, on_a: str, on_b: str) -> None:
    """Both devices start from ``base``; each edits the note its own way; A syncs first."""
    a, b = devices
    write(a.root, note, base)
    a.sync()
    b.sync()
    (a.root / note).write_text(on_a)
    (b.root / note).write_text(on_b)
    a.sync()


def test_both_devices_edit_the_same_fact(devices: tuple[Vault, Vault]) -> None:
    a, b = devices
    edit_on_both(
        devices,
        "facts/people.md",
        "- Alice likes tea\n",
        "- Alice likes green tea\n",
        "- Alice likes black coffee\n",
    )
    result = b.sync()
    assert len(result.conflicts) == 1
    note, copy = result.conflicts[0]
    assert note == "facts/people.md"
    assert (b.root / note).read_text() == "- Alice likes black coffee\n"  # B's own words in place
    assert (b.root / copy).read_text() == "- Alice likes green tea\n"  # A's beside them
    assert [h.path for h in b.search("green")] == [copy]
    a.sync()
    assert files(a) == files(b)


def test_the_cli_reports_conflicts_and_exits_one(devices: tuple[Vault, Vault]) -> None:
    _, b = devices
    edit_on_both(devices, "topics/x.md", "one\n", "two\n", "three\n")
    done = subprocess.run(
        [sys.executable, "-m", "vaultmem", "sync", "--vault", str(b.root)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert (
        "conflict: topics/x.md kept as yours; theirs is in topics/x.sync-conflict-" in done.stderr
    )


def test_sync_refuses_clearly_and_changes_nothing(
    tmp_path: Path, devices: tuple[Vault, Vault]
) -> None:
    Vault.init(tmp_path / "lonely")
    lonely = Vault(tmp_path / "lonely")
    with pytest.raises(GitError, match="no git remote"):
        lonely.sync()
    a, _ = devices
    with pytest.raises(GitError, match="no remote named 'nope'"):
        a.sync("nope")
    a.history.run("remote", "add", "gone", str(tmp_path / "missing.git"))
    write(a.root, "memory/2026-04-01.md", "- unsynced\n")
    head = a.history.repo.head.commit.hexsha
    with pytest.raises(GitError, match="cannot reach the remote 'gone'"):
        a.sync("gone")
    assert a.history.repo.head.commit.hexsha == head  # nothing was committed either
    a.history.run("checkout", "--quiet", "--detach")
    with pytest.raises(GitError, match="HEAD is detached"):
        a.sync()
    assert a.history.repo.head.commit.hexsha == head
    a.history.run("checkout", "--quiet", "main")
    (Path(a.history.repo.git_dir) / "MERGE_HEAD").write_text(head + "\n")
    with pytest.raises(GitError, match="a merge is in progress"):
        a.sync()


def test_random_rounds_on_two_devices_lose_no_line(devices: tuple[Vault, Vault]) -> None:
    a, b = devices
    rng = random.Random(5)
    written: set[str] = set()
    names = [
        "memory/2026-05-01.md",
        "memory/2026-05-02.md",
        "facts/a.md",
        "facts/b.md",
        "topics/t.md",
    ]
    for round_ in range(200):
        for device, tag in ((a, "A"), (b, "B")):
            for step in range(rng.randint(1, 3)):
                name = rng.choice(names)
                path = device.root / name
                line = f"- {tag} round {round_} step {step} {rng.randrange(10**6)}"
                action = rng.random()
                if action < 0.55 or not path.exists():
                    path.parent.mkdir(parents=True, exist_ok=True)
                    with path.open("a") as handle:
                        handle.write(line + "\n")
                elif action < 0.75:
                    path.write_text(line + "\n")  # an edit that replaces the words there
                elif action < 0.9:
                    path.rename(device.root / rng.choice(names))
                else:
                    path.unlink()
        for device in (a, b, a):
            # Every line on the device when it syncs must survive somewhere. (A line the
            # device itself overwrote before syncing was deleted by its author, not lost.)
            written.update(
                line
                for text in files(device).values()
                for line in text.decode().splitlines()
                if line.startswith("- ")
            )
            device.sync()
        assert files(a) == files(b), f"round {round_}"
        present = "\n".join(p.decode() for p in files(a).values())
        history = a.history.run("log", "-p", "--all", "--format=")
        lost = [line for line in written if line not in present and line not in history]
        assert lost == [], f"round {round_}: {lost[:3]}"
    for device in (a, b):  # and each index equals one rebuilt from the files
        with Vault(device.root, index_path=device.root.parent / f"{device.root.name}.db") as fresh:
            fresh.reindex()
            rows = "SELECT path, chunk_id, line_start, text FROM chunks ORDER BY 1, 2"
            assert device.db.conn.execute(rows).fetchall() == fresh.db.conn.execute(rows).fetchall()


def test_the_daemon_commits_after_quiet_time_and_syncs_on_an_interval(
    devices: tuple[Vault, Vault],
) -> None:
    from vaultmem.watch import running_watcher

    a, b = devices
    with running_watcher(Vault(a.root), autocommit=0.3, sync_every=1.0):
        write(a.root, "memory/2026-06-01.md", "- written on A: okapi\n")
        write(b.root, "memory/2026-06-02.md", "- written on B: pangolin\n")
        b.sync()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            pulled = (a.root / "memory/2026-06-02.md").exists()
            pushed = "okapi" in a.history.run("log", "-p", "origin/main", "--format=")
            if pulled and pushed and a.search("pangolin"):
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the daemon did not commit and sync within 60 s")
    b.sync()
    assert "okapi" in (b.root / "memory/2026-06-01.md").read_text()
