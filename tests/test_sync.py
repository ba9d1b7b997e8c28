"""Two devices syncing one vault through a bare repository: no word written on either
device is ever lost, and both end identical."""

from __future__ import annotations

import datetime as dt
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import git
import pytest
from conftest import soak, two_devices, write

from vaultmem import GitError, Vault
from vaultmem.notes.generated_block import replace_block


def clone(bare: Path, dest: Path) -> Vault:
    git.Repo.clone_from(str(bare), str(dest))
    return Vault(dest)


@pytest.fixture
def devices(tmp_path: Path) -> tuple[Vault, Vault]:
    """Device A made the vault and pushed it to a bare remote; device B cloned it."""
    return two_devices(tmp_path)


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
    head = a.history.run("rev-parse", "HEAD").strip()
    with pytest.raises(GitError, match="cannot reach the remote 'gone'"):
        a.sync("gone")
    assert a.history.run("rev-parse", "HEAD").strip() == head  # nothing was committed either
    a.history.run("checkout", "--quiet", "--detach")
    with pytest.raises(GitError, match="HEAD is detached"):
        a.sync()
    assert a.history.run("rev-parse", "HEAD").strip() == head
    a.history.run("checkout", "--quiet", "main")
    (a.history.git_dir / "MERGE_HEAD").write_text(head + "\n")
    with pytest.raises(GitError, match="a merge is in progress"):
        a.sync()


@pytest.mark.soak
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
    for round_ in range(soak(200, 12)):
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
    from vaultmem.daemon.watch import running_watcher

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


# -- the everyday workflow: remember, consolidate, sync on two devices (issue 12) ----------

DAY = dt.date(2026, 11, 22)
SAID = {
    "A": [
        "I decided we will use PostgreSQL for the billing project, remember that",
        "Remember that my passport expires in March 2027",
        "We decided to deploy the api on Fridays only, please remember",
    ],
    "B": [
        "I decided to move the team standup to 9am on Mondays, remember that",
        "Remember: I am allergic to peanuts",
        "We decided the release branch is cut every second Tuesday, remember",
    ],
}


