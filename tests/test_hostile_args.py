"""Hostile arguments and inputs (trust, round three: items 11, 12 and 13).

Every case meets the real thing: vaults made by ``Vault.init`` under ``tmp_path``, the CLI
as a subprocess (``python -m vaultmem``; a NUL byte cannot be put in a process's argv, so
those go through click's ``CliRunner`` or a hook's JSON), transcripts written as the hosts
write them, and the MCP server through the official SDK's client. Each bad input must give
one ``Error:`` line (no traceback) and a non-zero exit code, and leave every note as it was;
a bad line or message of a transcript must cost only itself.

* Item 11: a transcript line nested deeper than Python can parse; paths no file can have
  (a NUL byte, a name over 255 bytes, a path over 4,095 bytes, a lone surrogate) in every
  path argument, option, hook input and MCP ``get``; ``recent --days`` of any size.
* Item 12: the dates a note can have (1900-01-01 to 2100-12-31) for ``remember --at``,
  ``--today`` and every host's transcript timestamps (seconds, milliseconds, ISO 8601).
* Item 13: ``forget`` is idempotent (CLI and MCP); ``hooks`` refuses a hard-linked settings
  file; ``.vaultmem/`` is private right after ``init``.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from test_mcp import Client, connect, server_env

from vaultmem import Vault
from vaultmem.cli import cli
from vaultmem.errors import NotStoredError
from vaultmem.memory.pipeline.remember import daily_note_path
from vaultmem.notes.date_range import DateOutOfRangeError

RANGE = "1900-01-01 to 2100-12-31"
NUL = "a\x00b.md"
LONG_NAME = "n" * 300 + ".md"  # one name over 255 bytes
LONG_PATH = "/".join(["p" * 200] * 25) + ".md"  # each name fits, the path (5,024 bytes) not
SURROGATE = "\ud800.md"  # JSON may carry it (as "\ud800"); no file name can
UNUSABLE = {
    "nul": (NUL, "NUL byte"),
    "long-name": (LONG_NAME, "a file name has at most 255"),
    "long-path": (LONG_PATH, "a path has at most 4,095"),
    "surrogate": (SURROGATE, "lone surrogate"),
}
# The ones a process's argv can carry (no NUL; a lone surrogate has no bytes to pass).
IN_ARGV = ["long-name", "long-path"]


def vaultmem(
    *args: str, stdin: str = "", tz: str = "UTC", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``vaultmem ARGS`` as a real process, in time zone ``tz``."""
    return subprocess.run(
        [sys.executable, "-m", "vaultmem", *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,  # a hang guard, not a speed limit
        env={**os.environ, "TZ": tz, **(env or {})},
    )


def invoke(*args: str, stdin: str | None = None) -> tuple[int, str]:
    """``vaultmem ARGS`` through click's runner (for arguments no argv can hold): the exit
    code and stderr; an exception escaping the command fails the test here."""
    result = CliRunner().invoke(cli, list(args), input=stdin)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"{args!r} raised {result.exception!r}") from result.exception
    return result.exit_code, result.stderr


def one_error(stderr: str) -> str:
    """The one ``Error:`` line of a failed command (and no traceback)."""
    assert "Traceback" not in stderr, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, stderr
    return errors[0]


def files_of(root: Path) -> dict[str, bytes]:
    """Every file of a vault outside ``.git/`` and ``.vaultmem/`` (the index is
    disposable): what a person would miss."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.relative_to(root).parts[0] not in (".git", ".vaultmem")
    }


def notes_text(root: Path) -> str:
    return "\n".join(
        (root / rel).read_text("utf-8", "replace") for rel in files_of(root) if rel.endswith(".md")
    )


def daily_notes(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "memory").glob("*.md"))


# -- transcripts as each host writes them ------------------------------------------------

HOSTS = ["claude-code", "codex", "openclaw", "jsonl"]
SESSION = "9d3c1a55-0b7e-4f1e-8a11-2c3d4e5f6a7b"


def entry(host: str, n: int, role: str, text: str, when: Any) -> dict[str, Any]:
    """Message ``n`` of a session in ``host``'s own shape, stamped ``when``."""
    if host == "claude-code":
        return {
            "type": role,
            "sessionId": SESSION,
            "uuid": f"u{n}",
            "timestamp": when,
            "message": {"role": role, "content": [{"type": "text", "text": text}]},
        }
    if host == "codex":
        kind = "input_text" if role == "user" else "output_text"
        return {
            "timestamp": when,
            "type": "response_item",
            "payload": {
                "type": "message",
                "id": f"i{n}",
                "role": role,
                "content": [{"type": kind, "text": text}],
            },
        }
    if host == "openclaw":
        return {
            "type": "message",
            "id": f"o{n}",
            "timestamp": when,
            "message": {"role": role, "content": [{"type": "text", "text": text}]},
        }
    return {"role": role, "content": text, "timestamp": when, "id": f"j{n}"}


