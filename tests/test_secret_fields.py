"""Secrets in every field vaultmem writes, not only in the words: the role, the tags, the
source, the session and the agent of a daily line (through ``remember``, the CLI, a
subprocess, the MCP tool and transcript capture), a forget's reason, a role copied into a
fact, and a commit message. None of them is stored, nor committed: ``git log -p`` of the
vault holds none of the secrets.

A field cannot hold the words' marker (``[secret masked]`` would end ``[session:: ]``): a
secret there becomes ``(secret masked)``, and a tag holding one the tag ``#secret-masked``.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import string
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import git
import pytest
from click.testing import CliRunner
from conftest import write
from mcp.client.stdio import StdioServerParameters, stdio_client
from test_mcp import Client, connect, server_env

from vaultmem import Vault
from vaultmem.cli import cli
from vaultmem.memory.language.secrets import FIELD_MASK, MASK, find_secrets
from vaultmem.memory.pipeline.facts import parse_entry
from vaultmem.memory.pipeline.remember import SECRET_TAG


def token(prefix: str, length: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    """A made-up credential: ``prefix`` and ``length`` characters, the same on every run."""
    chars = random.Random(prefix + str(length)).choices(alphabet, k=length)
    return prefix + "".join(chars)


NOON = dt.datetime(2026, 11, 22, 12, 0)
WORDS = "Alice moved to Lisbon in March"

# (what a caller passes, the part that must not be stored): one of each kind of secret
PAYLOADS = [
    (token("ghp_", 36), token("ghp_", 36)),
    ("key AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("DB_PASSWORD=hunter2xyz99", "hunter2xyz99"),
    ("sshpass -p 'Kx8#mPq2vLw'", "Kx8#mPq2vLw"),
    ("openai " + token("sk-proj-", 48), token("sk-proj-", 48)),
    ("the admin password for the router is Tr33House-42", "Tr33House-42"),
]
FIELDS = ["role", "source", "session", "agent", "tags"]


def daily_lines(root: Path) -> list[str]:
    """Every list item of every daily note."""
    return [
        line
        for note in sorted((root / "memory").glob("*.md"))
        for line in note.read_text().splitlines()
        if line.startswith("- ")
    ]


def history(root: Path) -> str:
    """All of the vault's history as ``git log -p`` shows it, messages included."""
    return str(git.Repo(root).git.log("-p", "--all", "--format=%H%n%B"))


def assert_field_holds_the_mask(line: str, field: str) -> None:
    """The field reads back, as Obsidian's Dataview and vaultmem's parser read it, holding
    the field's marker; the line holds nothing that looks like a secret."""
    entry = parse_entry(line)
    assert entry is not None and entry.text.startswith(WORDS)
    if field == "role":
        assert entry.role is not None and FIELD_MASK in entry.role
    elif field == "tags":
        assert entry.tags == (SECRET_TAG,)
    else:
        value = entry.field(field)
        assert value is not None and FIELD_MASK in value
    assert find_secrets(line) == []


# ---- remember: the library, the CLI, a subprocess ----------------------------------------


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("payload, secret", PAYLOADS)
def test_a_secret_in_any_field_of_a_remembered_line_is_masked(
    vault: Vault, field: str, payload: str, secret: str
) -> None:
    given: dict[str, Any] = {field: [payload] if field == "tags" else payload}
    done = vault.remember(WORDS, now=NOON, **given)
    assert done.path is not None and done.masked == 1
    note = (vault.root / done.path).read_text()
    assert secret not in note
    [line] = daily_lines(vault.root)
    assert_field_holds_the_mask(line, field)


