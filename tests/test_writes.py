"""Writes never lose anyone's words: concurrent appends and saves, line endings, blocks left
open, symlinks, private state, failures that say whether a memory was stored, temp files."""

from __future__ import annotations

import datetime as dt
import os
import re
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import run_cli, write

from vaultmem import Vault
from vaultmem.cli import cli
from vaultmem.errors import NotStoredError
from vaultmem.notes.state import TEMP_PREFIX, clean_temp_files
from vaultmem.notes.writes import update_text

NOON = dt.datetime(2026, 11, 22, 12, 5)
NOTE = "memory/2026-11-22.md"

# One agent process: remembers N lines into one daily note, as fast as it can.
AGENT = (
    "import sys, datetime as dt\n"
    "from vaultmem import Vault\n"
    "v = Vault(sys.argv[1])\n"
    "for i in range(int(sys.argv[3])):\n"
    "    v.remember(f'agent {sys.argv[2]} line {i}', session=sys.argv[2],\n"
    "               now=dt.datetime(2026, 11, 22, 9, 0))\n"
)
# A person's editor or a sync client without vaultmem's lock: appends whole lines.
PERSON = (
    "import sys, time\n"
    "for i in range(int(sys.argv[2])):\n"
    "    with open(sys.argv[1], 'a') as note:\n"
    "        note.write(f'- person line {i}\\n')\n"
    "    time.sleep(0.002)\n"  # a person types slower than a loop; no sleep hides a race here
)


def test_remember_keeps_every_line_a_person_appends_meanwhile(vault: Vault) -> None:
    note = write(vault.root, NOTE, "# 2026-11-22\n\n")
    agents = [
        subprocess.Popen([sys.executable, "-c", AGENT, str(vault.root), name, "150"])
        for name in ("a", "b")
    ]
    while "agent" not in note.read_text():  # the person starts once the agents write
        assert all(agent.poll() is None for agent in agents)
    person = subprocess.Popen([sys.executable, "-c", PERSON, str(note), "150"])
    for proc in [*agents, person]:
        assert proc.wait(timeout=300) == 0
    lines = note.read_text().splitlines()
    assert sorted(ln for ln in lines if ln.startswith("- person")) == sorted(
        f"- person line {i}" for i in range(150)
    )
    for name in ("a", "b"):
        assert sum(f"agent {name} line " in ln for ln in lines) == 150
    # Every line whole: no line of ours glued to a person's line.
    assert all(ln.startswith(("- person line ", "- 09:00 **user** agent ")) for ln in lines[2:])
    # And the writers really overlapped: a person's line sits between two of the agents'.
    kinds = "".join("p" if ln.startswith("- person") else "a" for ln in lines[2:])
    assert re.search("ap+a", kinds), kinds


def test_a_rewrite_keeps_every_line_appended_while_it_writes(tmp_path: Path) -> None:
    """``update_text`` (consolidation, forget, MEMORY.md) rewriting a note again and again
    while a person appends to it without any lock: every line of both survives."""
    note = write(tmp_path, "facts/general.md", "# General\n\n")
    person = subprocess.Popen([sys.executable, "-c", PERSON, str(note), "400"])
    n = 0
    while person.poll() is None:
        update_text(note, lambda old, n=n: old + f"- vaultmem {n}\n")
        n += 1
    assert person.wait() == 0
    lines = note.read_text().splitlines()
    assert sorted(ln for ln in lines if ln.startswith("- person")) == sorted(
        f"- person line {i}" for i in range(400)
    )
    assert [ln for ln in lines if ln.startswith("- vaultmem")] == [
        f"- vaultmem {i}" for i in range(n)
    ]
    assert n > 20  # the rewrites really overlapped the appends


@pytest.mark.parametrize("save", ["in place", "by rename"])
def test_a_rewrite_redoes_its_change_on_a_version_saved_after_its_read(
    tmp_path: Path, save: str
) -> None:
    note = write(tmp_path, "facts/a.md", "- one\n")

    def change(old: str) -> str:
        if "two" not in note.read_text():  # the person saves between our read and our write
            if save == "in place":
                note.write_text("- one\n- two\n")
            else:
                write(tmp_path, "facts/.a.md.swp", "- zero\n- one\n- two\n")
                os.replace(tmp_path / "facts/.a.md.swp", note)
        return old + "- ours\n"

    assert update_text(note, change)
    lines = note.read_text().splitlines()
    assert sorted(lines[-3:]) == ["- one", "- ours", "- two"]  # theirs and ours, both kept


