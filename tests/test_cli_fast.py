"""A plain ``vaultmem search`` read without click (``cli/search_fast.py``) does and prints
what click does and prints.

Its table of options is derived from the click command, and reads each command line the
table takes to the keyword arguments click gives the command. Each command line also runs
twice as a real process on the same vault, put back as it was before each run: once
through the console script's ``main`` (which reads a plain search without importing click)
and once through the click group. Their stdout, stderr and exit code must be the same
bytes, and ``main`` must have used click exactly for the command lines it leaves to click
(help, usage errors, anything unusual).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from conftest import write

from vaultmem import Vault
from vaultmem.cli.search import search
from vaultmem.cli.search_fast import ARGUMENT, DEFAULTS, OPTIONS, derive, read_search
from vaultmem.cli.search_run import style

# argv[1]: where to write whether click was imported; the rest: the command line.
MAIN = """
import atexit, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(str("click" in sys.modules)))
from vaultmem.cli import main
main()
"""
CLICK = "import sys; sys.argv.pop(1); from vaultmem.cli import cli; cli()"


@pytest.fixture
def pristine(tmp_path: Path) -> Path:
    """An indexed example vault with a note holding ANSI escapes, kept as a copy."""
    path = tmp_path / "pristine"
    Vault.init(path, example=True)
    write(path, "notes/ansi.md", "# Colors\n\n- the \x1b[31mred\x1b[0m axolotl wakes up\n")
    with Vault(path) as vault:
        vault.index()
    return path


def _run(
    driver: str, pristine: Path, vault: Path, args: list[str | bytes], env: dict[str, str]
) -> tuple[int, bytes, bytes, bool]:
    shutil.rmtree(vault, ignore_errors=True)
    shutil.copytree(pristine, vault)
    mark = vault.parent / "click-used"
    mark.unlink(missing_ok=True)
    argv = [a.replace(b"VAULT", os.fsencode(vault)) if isinstance(a, bytes) else a for a in args]
    argv = [a.replace("VAULT", str(vault)) if isinstance(a, str) else a for a in argv]
    done = subprocess.run(
        [sys.executable, "-c", driver, str(mark), *argv],
        capture_output=True,
        env=env,
        cwd=vault.parent,
        timeout=120,
    )
    used_click = not mark.exists() or mark.read_text() == "True"
    return done.returncode, done.stdout, done.stderr, used_click


V = ["--vault", "VAULT"]
FAST = [
    ["search", "peanuts", *V],
    ["search", "peanuts", "--json", *V],
    ["search", "预算", "--json", "--limit", "2", *V],
    ["search", "咖啡", "-n", "1", "-C", "0", *V],
    ["search", "--limit=3", "peanuts", "--context=2", "--vault=VAULT"],
    ["search", "coffee OR tea", "--mode", "keyword", "--all", *V],
    ["search", '"budget review"', "--path", "memory/*", "--since", "2026-01-01", *V],
    ["search", "peanuts", "--until", "2030-12-31", "--tag", "health", "--agent", "codex", *V],
    ["search", "--url", "example", *V],
    ["search", "axolotl", *V],  # a note holding ANSI escapes: removed, as click does
    ["search", "axolotl", "-C", "+1", *V],  # int("+1"), as click reads it
    ["search", "no-such-word-anywhere", *V],  # exit 1, "no matches"
    ["search", "no-such-word-anywhere", "--json", *V],  # exit 0, []
    ["search", "peanuts", "--vault", "VAULT/missing"],  # Error: no vault, exit 1
    ["search", "peanuts"],  # no --vault: the cwd has none either
]
CLICK_READS = [
    ["search", "--help"],
    ["search", *V],  # no query: a usage error
    ["search", "--limit", "0", "peanuts", *V],
    ["search", "--limit", "ten", "peanuts", *V],
    ["search", "-n5", "peanuts", *V],
    ["search", "peanuts", "--limit", "2", "--limit", "3", *V],
    ["search", "--since", "yesterday", "peanuts", *V],
    ["search", "--mode", "fuzzy", "peanuts", *V],
    ["search", "--json=yes", "peanuts", *V],
    ["search", "peanuts", "tea", *V],
    ["search", *V, "--", "-----BEGIN"],
    ["search", "--not-an-option", *V],  # free text: the query
    ["search", "peanuts", "--limit", *V[:1]],  # --limit takes --vault as its value
    ["search", "peanuts", "--vault", "VAULT/MEMORY.md"],  # a file: a usage error
    ["search", "peanuts", "--path", "", *V],
    ["search", b"\xffpeanuts", *V],  # not UTF-8
    ["--version"],
    ["status", *V],
]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_COMPLETE")}
    env.pop("PYTHONIOENCODING", None)
    return {**env, **extra}


@pytest.mark.parametrize(
    ("args", "fast"),
    [(args, True) for args in FAST] + [(args, False) for args in CLICK_READS],
    ids=[" ".join(map(str, a)) for a in FAST + CLICK_READS],
)
def test_main_prints_what_click_prints(
    pristine: Path, tmp_path: Path, args: list[str | bytes], fast: bool
) -> None:
    vault, env = tmp_path / "vault", _env()
    code, out, err, used_click = _run(MAIN, pristine, vault, args, env)
    assert used_click is not fast
    assert (code, out, err) == _run(CLICK, pristine, vault, args, env)[:3]
    assert out or err


def test_the_table_is_derived_from_the_click_command() -> None:
    # After a change to the search's options, `python -m vaultmem.cli.search_fast` prints
    # the table anew.
    assert derive(search) == (OPTIONS, ARGUMENT, DEFAULTS)


def _argv(args: list[str | bytes], vault: Path) -> list[str]:
    return [os.fsdecode(a).replace("VAULT", str(vault)) for a in args]


@pytest.mark.parametrize("args", FAST, ids=[" ".join(map(str, a)) for a in FAST])
def test_a_plain_search_is_read_as_click_reads_it(pristine: Path, args: list[str | bytes]) -> None:
    argv = _argv(args, pristine)
    assert read_search(argv) == search.make_context("search", argv[1:]).params


@pytest.mark.parametrize("args", CLICK_READS, ids=[" ".join(map(str, a)) for a in CLICK_READS])
def test_any_other_command_line_is_left_to_click(pristine: Path, args: list[str | bytes]) -> None:
    assert read_search(_argv(args, pristine)) is None


def test_an_option_of_a_kind_only_click_reads_is_left_out_of_the_table() -> None:
    @click.command()
    @click.argument("words", nargs=-1)
    @click.option("--ratio", type=float)
    @click.option("--word", type=click.Choice(["a", "b"], case_sensitive=False))
    @click.option("--size", type=click.IntRange(1, 5, clamp=True))
    @click.option("--json", "as_json", is_flag=True)
    def toy(**options: object) -> None:
        """A command with options of every other kind."""

    options, argument, defaults = derive(toy)
    assert options == {"--json": ("as_json", "flag", ())}
    assert argument is None  # a command line with an argument goes to click
    assert defaults == {"words": (), "ratio": None, "word": None, "size": None, "as_json": False}


def test_main_prints_warnings_as_click_does(pristine: Path, tmp_path: Path) -> None:
    # The access log cannot be written (its folder is a file): a warning on stderr.
    (pristine / ".vaultmem" / "log").write_text("not a folder")
    vault, env = tmp_path / "vault", _env()
    args: list[str | bytes] = ["search", "peanuts", "--vault", "VAULT"]
    code, out, err, used_click = _run(MAIN, pristine, vault, args, env)
    assert not used_click
    assert b"Warning: access log not written" in err
    assert (code, out, err) == _run(CLICK, pristine, vault, args, env)[:3]


@pytest.mark.parametrize(
    "env",
    [
        {"PYTHONIOENCODING": "ascii"},  # click re-wraps an ASCII stream: leave it to click
        {"_VAULTMEM_COMPLETE": "bash_source"},  # shell completion
    ],
    ids=["ascii-stdout", "completion"],
)
def test_main_leaves_unusual_environments_to_click(
    pristine: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    vault, full = tmp_path / "vault", _env(**env)
    args: list[str | bytes] = ["search", "预算", "--vault", "VAULT"]
    code, out, err, used_click = _run(MAIN, pristine, vault, args, full)
    assert used_click
    assert (code, out, err) == _run(CLICK, pristine, vault, args, full)[:3]


@pytest.mark.parametrize(
    "options",
    [
        {"fg": "green"},
        {"fg": "cyan"},
        {"fg": "magenta"},
        {"fg": "yellow", "bold": True},
        {"dim": True},
    ],
)
def test_style_writes_what_click_style_writes(options: dict[str, object]) -> None:
    assert style("some text", **options) == click.style("some text", **options)  # type: ignore[arg-type]