def header(host: str) -> list[str]:
    """The lines a host writes before the first message."""
    if host == "codex":
        return [json.dumps({"type": "session_meta", "payload": {"id": SESSION}})]
    if host == "openclaw":
        return [json.dumps({"type": "session", "id": SESSION})]
    return []


def write_transcript(path: Path, host: str, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in [*header(host), *lines]), encoding="utf-8")
    return path


def deep_line(host: str, shape: str, depth: int) -> str:
    """A line nested ``depth`` levels deep: inside the message's content where the host
    keeps it, or a bare nest of arrays or objects."""
    if shape == "arrays":
        return "[" * depth + "]" * depth
    if shape == "objects":
        return '{"a":' * depth + "1" + "}" * depth
    nest = "[" * depth + "]" * depth
    shaped = json.dumps(entry(host, 99, "user", "PLACEHOLDER", "2026-11-22T09:30:00Z"))
    return shaped.replace('[{"type": "text", "text": "PLACEHOLDER"}]', nest).replace(
        '"PLACEHOLDER"', nest
    )


GOOD = [
    ("user", "Carol starts at the studio on Monday", "2026-11-22T09:00:00Z"),
    ("assistant", "Noted: Carol starts on Monday", "2026-11-22T09:01:00Z"),
    ("user", "Dave prefers tea over coffee", "2026-11-22T10:00:00Z"),
]


# -- item 11: a line nested too deeply --------------------------------------------------


@pytest.mark.parametrize("host", HOSTS)
@pytest.mark.parametrize("shape", ["in-content", "arrays", "objects"])
@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_a_line_nested_too_deeply_is_skipped_and_the_rest_is_stored(
    vault_path: Path, tmp_path: Path, host: str, shape: str, where: str, utc: None
) -> None:
    good = [json.dumps(entry(host, n, *message)) for n, message in enumerate(GOOD)]
    at = {"first": 0, "middle": 2, "last": len(good)}[where]
    lines = [*good[:at], deep_line(host, shape, 1500), *good[at:]]
    transcript = write_transcript(tmp_path / "t.jsonl", host, lines)

    for run in range(2):  # a later capture (the next Stop hook) skips it again the same way
        code, stderr = invoke("capture", str(transcript), "--vault", str(vault_path))

        assert code == 0, stderr
        assert "Traceback" not in stderr and "Error" not in stderr
        assert "Warning: 1 line(s) nested too deeply to read, skipped" in stderr
        text = (vault_path / "memory/2026-11-22.md").read_text()
        for _, words, _ in GOOD:
            assert text.count(words) == 1, (run, text)


@pytest.mark.parametrize("host", ["claude-code", "codex"])
@pytest.mark.parametrize("depth", [1500, 100_000])
def test_every_stop_hook_after_a_too_deep_line_still_stores_the_session(
    vault_path: Path, tmp_path: Path, host: str, depth: int
) -> None:
    """The hook as the host runs it, as a process, once per turn while the session grows."""
    transcript = tmp_path / "session.jsonl"
    first = [json.dumps(entry(host, 0, *GOOD[0])), deep_line(host, "in-content", depth)]
    write_transcript(transcript, host, first)
    hook = json.dumps({"session_id": SESSION, "transcript_path": str(transcript)})
    args = ("capture", "--hook", "--vault", str(vault_path))

    done = vaultmem(*args, stdin=hook)
    with transcript.open("a", encoding="utf-8") as handle:  # the next turn
        handle.write(json.dumps(entry(host, 2, *GOOD[2])) + "\n")
    later = vaultmem(*args, stdin=hook)

    for run in (done, later):
        assert run.returncode == 0, run.stderr
        assert "Traceback" not in run.stderr and "Error" not in run.stderr
        assert "nested too deeply" in run.stderr
    text = (vault_path / "memory/2026-11-22.md").read_text()
    assert text.count(GOOD[0][1]) == 1 and text.count(GOOD[2][1]) == 1