def test_the_cli_masks_every_field_and_counts_them(vault: Vault) -> None:
    payloads = iter(payload for payload, _ in PAYLOADS)
    args = [f"--{'tag' if f == 'tags' else f}={next(payloads)}" for f in FIELDS]
    result = CliRunner().invoke(
        cli, ["remember", WORDS, *args, "--vault", str(vault.root)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert result.stderr == "Warning: 5 secret(s) masked before storing\n"
    [line] = daily_lines(vault.root)
    for (_, secret), field in zip(PAYLOADS, FIELDS, strict=False):
        assert secret not in line
        assert_field_holds_the_mask(line, field)


def test_remember_as_a_subprocess_stores_no_secret_of_its_fields(vault_path: Path) -> None:
    session, tag = token("ghp_", 36), "DB_PASSWORD=hunter2xyz99"
    done = subprocess.run(
        [sys.executable, "-m", "vaultmem", "remember", WORDS, "--session", session]
        + ["--tag", tag, "--source", "sshpass -p 'Kx8#mPq2vLw'", "--vault", str(vault_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == "Warning: 3 secret(s) masked before storing\n"
    [line] = daily_lines(vault_path)
    assert session not in line and "hunter2xyz99" not in line and "Kx8#mPq2vLw" not in line
    assert f"[session:: {FIELD_MASK}]" in line and f"#{SECRET_TAG}" in line


def test_fields_without_secrets_are_kept_as_they_were(vault: Vault) -> None:
    done = vault.remember(
        WORDS, now=NOON, role="Alice", source="chat [web]", session="s42", tags=["home town"]
    )
    assert done.masked == 0
    [line] = daily_lines(vault.root)
    assert line == (
        f"- 12:00 **Alice** {WORDS} #home-town [source:: chat (web)] [session:: s42] "
        f"^{done.block_id}"
    )


# ---- forget --reason ----------------------------------------------------------------------

REASONS = [
    ("leaked " + token("ghp_", 36) + " in chat", token("ghp_", 36)),
    ("it said DB_PASSWORD=hunter2xyz99", "hunter2xyz99"),
    ("had sshpass -p 'Kx8#mPq2vLw' in it", "Kx8#mPq2vLw"),
    ("the admin password for the router is Tr33House-42", "Tr33House-42"),
    ("passphrase: correct horse battery staple, rotate it", "correct horse battery staple"),
    ("密码是 Zx9!kq2Lm", "Zx9!kq2Lm"),
]


@pytest.mark.parametrize("reason, secret", REASONS)
def test_a_forget_reason_is_masked_in_the_note_and_in_history(
    vault: Vault, reason: str, secret: str
) -> None:
    stored = vault.remember(WORDS, now=NOON)
    result = CliRunner().invoke(
        cli,
        ["forget", f"2026-11-22#{stored.block_id}", "--reason", reason, "--vault", str(vault.root)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert result.stderr == "Warning: 1 secret(s) masked in the reason before storing\n"
    [line] = daily_lines(vault.root)
    entry = parse_entry(line)
    assert entry is not None and f"{WORDS}~~" in line  # the words kept, struck through
    reason_field = entry.field("reason")
    assert reason_field is not None and FIELD_MASK in reason_field
    assert secret not in line and secret not in history(vault.root)
    assert find_secrets(line) == []


def test_a_forget_reason_without_a_secret_is_kept_and_not_warned_about(vault: Vault) -> None:
    stored = vault.remember(WORDS, now=NOON)
    assert stored.block_id is not None
    done = vault.forget(stored.block_id, reason="moved away [for good]", today=NOON.date())
    assert done.notices == []
    [line] = daily_lines(vault.root)
    assert "[reason:: moved away (for good)]" in line


# ---- MCP: the real SDK client, the real server --------------------------------------------


@contextmanager
def mcp_client(root: Path, home: Path) -> Iterator[Client]:
    """``python -m vaultmem mcp --vault ROOT`` over stdio, with an initialised session."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "vaultmem", "mcp", "--vault", str(root)],
        env=server_env(home),
    )
    stray: list[Exception] = []
    with (
        (root.parent / "stderr.log").open("w") as errlog,
        connect(stdio_client(params, errlog=errlog), stray) as client,
    ):
        yield client
    assert not stray


def test_mcp_remember_and_forget_store_no_secret_of_any_field(
    vault_path: Path, tmp_path: Path
) -> None:
    fields: dict[str, Any] = {
        "session": token("ghp_", 36),
        "agent": "agent DB_PASSWORD=hunter2xyz99",
        "role": "sshpass -p 'Kx8#mPq2vLw'",
        "tags": ["ok", "key AKIAIOSFODNN7EXAMPLE"],
    }
    secrets = [token("ghp_", 36), "hunter2xyz99", "Kx8#mPq2vLw", "AKIAIOSFODNN7EXAMPLE"]
    reason = "leaked " + token("sk-proj-", 48)
    home = tmp_path / "home"
    home.mkdir()
    with mcp_client(vault_path, home) as client:
        stored = client.ok("remember", {"text": WORDS, **fields})
        assert stored["masked"] == 4
        done = client.ok("forget", {"id": stored["block_id"], "reason": reason})
        assert done["block_id"] == stored["block_id"]
    [line] = daily_lines(vault_path)
    for secret in [*secrets, token("sk-proj-", 48)]:
        assert secret not in line and secret not in history(vault_path)
    entry = parse_entry(line)
    assert entry is not None and f"**sshpass -p '{FIELD_MASK}'**" in line  # the role
    assert entry.field("session") == FIELD_MASK
    assert entry.field("agent") == f"agent DB_PASSWORD={FIELD_MASK}"
    assert entry.field("reason") == f"leaked {FIELD_MASK}"
    assert entry.tags == ("ok", SECRET_TAG)


# ---- transcripts: the session id of several hosts' formats --------------------------------

SESSION_SECRET = token("ghp_", 36)


def claude_code(session: str) -> list[dict[str, Any]]:
    """A Claude Code project transcript: the session id on every entry (``sessionId``)."""
    return [
        {
            "type": "user",
            "sessionId": session,
            "uuid": "u1",
            "timestamp": "2026-11-22T09:00:00.000Z",
            "message": {"role": "user", "content": WORDS},
        }
    ]


def codex(session: str) -> list[dict[str, Any]]:
    """A Codex CLI rollout: the session id in its ``session_meta`` line."""
    return [
        {
            "timestamp": "2026-11-22T09:00:00.000Z",
            "type": "session_meta",
            "payload": {"id": session, "timestamp": "2026-11-22T09:00:00.000Z", "cwd": "/w"},
        },
        {
            "timestamp": "2026-11-22T09:00:01.000Z",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": WORDS}],
            },
        },
    ]


def openclaw(session: str) -> list[dict[str, Any]]:
    """An OpenClaw session file: the session id in its header."""
    return [
        {"type": "session", "version": 3, "id": session, "timestamp": "2026-11-22T09:00:00Z"},
        {
            "type": "message",
            "id": "m1",
            "timestamp": "2026-11-22T09:00:01Z",
            "message": {"role": "user", "content": [{"type": "text", "text": WORDS}]},
        },
    ]


def plain(session: str) -> list[dict[str, Any]]:
    """A plain JSONL of messages: the session id on each (``session_id``)."""
    return [{"role": "user", "content": WORDS, "session_id": session}]


@pytest.mark.parametrize(
    "host, fmt",
    [(claude_code, "claude-code"), (codex, "codex"), (openclaw, "openclaw"), (plain, "jsonl")],
)
@pytest.mark.parametrize("session", [SESSION_SECRET, "run-DB_PASSWORD=hunter2xyz99"])
def test_a_transcripts_session_id_is_masked_for_each_host_format(
    vault: Vault, tmp_path: Path, host: Any, fmt: str, session: str
) -> None:
    transcript = tmp_path / "session.jsonl"
    transcript.write_text("".join(json.dumps(entry) + "\n" for entry in host(session)))
    report = vault.capture(transcript)
    assert (report.format, report.added, report.masked) == (fmt, 1, 1)
    [line] = daily_lines(vault.root)
    assert session not in line and "hunter2xyz99" not in line
    entry = parse_entry(line)
    assert entry is not None and entry.text == WORDS
    session_field = entry.field("session")
    assert session_field is not None and FIELD_MASK in session_field
    assert vault.capture(transcript).added == 0  # the same message, the same id: once


def test_capture_session_and_agent_options_are_masked(vault_path: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(json.dumps({"role": "user", "content": WORDS}) + "\n")
    result = CliRunner().invoke(
        cli,
        ["capture", str(transcript), "--session", SESSION_SECRET]
        + ["--agent", "DB_PASSWORD=hunter2xyz99", "--vault", str(vault_path)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert "2 secret(s) masked" in result.stderr
    [line] = daily_lines(vault_path)
    assert SESSION_SECRET not in line and "hunter2xyz99" not in line


# ---- what else is written: facts, commit messages, and the whole history -----------------


def test_a_role_a_person_typed_is_masked_in_the_fact_made_from_the_line(vault: Vault) -> None:
    typed = f"- **{token('ghp_', 36)}** Remember: Alice is allergic to peanuts ^a1"
    write(vault.root, "memory/2026-11-22.md", f"# 2026-11-22\n\n{typed}\n")
    vault.consolidate(today=NOON.date())
    assert typed in (vault.root / "memory/2026-11-22.md").read_text()  # a person's line stays
    facts = "".join(p.read_text() for p in (vault.root / "facts").rglob("*.md"))
    assert "peanuts" in facts and f"{MASK}: " in facts
    assert token("ghp_", 36) not in facts + (vault.root / "MEMORY.md").read_text()


def test_a_commit_message_is_masked(vault: Vault) -> None:
    write(vault.root, "notes/a.md", "# A\n\nplain words\n")
    result = CliRunner().invoke(
        cli,
        ["commit", "-m", "rotate " + token("ghp_", 36), "--vault", str(vault.root)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    message = git.Repo(vault.root).head.commit.message
    assert message.strip() == f"rotate {MASK}"


def test_git_log_p_holds_no_secret_after_remember_forget_and_consolidate(vault: Vault) -> None:
    secrets = [secret for _, secret in PAYLOADS + REASONS]
    for number, (payload, _) in enumerate(PAYLOADS):
        stored = vault.remember(
            f"Remember: project {number} deploys on Fridays, {payload}",
            now=NOON,
            role=payload,
            source=payload,
            session=f"s{number} {payload}",
            agent=payload,
            tags=[payload],
        )
        assert stored.masked == 6  # the words and each of the five fields
    vault.consolidate(today=NOON.date())
    assert list((vault.root / "facts").rglob("*.md"))  # the lines were distilled
    for reason, _ in REASONS:
        stored = vault.remember(f"The {reason[:12]} note is obsolete", now=NOON)
        assert stored.block_id is not None
        vault.forget(f"2026-11-22#{stored.block_id}", reason=reason, today=NOON.date())
    vault.consolidate(today=NOON.date())
    logged = history(vault.root)
    assert logged.count("forget ^") == len(REASONS) and "consolidate" in logged
    assert [secret for secret in secrets if secret in logged] == []