def test_crlf_notes_keep_their_line_endings(vault: Vault) -> None:
    original = b"---\r\ndate: 2026-11-22\r\n---\r\n\r\n# Day\r\n\r\n- typed on Windows\r\n"
    note = write(vault.root, NOTE, original)
    vault.remember("Alice is allergic to peanuts", now=NOON)
    vault.remember("Bob likes tea", now=NOON)
    data = note.read_bytes()
    assert data.startswith(original)
    assert data.count(b"\n") == data.count(b"\r\n") == original.count(b"\n") + 2
    assert vault.search("peanuts")[0].match_start == 8


def test_a_bare_cr_is_not_split_into_two_lines(vault: Vault) -> None:
    note = write(vault.root, NOTE, b"# Day\n\n- a line with a bare\rcarriage return\n")
    vault.remember("something new", now=NOON)
    assert note.read_bytes().startswith(b"# Day\n\n- a line with a bare\rcarriage return\n- ")


def test_consolidation_keeps_memory_md_line_endings_byte_for_byte(vault: Vault) -> None:
    head = b"# Memory\r\n\r\nMy own notes, written on Windows.\r\n\r\n"
    tail = b"\r\nMore of mine after the block.\r\n"
    memory = write(
        vault.root, "MEMORY.md", head + b"<!-- vaultmem:begin -->\r\n<!-- vaultmem:end -->" + tail
    )
    vault.remember("Remember that Alice is allergic to peanuts", importance=1.0, now=NOON)
    vault.consolidate(today=NOON.date())
    data = memory.read_bytes()
    assert data.startswith(head) and data.endswith(tail)
    assert b"peanuts" in data
    assert data.count(b"\n") == data.count(b"\r\n")


@pytest.mark.parametrize(
    "opened",
    [
        "```python\nprint('unfinished')\n",
        "~~~~\nsome code\n~~~\n",  # a shorter closer does not close a longer fence
        "- a list item\n\n```\ncode without end",
        "<!-- a comment never closed\n\n",
        "<pre>\npreformatted\n\n",
        "%% an Obsidian comment never closed\n\n",
    ],
)
def test_a_remembered_line_is_never_inside_a_block_left_open(vault: Vault, opened: str) -> None:
    note = write(vault.root, NOTE, "# Day\n\n" + opened)
    done = vault.remember("Remember: Alice is allergic to peanuts", importance=1.0, now=NOON)
    text = note.read_text()
    assert text.startswith("# Day\n\n" + opened)  # the person's words, untouched
    hits = vault.search("peanuts")
    assert [(h.kind, h.match_start) for h in hits] == [("item", done.line)]
    vault.consolidate(today=NOON.date())
    assert "allergic to peanuts" in "".join(
        p.read_text() for p in (vault.root / "facts").rglob("*.md")
    )


