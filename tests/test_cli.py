"""The command line, through click's CliRunner and as real subprocesses."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from conftest import HIT_FIELDS, write

from vaultmem.cli import cli


def run(*args: str, cwd: Path | None = None) -> tuple[int, str, str]:
    runner = CliRunner()
    if cwd is None:
        result = runner.invoke(cli, list(args), catch_exceptions=False)
    else:
        old = Path.cwd()
        os.chdir(cwd)
        try:
            result = runner.invoke(cli, list(args), catch_exceptions=False)
        finally:
            os.chdir(old)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def example(tmp_path: Path) -> Path:
    path = tmp_path / "ex"
    code, out, _ = run("init", str(path), "--example")
    assert code == 0, out
    return path


def test_init_index_search_show(example: Path) -> None:
    code, out, _ = run("index", "--vault", str(example))
    assert code == 0
    assert out.startswith("12 files (12 changed, 0 removed), ")
    code, out, _ = run("search", "peanuts", "--vault", str(example))
    assert code == 0
    assert "facts/owner/profile.md:9" in out
    assert "allergic to peanuts" in out
    code, out, _ = run("show", "memory/2026-11-17.md:10", "--vault", str(example))
    assert code == 0
    assert (
        out
        == "10 | - 10:05 **user** 我们的预算是 5 万元，下个月之前必须完成部署。 #decision ^d17-1\n"
    )


def test_search_json_is_one_array_with_documented_fields(example: Path) -> None:
    code, out, _ = run("search", "预算", "--json", "--limit", "2", "--vault", str(example))
    assert code == 0
    hits = json.loads(out)
    assert len(hits) == 2
    for hit in hits:
        assert set(hit) == HIT_FIELDS
        assert "预算" in hit["text"]
        assert 1 <= hit["line_start"] <= hit["line_end"]


def test_no_hits_exits_one_but_zero_with_empty_json(example: Path) -> None:
    code, out, err = run("search", "zzqqxx", "--json", "--vault", str(example))
    assert (code, json.loads(out)) == (0, [])  # agent shells read exit 1 as a failure
    code, out, err = run("search", "zzqqxx", "--vault", str(example))
    assert (code, out, err) == (1, "", "no matches\n")


def test_vault_found_from_env_and_by_walking_up(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deep = example / "memory"
    code, out, _ = run("search", "peanuts", cwd=deep)
    assert code == 0 and "profile.md" in out
    monkeypatch.setenv("VAULTMEM_VAULT", str(example))
    code, out, _ = run("search", "peanuts", cwd=example.parent)
    assert code == 0 and "profile.md" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["search", "x", "--vault", "/nonexistent/vault"],
            "Error: no vault at /nonexistent/vault: the folder does not exist\n",
        ),
        (["show", "../outside.md"], "is outside the vault"),
        (["show", "memory/none.md"], "Error: memory/none.md: no such file in the vault\n"),
        (["show", "memory/2026-11-16.md:999"], "there is no line 999"),
    ],
)
def test_errors_are_one_line_and_exit_one(example: Path, args: list[str], message: str) -> None:
    code, out, err = run(*args, cwd=example)
    assert code == 1
    assert message in err
    assert err.count("\n") == 1
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "target", [".git/config", ".env", ".vaultmem/config.toml", "notes.txt", "link.md"]
)
def test_show_reads_only_notes_of_the_vault(example: Path, target: str) -> None:
    token = "ghp_s3cr3tT0ken"
    (example / ".git").mkdir(exist_ok=True)
    (example / ".git" / "config").write_text(f"[remote]\n\turl = https://{token}@x.test\n")
    (example / ".env").write_text(f"TOKEN={token}\n")
    config = example / ".vaultmem" / "config.toml"
    config.write_text(config.read_text() + f"# {token}\n")
    (example / "notes.txt").write_text(f"{token}\n")
    (example / "link.md").symlink_to(example / ".env")
    code, out, err = run("show", target, "--vault", str(example))
    assert code == 1 and out == ""
    assert err.startswith("Error: ") and err.count("\n") == 1
    assert "is not a note of the vault" in err and token not in err


def test_show_opens_the_links_search_hands_out(example: Path) -> None:
    (example / "Trip.md").write_text(
        "# Plans\n\n## Day one\n\nTram at 9.\n\n## Day two\n\nFerry.\n"
    )
    code, out, err = run("show", "[[Trip#Plans#Day one]]", "--vault", str(example))
    assert code == 0, err
    assert out.splitlines() == ["3 | ## Day one", "4 | ", "5 | Tram at 9."]
    code, out, err = run("show", "[[Trip|the trip]]", "--vault", str(example))
    assert code == 0 and " 9 | Ferry." in out.splitlines() and "Plans" in out
    code, _, err = run("show", "[[Trip#Day three]]", "--vault", str(example))
    assert code == 1 and err == "Error: Trip.md has no heading 'Day three'\n"


def test_no_vault_anywhere(tmp_path: Path) -> None:
    code, _, err = run("status", cwd=tmp_path)
    assert code == 1
    assert err.startswith("Error: no vault found in ")


def test_bad_options_exit_two(example: Path) -> None:
    code, _, err = run("search", "x", "--since", "yesterday", "--vault", str(example))
    assert code == 2
    assert "'yesterday' is not a date like 2026-11-22" in err
    code, _, err = run("search", "x", "--limit", "0", "--vault", str(example))
    assert code == 2


def test_bad_config_is_a_clear_error(example: Path) -> None:
    (example / ".vaultmem/config.toml").write_text("[index]\nchunk_max_chars = 'big'\n")
    code, _, err = run("index", "--vault", str(example))
    assert code == 1
    assert err == "Error: .vaultmem/config.toml: index.chunk_max_chars must be int, got 'big'\n"
    (example / ".vaultmem/config.toml").write_text("[index]\nchunk_max_chars = \n")
    code, _, err = run("index", "--vault", str(example))
    assert code == 1 and "is not valid TOML" in err


def test_status_and_reindex(example: Path) -> None:
    run("index", "--vault", str(example))
    write(example, "memory/2026-11-23.md", "- new note\n")
    (example / "topics/alice.md").unlink()
    write(example, "bad.md", b"\x00\x01")
    code, out, _ = run("status", "--json", "--vault", str(example))
    status = json.loads(out)
    assert code == 0
    assert status["stale"] == ["bad.md", "memory/2026-11-23.md", "topics/alice.md"]
    code, out, _ = run("reindex", "--vault", str(example))
    assert out.startswith("13 files (13 changed, 0 removed), ")
    code, out, _ = run("status", "--vault", str(example))
    assert "stale:    0 files" in out
    assert "bad.md: skipped: binary file (contains NUL bytes)" in out


def test_corrupt_index_warns_and_rebuilds(example: Path) -> None:
    run("index", "--vault", str(example))
    (example / ".vaultmem/index.db").write_bytes(b"garbage" * 1000)
    for name in ("index.db-wal", "index.db-shm"):
        (example / ".vaultmem" / name).unlink(missing_ok=True)
    code, out, err = run("index", "--vault", str(example))
    assert code == 0
    assert err.startswith("Warning: index ") and "rebuilt from the files" in err
    assert "12 files" in out


def test_python_dash_m_and_installed_script(example: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "vaultmem", "--help"], capture_output=True, text=True
    )
    assert done.returncode == 0
    assert "Long-term memory for AI agents" in done.stdout
    script = shutil.which("vaultmem", path=str(Path(sys.executable).parent)) or shutil.which(
        "vaultmem"
    )
    assert script, "the vaultmem console script is not installed"
    done = subprocess.run(
        [script, "search", "飞书插件配置", "--json", "--vault", str(example)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["path"] == "memory/2026-11-17.md"
    done = subprocess.run(
        [script, "show", "nope.md", "--vault", str(example)], capture_output=True, text=True
    )
    assert (done.returncode, done.stderr) == (1, "Error: nope.md: no such file in the vault\n")


def all_commands() -> dict[str, click.Command]:
    """Each command by name, as ``vaultmem --help`` lists them (the group imports each
    command's module when asked for it)."""
    context = click.Context(cli)
    commands = {name: cli.get_command(context, name) for name in cli.list_commands(context)}
    return {name: command for name, command in commands.items() if command is not None}


def test_every_command_has_help_with_an_example() -> None:
    for name, command in all_commands().items():
        code, out, _ = run(name, "--help")
        assert code == 0
        assert "Example:" in out, name
        assert command.help


@pytest.mark.parametrize(
    "target, message",
    [
        # the whole of it is the path, and a path not ending in .md names no note
        ("MEMORY.md:²", "is not a note of the vault"),
        # the whole of it is the path, and no file can have a name that long
        ("MEMORY.md:" + "1" * 5000, "has a name of 5010 bytes; a file name has at most 255"),
    ],
)
def test_show_treats_odd_line_suffixes_as_part_of_the_path(
    example: Path, target: str, message: str
) -> None:
    code, _, err = run("show", target, "--vault", str(example))
    assert code == 1
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "config, message",
    [
        ("[index]\nchunk_max_chars = 0\n", "index.chunk_max_chars must be at least 100, got 0"),
        ("[search]\ndefault_limit = 0\n", "search.default_limit must be at least 1, got 0"),
        ("[index]\nmax_file_bytes = true\n", "index.max_file_bytes must be int, got True"),
        ("[index]\nnope = 1\n", "unknown key index.nope"),
        ("[other]\n", "unknown section [other]"),
    ],
)
def test_config_values_are_checked(example: Path, config: str, message: str) -> None:
    (example / ".vaultmem/config.toml").write_text(config)
    code, _, err = run("index", "--vault", str(example))
    assert code == 1
    assert message in err