@pytest.mark.parametrize(
    "stdin", ['{"transcript_path": ' + "[" * 1500 + "]" * 1500 + "}", "[" * 100_000]
)
def test_hook_input_nested_too_deeply_is_one_error_line(vault_path: Path, stdin: str) -> None:
    before = files_of(vault_path)
    for run in (
        vaultmem("capture", "--hook", "--vault", str(vault_path), stdin=stdin),
        vaultmem("context", "--hook", "--vault", str(vault_path), stdin=stdin),
    ):
        if run.args[3] == "capture":
            assert run.returncode == 1
            assert "nested too deeply" in one_error(run.stderr)
        else:  # the context hook ignores its input: it still prints the block
            assert run.returncode == 0 and "Traceback" not in run.stderr
    assert files_of(vault_path) == before


# -- item 11: paths no file can have ----------------------------------------------------


@pytest.mark.parametrize("kind", list(UNUSABLE))
def test_a_hook_naming_a_transcript_path_no_file_can_have_is_one_error_line(
    vault_path: Path, kind: str
) -> None:
    path, reason = UNUSABLE[kind]
    before = files_of(vault_path)
    for named in (path, f"/tmp/{path}"):
        hook = json.dumps({"session_id": "s1", "transcript_path": named})  # \u0000, \ud800

        done = vaultmem("capture", "--hook", "--vault", str(vault_path), stdin=hook)

        assert done.returncode == 1
        line = one_error(done.stderr)
        assert "transcript path" in line and reason in line
    assert files_of(vault_path) == before


def door_commands(vault: str, bad: str, elsewhere: Path) -> list[list[str]]:
    """Every command line whose path argument or option meets the file system first (a
    vault, a transcript, a folder to create), holding ``bad`` there."""
    out = str(elsewhere / bad) if not bad.startswith("/") else bad
    return [
        ["status", "--vault", bad],
        ["search", "peanuts", "--vault", bad],
        ["remember", "Some words", "--vault", bad],
        ["recent", "--vault", bad],
        ["context", "--vault", bad],
        ["init", out],
        ["capture", bad, "--vault", vault],
        ["restore", "--at", "HEAD", "--to", out, "--vault", vault],
    ]


def note_commands(vault: str, bad: str) -> list[list[str]]:
    """Every command line naming a note of the vault by path, holding ``bad`` there."""
    return [
        ["show", bad, "--vault", vault],
        ["show", f"{bad}:3", "--vault", vault],
        ["log", bad, "--vault", vault],
        ["diff", "HEAD", bad, "--vault", vault],
        ["restore", bad, "--at", "HEAD", "--vault", vault],
    ]