def test_a_symlinked_memory_folder_is_refused(vault: Vault, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for leftover in (vault.root / "memory").glob("*"):
        leftover.unlink()  # the template's .gitkeep
    (vault.root / "memory").rmdir()
    (vault.root / "memory").symlink_to(elsewhere)
    with pytest.raises(NotStoredError, match="outside the vault"):
        vault.remember("words that must not leave the vault", now=NOON)
    assert list(elsewhere.iterdir()) == []


def test_a_symlinked_daily_note_is_refused_and_left_alone(vault: Vault, tmp_path: Path) -> None:
    outside = write(tmp_path, "outside.md", "private text outside the vault\n")
    today = vault.root / f"memory/{dt.date.today()}.md"
    today.symlink_to(outside)
    result = run_cli(vault.root, "remember", "hello")
    assert result.returncode == 1
    assert result.stderr.startswith("Error: the memory was not stored: ")
    assert "symlink" in result.stderr and "Traceback" not in result.stderr
    assert outside.read_text() == "private text outside the vault\n"
    assert today.is_symlink()


def test_consolidation_never_writes_through_a_symlinked_fact_file(
    vault: Vault, tmp_path: Path
) -> None:
    outside = write(tmp_path, "outside.md", "private text outside the vault\n")
    (vault.root / "facts/general.md").symlink_to(outside)
    vault.remember("Remember the project deadline is Friday", importance=1.0, now=NOON)
    vault.history.commit("before")
    result = run_cli(vault.root, "consolidate", "--today", "2026-11-22")
    assert result.returncode == 1 and "symlink" in result.stderr
    assert outside.read_text() == "private text outside the vault\n"
    assert (vault.root / "facts/general.md").is_symlink()
    found = subprocess.run(["git", "grep", "-c", "private text", "HEAD"], cwd=vault.root)
    assert found.returncode == 1  # git grep: no match anywhere in the last commit


def test_the_state_folder_and_index_are_private(vault: Vault) -> None:
    vault.remember("a private thought", now=NOON)
    state = vault.root / ".vaultmem"
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    for name in ("index.db", "write.lock"):
        assert stat.S_IMODE((state / name).stat().st_mode) & 0o077 == 0, name


def test_an_old_world_readable_state_folder_is_made_private(vault_path: Path) -> None:
    (vault_path / ".vaultmem").chmod(0o755)
    with Vault(vault_path) as opened:
        opened.index()
    assert stat.S_IMODE((vault_path / ".vaultmem").stat().st_mode) == 0o700
    assert stat.S_IMODE((vault_path / ".vaultmem/index.db").stat().st_mode) & 0o077 == 0


@pytest.mark.parametrize(
    "content, reason",
    [
        ("latin-1 notes: caf\xe9\n".encode("latin-1"), "not valid UTF-8"),
        ("- ein Gedanke\n".encode("utf-16"), "UTF-16"),
    ],
)
def test_remember_into_a_note_that_is_not_utf8_stores_nothing_and_says_so(
    vault: Vault, content: bytes, reason: str
) -> None:
    note = write(vault.root, f"memory/{dt.date.today()}.md", content)
    result = run_cli(vault.root, "remember", "a new memory")
    assert result.returncode == 1, result.stderr
    assert result.stderr.count("\n") == 1 and reason in result.stderr
    assert "not stored" in result.stderr
    assert note.read_bytes() == content


def test_remember_when_the_daily_note_is_a_folder(vault: Vault) -> None:
    (vault.root / f"memory/{dt.date.today()}.md").mkdir()
    result = run_cli(vault.root, "remember", "a new memory")
    assert result.returncode == 1
    assert result.stderr.startswith("Error: the memory was not stored: ")
    assert "not a regular file" in result.stderr


def test_remember_when_the_lock_cannot_be_taken(vault: Vault) -> None:
    (vault.root / ".vaultmem/write.lock").mkdir()  # as root, chmod cannot make it unwritable
    result = run_cli(vault.root, "remember", "a new memory")
    assert result.returncode == 1 and "not stored" in result.stderr
    assert not (vault.root / f"memory/{dt.date.today()}.md").exists()


def test_remember_on_a_full_disk_takes_back_the_half_written_line(vault: Vault) -> None:
    note = write(vault.root, f"memory/{dt.date.today()}.md", "# Today\n\n- before\n")
    size = note.stat().st_size

    def small_files() -> None:  # the kernel refuses writes past this size: like a full disk
        import resource

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size + 10, size + 10))

    result = subprocess.run(
        [sys.executable, "-m", "vaultmem", "remember", "x" * 200, "--vault", str(vault.root)],
        capture_output=True,
        text=True,
        preexec_fn=small_files,
        timeout=60,
    )
    assert result.returncode == 1 and "not stored" in result.stderr, result.stderr
    assert note.read_text() == "# Today\n\n- before\n"


def test_stored_but_not_indexed_is_a_success_with_a_warning(vault: Vault) -> None:
    (vault.root / ".vaultmem/config.toml").write_text("[index]\nbusy_timeout_ms = 100\n")
    vault.index()
    holder = sqlite3.connect(vault.root / ".vaultmem/index.db")
    holder.execute("BEGIN IMMEDIATE")  # a long reindex holds the index
    try:
        result = run_cli(vault.root, "remember", "kept while the index is busy")
    finally:
        holder.rollback()
        holder.close()
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("remembered memory/")
    assert "Warning: stored, but not indexed yet" in result.stderr
    assert (
        "kept while the index is busy" in (vault.root / f"memory/{dt.date.today()}.md").read_text()
    )
    assert CliRunner().invoke(cli, ["index", "--vault", str(vault.root)]).exit_code == 0
    assert vault.search("busy")


