"""The fast path of ``vaultmem search`` (``cli/fast.py``) prints what click prints.

Each command line runs twice as a real process on the same vault, put back as it was
before each run: once through the console script's ``main`` (which reads a plain search
itself, without importing click) and once through the click group. Their stdout, stderr
and exit code must be the same bytes, and ``main`` must have used click exactly for the
command lines it leaves to click (help, usage errors, anything unusual).
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