@pytest.mark.parametrize("kind", list(UNUSABLE))
def test_every_path_argument_refuses_a_path_no_file_can_have_in_one_line(
    vault_path: Path, tmp_path: Path, kind: str
) -> None:
    bad, reason = UNUSABLE[kind]
    before = files_of(vault_path)
    for args in door_commands(str(vault_path), bad, tmp_path):
        code, stderr = invoke(*args)

        assert code == 2, (args, stderr)  # a bad value of an option or argument
        assert reason in one_error(stderr), args
    for args in note_commands(str(vault_path), bad):
        code, stderr = invoke(*args)

        if kind in ("nul", "surrogate"):  # the file system cannot even be asked
            assert code == 1 and reason in one_error(stderr), args
        elif args[0] in ("show", "restore"):  # asked: no such note
            assert code == 1 and one_error(stderr), args
        else:  # the history of a path that never was: none
            assert code == 0 and "Traceback" not in stderr, args
    assert files_of(vault_path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vault"]  # no init, no restore


@pytest.mark.parametrize("kind", IN_ARGV)
def test_over_long_paths_given_to_a_process_are_one_error_line(
    vault_path: Path, tmp_path: Path, kind: str
) -> None:
    bad, reason = UNUSABLE[kind]
    before = files_of(vault_path)
    for args in door_commands(str(vault_path), bad, tmp_path):  # search: without click
        done = vaultmem(*args)

        assert done.returncode == 2, (args, done.stderr)
        assert reason in one_error(done.stderr), args
    from_env = vaultmem("status", env={"VAULTMEM_VAULT": str(tmp_path / bad)})
    assert from_env.returncode == 1 and reason in one_error(from_env.stderr)
    assert files_of(vault_path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vault"]


# -- item 11: numbers -------------------------------------------------------------------


@pytest.mark.parametrize("days", ["99999999999", str(10**30), "46000", "36525"])
def test_recent_takes_any_number_of_days_back_to_the_first_possible_date(
    vault_path: Path, days: str
) -> None:
    with Vault(vault_path) as vault:
        vault.remember("A letter from grandmother", now=dt.datetime(1901, 3, 4, 10, 0))
        vault.remember("Bought the flat in Lisbon", now=dt.datetime(2026, 11, 20, 9, 0))

    done = vaultmem(
        "recent", "--days", days, "--today", "2026-11-22", "--json", "--vault", str(vault_path)
    )

    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    daily = json.loads(done.stdout)["daily"]
    expected = [("2026-11-20", "Bought the flat in Lisbon"), ("1901-03-04", "A letter from")]
    assert len(daily) == (2 if int(days) > 45000 else 1), daily  # 36525 days: back to 1926
    for change, (day, words) in zip(daily, expected, strict=False):
        assert change["date"] == day and words in change["text"]


@pytest.mark.parametrize("days", [0, -1, -(10**30)])
def test_recent_below_one_day_is_a_usage_error(vault_path: Path, days: int) -> None:
    code, stderr = invoke("recent", "--days", str(days), "--vault", str(vault_path))
    assert code == 2 and "--days" in one_error(stderr)


# -- item 11: MCP -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Client, Path]]:
    """The MCP server over stdio on an example vault, as a host starts it."""
    from mcp.client.stdio import StdioServerParameters, stdio_client

    root = tmp_path_factory.mktemp("mcp") / "vault"
    Vault.init(root, example=True)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "vaultmem", "mcp", "--vault", str(root)],
        env=server_env(tmp_path_factory.mktemp("home")),
    )
    stray: list[Any] = []
    with (
        (root.parent / "stderr.log").open("w") as errlog,
        connect(stdio_client(params, errlog=errlog), stray) as client,
    ):
        yield client, root
    assert not stray


# The SDK's client cannot send a lone surrogate (its stdio writer cannot encode it), and
# the SDK's server drops a request whose JSON holds one before any tool sees it.
@pytest.mark.parametrize("kind", ["nul", "long-name", "long-path"])
@pytest.mark.parametrize("where", ["path", "folder", "note of PATH#id"])
def test_mcp_get_of_a_path_no_file_can_have_is_one_clear_tool_error(
    served: tuple[Client, Path], kind: str, where: str
) -> None:
    client, root = served
    bad, reason = UNUSABLE[kind]
    before = files_of(root)
    arguments = {
        "path": {"path": bad},
        "folder": {"path": f"memory/{bad}"},
        "note of PATH#id": {"id": f"facts/{bad.removesuffix('.md')}#f-peanut"},
    }[where]

    message = client.error("get", arguments)

    assert message.startswith("Error executing tool get: ") and "\n" not in message.strip()
    assert reason in message  # refused before the file system is asked, every form alike
    assert client.ok("get", {"id": "f-peanut"})["text"]  # the server lives on
    assert files_of(root) == before


@pytest.mark.parametrize(
    "tool, arguments",
    [
        ("get", {"path": "MEMORY.md", "line_start": 10**18}),
        ("get", {"path": "MEMORY.md", "line_start": 5, "line_end": 10**30}),
        ("recent", {"days": 10**12}),
        ("recent", {"days": -5}),
        ("search", {"query": "peanuts", "since": "0001-01-01x"}),
    ],
)
def test_mcp_numbers_out_of_range_are_one_clear_tool_error(
    served: tuple[Client, Path], tool: str, arguments: dict[str, Any]
) -> None:
    client, _ = served
    message = client.error(tool, arguments)
    assert message.strip() and "Traceback" not in message
    assert message.count("\n") <= 1, message  # the SDK's prefix, then one line
    assert client.ok("status")["files"] > 0