def test_kill_9_during_remember_leaves_no_temp_file_and_no_half_line(vault: Vault) -> None:
    note = vault.root / "memory/2026-11-22.md"
    for round_ in range(6):
        proc = subprocess.Popen(
            [sys.executable, "-c", AGENT, str(vault.root), f"r{round_}", "100000"]
        )
        deadline = 5.0
        while not note.exists() or note.stat().st_size < 2000 * (round_ + 1):
            assert proc.poll() is None
            deadline -= 0.01
            assert deadline > 0
            threading.Event().wait(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    leftovers = [p for p in vault.root.rglob("*") if p.name.startswith(TEMP_PREFIX)]
    clean_temp_files(vault.root / ".vaultmem", older_than=0)
    assert not [p for p in vault.root.rglob("*") if p.name.startswith(TEMP_PREFIX)]
    assert all(".vaultmem/tmp" in p.as_posix() for p in leftovers)
    lines = note.read_text().splitlines()
    assert all(ln.rsplit(" ", 1)[-1].startswith("^m") for ln in lines if ln.startswith("- "))
    assert "memory/2026-11-22.md" in vault.history.changed_paths()
    assert not [p for p in vault.history.changed_paths() if TEMP_PREFIX in p]


def test_a_stale_temp_file_is_cleaned_by_the_next_write(vault: Vault) -> None:
    temp = vault.root / ".vaultmem/tmp" / f"{TEMP_PREFIX}left-by-a-crash"
    temp.parent.mkdir(exist_ok=True)
    temp.write_text("half")
    os.utime(temp, (1_000_000_000, 1_000_000_000))
    vault.remember("next write", now=NOON)
    assert not temp.exists()


@pytest.mark.parametrize("text", ["   ", "[cron: nightly] backup ran", "[heartbeat ok"])
def test_remember_exits_1_when_it_skips_the_text(vault: Vault, text: str) -> None:
    result = run_cli(vault.root, "remember", text)
    assert result.returncode == 1
    assert result.stderr.startswith("not stored: ") and result.stdout == ""


def test_remember_of_the_same_message_again_exits_0(vault: Vault) -> None:
    first = run_cli(vault.root, "remember", "Bob moved to Berlin", "--session", "s1")
    again = run_cli(vault.root, "remember", "Bob moved to Berlin", "--session", "s1")
    assert first.returncode == again.returncode == 0
    assert again.stdout.startswith("already remembered ^m")


def test_percent_signs_in_inline_code_open_no_comment(vault: Vault) -> None:
    note = write(vault.root, NOTE, "# Day\n\n- Use `%%` around text to hide it\n")
    vault.remember("a line after inline percent signs", now=NOON)
    lines = note.read_text().splitlines()
    assert len(lines) == 4 and "after inline percent signs" in lines[3]  # no %% closer added


def test_a_hard_linked_daily_note_is_refused(vault: Vault, tmp_path: Path) -> None:
    outside = write(tmp_path, "outside.md", "# outside the vault\n")
    os.link(outside, vault.root / f"memory/{dt.date.today()}.md")
    result = run_cli(vault.root, "remember", "must not reach outside")
    assert result.returncode == 1 and "hard links" in result.stderr
    assert outside.read_text() == "# outside the vault\n"


def test_writes_go_on_after_the_temp_folder_is_removed(vault: Vault) -> None:
    import shutil

    update_text(vault.root / "facts/a.md", lambda old: old + "- one\n")
    shutil.rmtree(vault.root / ".vaultmem/tmp")
    update_text(vault.root / "facts/a.md", lambda old: old + "- two\n")
    assert (vault.root / "facts/a.md").read_text() == "- one\n- two\n"


def test_a_symlinked_memory_md_is_left_alone_and_facts_still_land(
    vault: Vault, tmp_path: Path
) -> None:
    agent_file = write(tmp_path, "agent/CLAUDE.md", "# the agent's own file\n")
    (vault.root / "MEMORY.md").unlink()
    (vault.root / "MEMORY.md").symlink_to(agent_file)
    vault.remember("Remember that Alice is allergic to peanuts", importance=1.0, now=NOON)
    report = vault.consolidate(today=NOON.date())
    assert report.new_facts == 1
    assert any("MEMORY.md is a symlink" in notice for notice in report.notices)
    assert agent_file.read_text() == "# the agent's own file\n"
    assert (vault.root / "MEMORY.md").is_symlink()