def as_device(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Each device writes its own memory log, as two machines with two host names do."""
    monkeypatch.setenv("VAULTMEM_DEVICE", f"device-{name}")


def fact_ids(vault: Vault) -> list[str]:
    return [
        match
        for path in sorted((vault.root / "facts").rglob("*.md"))
        for match in re.findall(r"\^(f[0-9a-f]+)\s*$", path.read_text(), re.M)
    ]


def test_two_devices_remember_consolidate_and_sync_converge_on_their_own(
    devices: tuple[Vault, Vault], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = devices
    for round_ in range(3):
        for device, name in ((a, "A"), (b, "B")):
            as_device(monkeypatch, name)
            when = dt.datetime.combine(DAY, dt.time(9 + round_, 0 if name == "A" else 30))
            device.remember(SAID[name][round_], now=when)
            device.consolidate(today=DAY)
        for device, name in ((a, "A"), (b, "B"), (a, "A")):
            as_device(monkeypatch, name)
            result = device.sync(today=DAY)
            assert result.conflicts == [], f"round {round_}: {result.conflicts}"
        assert files(a) == files(b), f"round {round_}"
        assert not [p for p in files(a) if "sync-conflict" in p]
        ids = fact_ids(a)
        assert len(ids) == len(set(ids)) == 2 * (round_ + 1)  # each device's facts, once
        memory = (a.root / "MEMORY.md").read_text()
        listed = re.findall(r"#\^(f[0-9a-f]+)\|", memory)  # [[facts/x#^fID|DAY]]
        assert sorted(listed) == sorted(ids)  # rebuilt from both devices' facts, each once
        assert f"{len(ids)} facts" in memory
        daily = (a.root / f"memory/{DAY}.md").read_text()
        assert all(daily.count(said) == 1 for said in SAID["A"][: round_ + 1])
    done = subprocess.run(
        [sys.executable, "-m", "vaultmem", "sync", "--vault", str(b.root)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


def test_a_conflict_copy_of_facts_is_not_live(devices: tuple[Vault, Vault]) -> None:
    a, b = devices
    line = "- Alice likes tea [kind:: preference] [source:: [[2026-11-22#^m1]]] ^f0123456789\n"
    edit_on_both(
        devices,
        "facts/people.md",
        line,
        line.replace("tea", "green tea"),
        line.replace("tea", "black coffee"),
    )
    result = b.sync(today=DAY)
    assert [note for note, _ in result.conflicts] == ["facts/people.md"]
    copy = result.conflicts[0][1]
    b.consolidate(today=DAY)
    memory = (b.root / "MEMORY.md").read_text()
    assert "black coffee" in memory
    assert "green tea" not in memory  # the copy's words wait for a person, not in the prompt
    assert "1 facts" in memory
    assert [(p.path, p.kind) for p in b.validate() if p.kind == "sync-conflict"] == [
        (copy, "sync-conflict")
    ]


def test_the_same_human_words_in_memory_md_changed_on_both_devices_is_a_conflict(
    devices: tuple[Vault, Vault],
) -> None:
    a, b = devices
    text = (a.root / "MEMORY.md").read_text()
    edit_on_both(
        devices,
        "MEMORY.md",
        text,
        text.replace("# Memory", "# Memory of A"),
        text.replace("# Memory", "# Memory of B"),
    )
    done = subprocess.run(
        [sys.executable, "-m", "vaultmem", "sync", "--vault", str(b.root)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert "conflict: MEMORY.md kept as yours; theirs is in MEMORY.sync-conflict-" in done.stderr
    assert "# Memory of B" in (b.root / "MEMORY.md").read_text()


def test_human_text_outside_the_block_merges_and_the_block_is_rebuilt(
    devices: tuple[Vault, Vault],
) -> None:
    a, b = devices
    text = (a.root / "MEMORY.md").read_text()
    edit_on_both(
        devices,
        "MEMORY.md",
        text,
        replace_block(text.replace("# Memory", "# Memory of A"), "- a stale block from A"),
        replace_block(text, "- a stale block from B") + "\nA line B added below the block.\n",
    )
    result = b.sync(today=DAY)
    assert result.conflicts == []
    merged = (b.root / "MEMORY.md").read_text()
    assert "# Memory of A" in merged and "A line B added below the block." in merged
    assert "stale" not in merged and "0 facts" in merged  # rebuilt from the merged facts
    a.sync(today=DAY)
    assert files(a) == files(b)


def test_search_then_sync_makes_no_commit_of_its_own(
    devices: tuple[Vault, Vault], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = devices
    as_device(monkeypatch, "same")  # both devices append to one log file: the hard case
    a.remember(SAID["A"][0], now=dt.datetime.combine(DAY, dt.time(9)))
    a.consolidate(today=DAY)
    a.sync(today=DAY)
    b.sync(today=DAY)
    log = a.root / ".vaultmem/log/device-same.log"
    before = log.read_text() if log.exists() else ""
    assert a.search("PostgreSQL billing")  # counts an access in the memory log
    assert log.read_text() != before
    head = a.history.run("rev-parse", "HEAD").strip()
    assert a.commit() is None
    result = a.sync(today=DAY)
    assert result.committed is None
    assert a.history.run("rev-parse", "HEAD").strip() == head  # no commit of its own
    assert a.history.changed_paths() == [".vaultmem/log/device-same.log"]
    # The other device writes, searches and syncs: its access line waits uncommitted ...
    b.remember(SAID["B"][0], now=dt.datetime.combine(DAY, dt.time(10)))
    b.consolidate(today=DAY)
    b.commit()  # the daily line (a consolidation commits only what it wrote)
    assert b.search("standup Mondays")
    b.sync(today=DAY)
    # ... this device's rides along with its next real commit ...
    a.remember(SAID["A"][1], now=dt.datetime.combine(DAY, dt.time(11)))
    assert a.sync(today=DAY).conflicts == []
    assert a.history.changed_paths() == []
    # ... and the other device's, set aside while a merge changed the same log, is kept.
    assert b.sync(today=DAY).conflicts == []
    lines = (b.root / ".vaultmem/log/device-same.log").read_text().splitlines()
    accessed = sorted(ln.split("\t")[2] for ln in lines if "\taccess\t" in ln)
    assert len(accessed) == len(set(accessed)) == 2  # one fact each device found
    assert b.history.changed_paths() == [".vaultmem/log/device-same.log"]


def test_sync_with_an_unreachable_ssh_remote_stops_after_the_timeout(
    tmp_path: Path, devices: tuple[Vault, Vault], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, _ = devices
    pid_file = tmp_path / "ssh.pid"
    script = tmp_path / "hanging-ssh"
    script.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec sleep 300\n")
    script.chmod(0o755)
    monkeypatch.setenv("GIT_SSH_COMMAND", str(script))
    write(a.root, ".vaultmem/config.toml", "[git]\ntimeout_seconds = 1\n")
    a = Vault(a.root)
    a.history.run("remote", "add", "far", "ssh://example.invalid/memory.git")
    write(a.root, "memory/2026-04-01.md", "- unsynced\n")
    head = a.history.run("rev-parse", "HEAD").strip()
    with pytest.raises(GitError, match=r"'far' \(ssh://example.invalid/memory.git\) did not "):
        a.sync("far")
    assert a.history.run("rev-parse", "HEAD").strip() == head  # nothing was changed
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid), "the hanging ssh was left behind"


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for its parent to reap it counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_a_second_device_joins_through_a_remote_whose_head_names_another_branch(
    tmp_path: Path,
) -> None:
    bare = tmp_path / "remote.git"
    git.Repo.init(bare, bare=True, initial_branch="master")  # HEAD: master, never pushed
    Vault.init(tmp_path / "a")
    a = Vault(tmp_path / "a")
    a.history.run("remote", "add", "origin", str(bare))
    write(a.root, "memory/2026-03-01.md", "- from A: apricot\n")
    a.sync()
    subprocess.run(["git", "clone", "-q", str(bare), str(tmp_path / "b")], check=True)
    report = Vault.init(tmp_path / "b")
    assert report.created == []  # joined A's vault instead of starting a second one
    b = Vault(tmp_path / "b")
    assert (b.root / "memory/2026-03-01.md").exists()
    write(b.root, "memory/2026-03-02.md", "- from B: banana\n")
    assert b.sync().pushed
    a.sync()
    assert files(a) == files(b)
    branches = git.Repo(bare).git.branch("--list").split()
    assert branches == ["main"]


def test_a_first_device_starts_from_a_clone_of_an_empty_remote(tmp_path: Path) -> None:
    bare = tmp_path / "remote.git"
    git.Repo.init(bare, bare=True, initial_branch="main")
    subprocess.run(["git", "clone", "-q", str(bare), str(tmp_path / "a")], check=True)
    Vault.init(tmp_path / "a")
    a = Vault(tmp_path / "a")
    result = a.sync()
    assert result.pushed
    assert a.history.run("rev-parse", "--abbrev-ref", "main@{upstream}").strip() == "origin/main"
    b = clone(bare, tmp_path / "b")
    assert files(a) == files(b)


def test_lines_written_while_sync_merges_are_kept(
    devices: tuple[Vault, Vault], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person appends to a note, and another agent remembers, at the very moment sync is
    merging that note: both lines survive (the agent's waits for the merge's lock)."""
    import vaultmem.git.sync

    a, b = devices
    day = dt.datetime(2026, 7, 1, 9, 0)
    note = a.root / "memory/2026-07-01.md"
    a.remember("written on A before the sync", now=day)
    b.remember("written on B before the sync", now=day)
    b.sync()
    real = vaultmem.git.sync.merge_file
    agents: list[subprocess.Popen[str]] = []

    def merge_while_others_write(path: str, *texts: str) -> object:
        if path == "memory/2026-07-01.md" and not agents:
            with note.open("a") as handle:  # a person's editor, no lock
                handle.write("- typed by a person during the merge\n")
            agents.append(
                subprocess.Popen(
                    [sys.executable, "-m", "vaultmem", "remember", "an agent during the merge"],
                    env={**os.environ, "VAULTMEM_VAULT": str(a.root)},
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
        return real(path, *texts)

    monkeypatch.setattr(vaultmem.git.sync, "merge_file", merge_while_others_write)
    assert a.sync().conflicts == []
    out, err = agents[0].communicate(timeout=60)
    assert agents[0].returncode == 0, err
    text = note.read_text()
    for words in ("written on A", "written on B", "typed by a person during the merge"):
        assert words in text, words
    today = (a.root / f"memory/{dt.date.today()}.md").read_text()
    assert "an agent during the merge" in today


# A sync that dies while it merges a file: the merge of each file is where sync spends its
# time, and the process is killed there (SIGKILL: no ``finally`` of it runs).
KILLED_WHILE_MERGING = """
import os, signal, sys
import vaultmem.git.sync
from vaultmem import Vault

def killed(*args):
    os.kill(os.getpid(), signal.SIGKILL)

vaultmem.git.sync.merge_file = killed
Vault(sys.argv[1]).sync()
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_access_counts_set_aside_by_a_killed_sync_come_back(devices: tuple[Vault, Vault]) -> None:
    """A sync killed in the middle of its merge, while the memory log's uncommitted lines
    are set aside: the next sync puts them back."""
    a, b = devices
    write(a.root, "facts/a.md", "- on A ^fa1\n")
    a.commit()  # A's own change, committed; then only a search's count is new
    write(b.root, "facts/a.md", "- on B ^fb1\n")  # the same file: the sync merges it
    b.sync()
    log = a.root / f".vaultmem/log/{a.device}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a") as handle:
        handle.write("2026-07-01T09:00:00\taccess\tfa1\n")  # a search's count, not committed
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_WHILE_MERGING, str(a.root)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    subprocess.run(["git", "merge", "--abort"], cwd=a.root, check=True)
    assert "access\tfa1" not in log.read_text()  # set aside, only in .vaultmem/tmp/
    a.sync()
    assert "access\tfa1" in log.read_text()