# -- item 12: dates ---------------------------------------------------------------------

OUT_OF_RANGE_AT = [
    "0001-01-01T00:00",
    "9999-12-31T23:59",
    "1899-12-31T23:59",
    "2101-01-01",
    "1066-10-14T09:00",
    "5000-01-01T00:00Z",
    "2100-12-31T23:30-05:00",  # 1 January 2101 in UTC
]


@pytest.mark.parametrize("at", OUT_OF_RANGE_AT)
def test_remember_at_outside_the_dates_a_note_can_have_is_refused(
    vault_path: Path, at: str
) -> None:
    before = files_of(vault_path)

    done = vaultmem("remember", "Back-filled words", "--at", at, "--vault", str(vault_path))

    assert done.returncode == 2
    line = one_error(done.stderr)
    assert line.startswith("Error: Invalid value for '--at': ") and RANGE in line
    assert files_of(vault_path) == before
    assert daily_notes(vault_path) == []


@pytest.mark.parametrize(
    "at, note",
    [
        ("1900-01-01T00:00", "1900-01-01"),
        ("1931-05-17T08:15", "1931-05-17"),
        ("2100-12-31T23:59", "2100-12-31"),
        ("2100-12-31T23:59Z", "2100-12-31"),
    ],
)
def test_remember_at_within_the_range_is_stored_in_that_dates_note(
    vault_path: Path, at: str, note: str
) -> None:
    done = vaultmem("remember", "An old journal line", "--at", at, "--vault", str(vault_path))
    assert done.returncode == 0, done.stderr
    assert daily_notes(vault_path) == [f"{note}.md"]


@pytest.mark.parametrize("command", [["context"], ["recent"], ["consolidate", "--dry-run"]])
@pytest.mark.parametrize("day", ["0001-01-01", "9999-12-31", "1899-12-31", "2101-01-01"])
def test_today_outside_the_range_is_a_usage_error(
    vault_path: Path, command: list[str], day: str
) -> None:
    before = files_of(vault_path)
    code, stderr = invoke(*command, "--today", day, "--vault", str(vault_path))
    assert code == 2
    assert RANGE in one_error(stderr)
    assert files_of(vault_path) == before


@pytest.mark.parametrize("command", [["context"], ["recent"]])
@pytest.mark.parametrize("day", ["1900-01-01", "2100-12-31"])
def test_today_at_the_ends_of_the_range_works(
    vault_path: Path, command: list[str], day: str
) -> None:
    code, stderr = invoke(*command, "--today", day, "--vault", str(vault_path))
    assert code == 0, stderr


def test_the_library_refuses_a_date_no_note_can_have(vault: Vault) -> None:
    for when in (dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31, 23, 59), dt.datetime(1850, 1, 1)):
        with pytest.raises(NotStoredError, match=RANGE):
            vault.remember("Words with a strange date", now=when)
    for day in (dt.date(1, 1, 1), dt.date(9999, 12, 31)):
        with pytest.raises(DateOutOfRangeError, match=RANGE):
            vault.recent(today=day)
    assert daily_notes(vault.root) == []


# Timestamps as the hosts write them: ISO 8601 everywhere, Unix numbers in plain JSONL
# and OpenClaw. Each out-of-range one was, before, filed under another date (1978-01-11
# for 253402300800 read as milliseconds) or under the message before it.
BAD_STAMPS_ISO = ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "1899-12-31T12:00:00Z"]
BAD_STAMPS_NUMBER: list[Any] = [
    253402300800,  # the first second of the year 10000
    "253402300800",
    -62135596800,  # 0001-01-01 in seconds
    4_200_000_000,  # 2103 in seconds
    99_999_999_999_999_999,  # milliseconds of the year 3170843
    -(10**13),  # 1653 in milliseconds
    10**400,  # JSON's integers have no bound; no float holds this one
    "7" * 5000,
]