def test_every_command_is_documented() -> None:
    reference = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text()
    for name in all_commands():
        assert f"vaultmem {name}" in reference, name


@pytest.mark.parametrize("command", ["search", "status"])
def test_any_command_that_rebuilds_a_corrupt_index_says_so(example: Path, command: str) -> None:
    run("index", "--vault", str(example))
    (example / ".vaultmem/index.db").write_bytes(b"\0" * 8192)
    for name in ("index.db-wal", "index.db-shm"):
        (example / ".vaultmem" / name).unlink(missing_ok=True)
    args = ["search", "peanuts"] if command == "search" else ["status"]
    code, out, err = run(*args, "--vault", str(example))
    assert code == 0, err
    assert err.startswith("Warning: index ") and "rebuilt from the files" in err


def test_arguments_that_are_not_utf8_are_usage_errors(example: Path) -> None:
    bad = os.fsdecode(b"\xff")
    for args in (["search", "x", "--path", bad], ["search", "x", "--tag", bad], ["search", bad]):
        code, _, err = run(*args, "--vault", str(example))
        assert code == 2
        assert "is not valid UTF-8 text" in err


@pytest.mark.parametrize(
    "text",
    ["-----BEGIN PGP MESSAGE-----", "-foo", "--not-an-option", "-x y", "--json-ish=1"],
)
def test_free_text_starting_with_a_dash_is_the_argument_not_an_option(
    example: Path, text: str
) -> None:
    vault = str(example)
    code, out, err = run("remember", text, "--json", "--vault", vault)
    assert code == 0, err
    stored = json.loads(out)
    line = (example / stored["path"]).read_text().splitlines()[stored["line"] - 1]
    assert text in line
    code, out, err = run("search", text, "--json", "--vault", vault)
    assert code == 0, err
    assert any(text in hit["text"] for hit in json.loads(out))
    code, _, err = run("search", "--vault", vault, "--", text)  # "--" still works
    assert code == 0, err
    code, _, err = run("forget", text, "--vault", vault)  # forget reads it as an id
    assert code == 1 and err.startswith("Error: ") and "no such option" not in err.lower(), err


