"""``remember``: one message, one canonical line in today's daily note, searchable at once."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import write

from vaultmem import Vault, VaultmemError
from vaultmem.memory.language.secrets import mask_secrets
from vaultmem.memory.pipeline.remember import block_id
from vaultmem.notes.writes import update_text

NOON = dt.datetime(2026, 11, 22, 12, 5)


def test_a_message_becomes_one_line_searchable_at_once(vault: Vault) -> None:
    done = vault.remember(
        "Alice is allergic to peanuts",
        role="user",
        source="chat",
        session="s1",
        tags=["health"],
        importance=1.0,
        now=NOON,
    )
    assert (done.path, done.line, done.skipped) == ("memory/2026-11-22.md", 8, None)
    text = (vault.root / "memory/2026-11-22.md").read_text()
    assert text == (
        "---\ndate: 2026-11-22\ntype: daily\n---\n\n# 2026-11-22\n\n"
        f"- 12:05 **user** Alice is allergic to peanuts #health [source:: chat] [session:: s1] "
        f"[importance:: 1] ^{done.block_id}\n"
    )
    hits = vault.search("peanuts")
    assert [(h.path, h.line_start, h.tags) for h in hits] == [
        ("memory/2026-11-22.md", 8, ["health"])
    ]


def test_a_note_stays_in_time_order_when_an_earlier_message_comes_late(vault: Vault) -> None:
    """A message said before the note's last line (a session captured late, one after
    midnight captured at noon) goes before the first line said after it; a person's own
    line without a time stays where it is, and the line number given is where it went."""
    vault.remember("Lunch with Dana", now=NOON)
    note = vault.root / "memory/2026-11-22.md"
    with note.open("a") as handle:
        handle.write("- call the bank\n")
    early = vault.remember("Night deploy went fine", now=NOON.replace(hour=0, minute=1))
    later = vault.remember("Standup at nine", now=NOON.replace(hour=9, minute=0))
    rows = note.read_text().splitlines()
    assert [row.split(" ^")[0] for row in rows[7:]] == [
        "- 00:01 **user** Night deploy went fine",
        "- 09:00 **user** Standup at nine",
        "- 12:05 **user** Lunch with Dana",
        "- call the bank",
    ]
    for done in (early, later):
        assert rows[done.line - 1].endswith(f"^{done.block_id}")
    hits = vault.search("night deploy", mode="keyword")
    assert (hits[0].path, hits[0].line_start) == ("memory/2026-11-22.md", early.line)


def test_a_line_said_early_is_never_put_inside_a_block_left_open(vault: Vault) -> None:
    note = write(vault.root, "memory/2026-11-22.md", "# 2026-11-22\n\n```\n- 12:00 code\n")
    done = vault.remember("Breakfast with Sam", now=NOON.replace(hour=8))
    assert note.read_text() == (
        "# 2026-11-22\n\n```\n- 12:00 code\n```\n"
        f"- 08:05 **user** Breakfast with Sam ^{done.block_id}\n"
    )


def test_the_same_message_twice_is_stored_once(vault: Vault) -> None:
    first = vault.remember("Bob moved to Berlin", session="s9", now=NOON)
    again = vault.remember("  Bob   moved to Berlin ", session="s9", now=NOON)
    other_session = vault.remember("Bob moved to Berlin", session="s10", now=NOON)
    assert again.skipped == "already remembered" and again.block_id == first.block_id
    assert other_session.skipped is None
    assert (vault.root / "memory/2026-11-22.md").read_text().count("Bob moved to Berlin") == 2
    assert block_id("s9", "bob moved to berlin") == first.block_id


@pytest.mark.parametrize(
    "text, reason",
    [
        ("", "empty text"),
        ("   ", "empty text"),
        ("[cron:daily] ran backup", "noise: starts with [cron:"),
        ("[Heartbeat] alive", "noise: starts with [heartbeat"),
        ("[memory context] ...", "noise: starts with [memory context]"),
        ("x <!-- vaultmem:begin --> y", "an echo of vaultmem's own context block"),
    ],
)
def test_noise_is_skipped_and_reported(vault: Vault, text: str, reason: str) -> None:
    done = vault.remember(text, now=NOON)
    assert (done.path, done.skipped) == (None, reason)
    assert not (vault.root / "memory/2026-11-22.md").exists()


@pytest.mark.parametrize(
    "text, kept",
    [
        ("my password is hunter22 ok", "my password is [secret masked] ok"),
        ("use key sk-abcdefghijklmnopqrstuvwx12 now", "use key [secret masked] now"),
        ("token: ghp_" + "a" * 36, "token: [secret masked]"),
        ("AWS AKIAABCDEFGHIJKLMNOP here", "AWS [secret masked] here"),
        ("服务器密码：Abc12345 别忘了", "服务器密码：[secret masked] 别忘了"),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY----- done",
            "[secret masked] done",
        ),
        ("the tokenizer is fast", "the tokenizer is fast"),
    ],
)
def test_secrets_are_masked(text: str, kept: str) -> None:
    assert mask_secrets(text)[0] == kept


def test_a_secret_never_reaches_the_note(vault: Vault) -> None:
    done = vault.remember("deploy with api_key=ZXhhbXBsZWtleQ and go", now=NOON)
    assert done.masked == 1
    note = (vault.root / "memory/2026-11-22.md").read_text()
    assert "ZXhhbXBsZWtleQ" not in note and "api_key=[secret masked]" in note


def test_a_persons_edit_during_the_write_is_kept(vault: Vault, tmp_path: Path) -> None:
    note = write(vault.root, "memory/2026-11-22.md", "# day\n\n- written by a person\n")
    edits = iter(["# day\n\n- written by a person\n- and edited meanwhile\n"])

    def change(old: str) -> str:
        pending = next(edits, None)
        if pending is not None:  # the person saves between our read and our write
            note.write_text(pending)
        return old + "- from vaultmem\n"

    assert update_text(note, change)
    assert sorted(note.read_text().splitlines()[2:]) == [
        "- and edited meanwhile",
        "- from vaultmem",
        "- written by a person",
    ]


def test_importance_outside_zero_to_one_is_an_error(vault: Vault) -> None:
    with pytest.raises(VaultmemError, match="between 0 and 1"):
        vault.remember("x", importance=1.5)


def test_four_processes_remembering_a_hundred_times_each(vault: Vault) -> None:
    script = (
        "import sys, datetime as dt\n"
        "from vaultmem import Vault\n"
        "v = Vault(sys.argv[1])\n"
        "for i in range(100):\n"
        "    v.remember(f'writer {sys.argv[2]} message {i}', session=sys.argv[2],\n"
        "               now=dt.datetime(2026, 11, 22, 9, 0))\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(vault.root), str(n)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(4)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    lines = [
        ln
        for ln in (vault.root / "memory/2026-11-22.md").read_text().splitlines()
        if ln.startswith("- ")
    ]
    assert len(lines) == 400
    assert len({ln.rsplit("^", 1)[1] for ln in lines}) == 400
    assert len(vault.search("writer", limit=1000)) == 400


def test_the_cli(vault: Vault) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "vaultmem",
            "remember",
            "the cli remembers quokkas",
            "--tag",
            "t",
            "--vault",
            str(vault.root),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("remembered memory/") and " ^m" in done.stdout
    assert [h.text.split("** ")[1].split(" #")[0] for h in vault.search("quokkas")] == [
        "the cli remembers quokkas"
    ]