@pytest.mark.parametrize(
    "host, stamp",
    [(host, stamp) for host in HOSTS for stamp in BAD_STAMPS_ISO]
    + [(host, stamp) for host in ("jsonl", "openclaw") for stamp in BAD_STAMPS_NUMBER]
    + [("jsonl", float("inf"))],
)
def test_a_message_dated_outside_the_range_is_skipped_and_the_rest_stored(
    vault_path: Path, tmp_path: Path, host: str, stamp: Any, utc: None
) -> None:
    lines = [
        json.dumps(entry(host, 0, *GOOD[0])),
        json.dumps(entry(host, 1, "user", "Words from no possible day", stamp)),
        json.dumps(entry(host, 2, *GOOD[2])),
    ]
    transcript = write_transcript(tmp_path / "t.jsonl", host, lines)

    code, stderr = invoke("capture", str(transcript), "--vault", str(vault_path))

    assert code == 0, stderr
    assert "Traceback" not in stderr and "Error" not in stderr
    assert f"Warning: 1 message(s) dated outside {RANGE}, skipped" in stderr
    assert daily_notes(vault_path) == ["2026-11-22.md"]
    text = notes_text(vault_path)
    assert "Words from no possible day" not in text
    assert GOOD[0][1] in text and GOOD[2][1] in text


@pytest.mark.parametrize(
    "stamp, note",
    [
        (1763805600, "2025-11-22"),  # seconds
        (1763805600.5, "2025-11-22"),
        ("1763805600", "2025-11-22"),
        (1763805600000, "2025-11-22"),  # milliseconds
        ("1763805600000", "2025-11-22"),
        (10**12, "2001-09-09"),  # the first number read as milliseconds
        (10**12 - 1, None),  # seconds of the year 33658: refused, not 2001 in ms
        (-2208988800, "1900-01-01"),  # the first second of the range
        (4133980799, "2100-12-31"),  # the last one
        (4133980800, None),
    ],
)
def test_a_unix_timestamp_is_seconds_below_ten_to_the_twelfth_else_milliseconds(
    vault_path: Path, tmp_path: Path, stamp: Any, note: str | None, utc: None
) -> None:
    transcript = write_transcript(
        tmp_path / "t.jsonl", "jsonl", [json.dumps(entry("jsonl", 0, "user", "Stamped", stamp))]
    )
    code, stderr = invoke("capture", str(transcript), "--vault", str(vault_path))
    assert code == 0, stderr
    assert daily_notes(vault_path) == ([f"{note}.md"] if note else [])


def test_a_transcript_timestamp_out_of_range_in_a_process_and_in_another_time_zone(
    vault_path: Path, tmp_path: Path
) -> None:
    """2100-12-31T23:30Z is 1 January 2101 in Tokyo: no note can have that local date."""
    lines = [
        json.dumps(entry("claude-code", 0, *GOOD[0])),
        json.dumps(
            entry("claude-code", 1, "user", "Late on the last night", "2100-12-31T23:30:00Z")
        ),
    ]
    transcript = write_transcript(tmp_path / "t.jsonl", "claude-code", lines)

    done = vaultmem("capture", str(transcript), "--vault", str(vault_path), tz="JST-9")

    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert "1 message(s) dated outside" in done.stderr
    assert daily_notes(vault_path) == ["2026-11-22.md"]
    assert "Late on the last night" not in notes_text(vault_path)


# -- item 13: forget is idempotent ------------------------------------------------------