def test_a_note_named_with_a_dash_can_be_shown(example: Path) -> None:
    write(example, "-draft.md", "first line\n")
    code, out, err = run("show", "-draft.md", "--vault", str(example))
    assert (code, out.splitlines()[0]) == (0, "1 | first line"), err


def test_file_names_with_control_characters_print_unambiguously(example: Path) -> None:
    write(example, "topics/two\nlines.md", "- the axolotl regrows limbs\n")
    write(example, "topics/tab\there.md", "\0binary\n")
    vault = str(example)
    code, out, _ = run("search", "axolotl", "--vault", vault)
    assert code == 0
    assert out.splitlines()[0] == '"topics/two\\nlines.md":1'
    code, out, _ = run("search", "axolotl", "--json", "--vault", vault)
    assert json.loads(out)[0]["path"] == "topics/two\nlines.md"  # JSON keeps the real name
    code, out, _ = run("status", "--vault", vault)
    assert '  "topics/tab\\there.md": skipped: binary file (contains NUL bytes)' in out
    assert all(
        line.startswith(("  ", "vault", "daemon", "indexed", "stale", "warnings"))
        for line in out.splitlines()
    )
    code, _, err = run("show", "topics/tab\there.md", "--vault", vault)
    assert err == 'Error: "topics/tab\\there.md": skipped: binary file (contains NUL bytes)\n'