def commits(root: Path) -> int:
    done = subprocess.run(
        ["git", "-C", str(root), "rev-list", "--count", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


def log_lines(root: Path) -> int:
    return sum(
        len(path.read_text().splitlines()) for path in (root / ".vaultmem/log").glob("*.log")
    )


@pytest.mark.parametrize(
    "ident, path",
    [
        ("f-peanut", "facts/owner/profile.md"),
        ("^f-short", "facts/owner/profile.md"),
        ("2026-11-22#d22-1", "memory/2026-11-22.md"),
        ("facts/owner/profile#f-coffee", "facts/owner/profile.md"),
    ],
)
@pytest.mark.parametrize("reason", [None, "moved away"])
def test_forgetting_twice_on_the_command_line_changes_nothing_the_second_time(
    tmp_path: Path, ident: str, path: str, reason: str | None
) -> None:
    root = tmp_path / "vault"
    Vault.init(root, example=True)
    why = ["--reason", reason] if reason else []
    first = vaultmem("forget", ident, *why, "--vault", str(root))
    assert first.returncode == 0, first.stderr
    after_first = (files_of(root), commits(root), log_lines(root))

    again = vaultmem("forget", ident, "--reason", "again", "--json", "--vault", str(root))

    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr
    report = json.loads(again.stdout)
    assert (report["lines"], report["changed"], report["commit"]) == ([], [], None)
    assert [line.split(":")[0] for line in report["already"]][:1] == [path]
    assert (files_of(root), commits(root), log_lines(root)) == after_first
    block = ident.split("#")[-1].lstrip("^")
    line = next(x for x in (root / path).read_text().splitlines() if x.endswith(f"^{block}"))
    assert line.count("[forgotten::") == 1 and "again" not in line


def test_forgetting_twice_over_mcp_strikes_once(served: tuple[Client, Path]) -> None:
    client, root = served
    stored = client.ok("remember", {"text": "Erin moved to Porto", "session": "idem"})
    block = stored["block_id"]
    first = client.ok("forget", {"id": block, "reason": "wrong"})
    assert first["lines"] and first["already"] == []
    count = commits(root)

    for retry in range(2):
        again = client.ok("forget", {"id": block, "reason": f"retry {retry}"})

        assert (again["lines"], again["changed"], again["commit"]) == ([], [], None)
        assert again["already"] == first["lines"]
    rel = daily_note_path(dt.date.today(), "memory")
    line = next(x for x in (root / rel).read_text().splitlines() if x.endswith(f"^{block}"))
    assert line.count("[forgotten::") == 1 and "retry" not in line
    assert commits(root) == count


# -- item 13: hooks and a hard-linked settings file -------------------------------------

SETTINGS = {"claude-code": ".claude/settings.json", "codex": ".codex/hooks.json"}


@pytest.mark.parametrize("host", list(SETTINGS))
@pytest.mark.parametrize("operation", ["install", "uninstall", "show"])
def test_a_hard_linked_settings_file_is_refused_and_the_link_kept(
    vault_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, host: str, operation: str
) -> None:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    settings = Path.home() / SETTINGS[host]
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"model": "opus", "hooks": {}}, indent=2))
    if operation == "uninstall":  # our hooks are in it, from an install before the link
        code, _ = invoke("hooks", "install", host, "--vault", str(vault_path))
        assert code == 0
    shared = tmp_path / "dotfiles" / "settings.json"
    shared.parent.mkdir()
    os.link(settings, shared)
    before = (settings.read_bytes(), settings.stat().st_ino)
    listing = sorted(p.name for p in settings.parent.iterdir())

    vault = [] if operation == "uninstall" else ["--vault", str(vault_path)]
    code, stderr = invoke("hooks", operation, host, *vault)

    assert code == 1
    line = one_error(stderr)
    assert str(settings) in line and "2 hard links" in line and "nothing was written" in line
    assert (settings.read_bytes(), settings.stat().st_ino) == before
    assert shared.stat().st_ino == before[1] and settings.stat().st_nlink == 2
    assert sorted(p.name for p in settings.parent.iterdir()) == listing  # no backup


# -- item 13: .vaultmem/ is private from the start --------------------------------------


def assert_private(state: Path) -> None:
    for path in [state, *state.rglob("*")]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), (path, oct(mode))


@pytest.mark.parametrize("how", ["library", "process", "process-example"])
def test_the_state_folder_is_private_right_after_init(tmp_path: Path, how: str) -> None:
    root = tmp_path / "vault"
    old = os.umask(0o022)  # the usual umask: new folders 0755, files 0644
    try:
        if how == "library":
            Vault.init(root)
        else:
            example = ["--example"] if how == "process-example" else []
            done = vaultmem("init", str(root), *example)
            assert done.returncode == 0, done.stderr
    finally:
        os.umask(old)
    assert_private(root / ".vaultmem")


def test_a_snapshot_restored_to_a_new_folder_has_a_private_state_folder(
    vault_path: Path, tmp_path: Path
) -> None:
    old = os.umask(0o022)
    try:
        done = vaultmem(
            "restore", "--at", "HEAD", "--to", str(tmp_path / "copy"), "--vault", str(vault_path)
        )
    finally:
        os.umask(old)
    assert done.returncode == 0, done.stderr
    state = tmp_path / "copy" / ".vaultmem"
    assert stat.S_IMODE(state.stat().st_mode) == 0o700  # what it holds is git's checkout
