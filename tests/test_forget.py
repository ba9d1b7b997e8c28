"""``forget`` takes back exactly one line: an id that names several lines is refused with
the lines listed, and nothing is written; ``DATE#ID`` and ``PATH#ID`` pick one."""

from __future__ import annotations

import datetime as dt
import hashlib
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHARED, run_cli, write

from vaultmem import Vault
from vaultmem.errors import AmbiguousIdError

DAY = dt.date(2026, 11, 22)
HEADER = "---\ndate: {day}\ntype: daily\n---\n\n# {day}\n\n"


def daily(root: Path, day: str, *lines: str) -> None:
    write(root, f"memory/{day}.md", HEADER.format(day=day) + "\n".join(lines) + "\n")


def snapshot(root: Path) -> dict[str, str]:
    """A digest of every file of the vault but git's own."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def notes(root: Path) -> dict[str, str]:
    """The text of every note a person writes (``MEMORY.md``'s block is vaultmem's)."""
    return {
        str(p.relative_to(root)): p.read_text(encoding="utf-8")
        for folder in ("memory", "facts", "archive", "topics")
        for p in sorted((root / folder).rglob("*.md"))
    }


def head(root: Path) -> str:
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.fixture
def generated(tmp_path: Path) -> Path:
    """A generated vault of 60 notes, whose daily notes repeat ids like ``^s1-1``."""
    root = tmp_path / "gen"
    script = SHARED / "bench" / "gen_vault.py"
    if not script.is_file():
        pytest.skip(f"{script} is not available")
    subprocess.run([sys.executable, str(script), str(root), "--notes", "60"], check=True)
    Vault.init(root)  # a git repository, its first commit holding every note
    return root


def lines_with(root: Path, block: str) -> list[str]:
    return [
        f"{path}:{number}"
        for path, text in notes(root).items()
        for number, line in enumerate(text.split("\n"), 1)
        if line.rstrip().endswith(f" ^{block}")
    ]


@pytest.mark.parametrize("hard", [True, False], ids=["hard", "soft"])
def test_an_id_repeated_across_daily_notes_is_refused_and_nothing_is_written(
    generated: Path, hard: bool
) -> None:
    matches = lines_with(generated, "s1-1")
    assert len(matches) > 10
    before, commit = snapshot(generated), head(generated)
    result = run_cli(generated, "forget", "s1-1", *(["--hard"] if hard else []))
    assert result.returncode == 1
    assert result.stdout == ""
    message = result.stderr.rstrip("\n")
    assert "\n" not in message and "Traceback" not in message
    assert message.startswith(f"Error: ^s1-1 is on {len(matches)} lines (")
    assert ", ".join(matches[:10]) in message  # the first ten named, the rest counted
    assert f"and {len(matches) - 10} more" in message
    first_day = matches[0].removeprefix("memory/").split(".", 1)[0]
    assert f"DATE#ID or PATH#ID, e.g. {first_day}#s1-1" in message
    assert snapshot(generated) == before
    assert head(generated) == commit


def test_date_hash_id_forgets_that_one_line_and_nothing_else(generated: Path) -> None:
    path, number = lines_with(generated, "s1-1")[3].split(":")
    day = path.removeprefix("memory/").removesuffix(".md")
    before = notes(generated)
    result = run_cli(generated, "forget", f"{day}#^s1-1", "--hard")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"removed {path}:{number}\n"
    after = notes(generated)
    expected = before[path].split("\n")
    del expected[int(number) - 1]
    assert after[path] == "\n".join(expected)
    assert {p: t for p, t in after.items() if p != path} == {
        p: t for p, t in before.items() if p != path
    }


def test_a_fact_id_in_two_fact_files_is_refused_naming_each_line(vault: Vault) -> None:
    write(vault.root, "facts/health.md", "# Health\n\n- Alice is allergic to peanuts ^fab12\n")
    write(vault.root, "facts/people.md", "- Bob likes tea ^f00\n- Alice: peanuts ^fab12\n")
    before = snapshot(vault.root)
    with pytest.raises(AmbiguousIdError) as caught:
        vault.forget("fab12", hard=True, today=DAY)
    assert "^fab12 is on 2 lines (facts/health.md:3, facts/people.md:2)" in str(caught.value)
    assert "e.g. facts/health.md#fab12" in str(caught.value)
    assert snapshot(vault.root) == before
    done = vault.forget("facts/people#^fab12", hard=True, today=DAY)
    assert done.lines == ["facts/people.md:2"]
    assert (vault.root / "facts/people.md").read_text() == "- Bob likes tea ^f00\n"
    assert "Alice is allergic to peanuts ^fab12" in (vault.root / "facts/health.md").read_text()


def test_an_id_that_is_both_a_fact_and_a_daily_line_is_refused(vault: Vault) -> None:
    write(vault.root, "facts/general.md", "- The office is in Lyon ^d1-3\n")
    daily(vault.root, "2026-11-22", "- **user** we moved the office to Lyon ^d1-3")
    before = snapshot(vault.root)
    with pytest.raises(AmbiguousIdError, match=r"\(facts/general\.md:1, memory/2026-11-22\.md:8\)"):
        vault.forget("d1-3", today=DAY)
    assert snapshot(vault.root) == before
    vault.forget("2026-11-22#d1-3", today=DAY)
    assert (
        "~~**user** we moved the office to Lyon~~"
        in (vault.root / "memory/2026-11-22.md").read_text()
    )
    assert (vault.root / "facts/general.md").read_text() == "- The office is in Lyon ^d1-3\n"


def test_an_id_twice_in_one_note_is_refused_even_with_its_date(vault: Vault) -> None:
    daily(vault.root, "2026-11-22", "- **user** first line ^s1-1", "- **user** second ^s1-1")
    before = snapshot(vault.root)
    for ident in ("s1-1", "2026-11-22#s1-1"):
        with pytest.raises(AmbiguousIdError, match="give each of those lines its own block id"):
            vault.forget(ident, hard=True, today=DAY)
    assert snapshot(vault.root) == before


def test_a_fact_to_forget_with_its_source_whose_id_repeats_in_its_file_is_refused(
    vault: Vault,
) -> None:
    daily(vault.root, "2026-11-22", "- **user** I am allergic to peanuts, remember ^a1")
    vault.consolidate(today=DAY)
    health = vault.root / "facts/health.md"
    fact = health.read_text().splitlines()[-1]
    ident = fact.rsplit("^", 1)[1]
    # A person copied the fact and reworded the copy, keeping the id.
    health.write_text(health.read_text() + fact.replace("peanuts", "cashews") + "\n")
    before = snapshot(vault.root)
    with pytest.raises(AmbiguousIdError, match=f"would change \\^{ident} of facts/health.md"):
        vault.forget("2026-11-22#a1", hard=True, today=DAY)
    assert snapshot(vault.root) == before


def test_a_block_id_alone_on_a_line_is_not_taken_with_the_line_above(vault: Vault) -> None:
    daily(
        vault.root,
        "2026-11-22",
        "A paragraph a person wrote, with an Obsidian block id on the next line",
        "^s1-1",
        "",
        "- **user** the line to forget ^s1-1",
    )
    done = vault.forget("2026-11-22#s1-1", hard=True, today=DAY)
    assert done.lines == ["memory/2026-11-22.md:11"]
    text = (vault.root / "memory/2026-11-22.md").read_text()
    assert "A paragraph a person wrote" in text and "\n^s1-1\n" in text
    assert "the line to forget" not in text


def test_an_unknown_id_in_a_named_note_and_a_malformed_id_are_clear_errors(
    vault: Vault,
) -> None:
    daily(vault.root, "2026-11-22", "- **user** something ^a1")
    result = run_cli(vault.root, "forget", "2026-11-23#a1")
    assert (result.returncode, result.stderr) == (
        1,
        "Error: no memory line has the block id ^a1 in memory/2026-11-23.md\n",
    )
    result = run_cli(vault.root, "forget", "2026-11-22#")
    assert result.returncode == 1
    assert result.stderr.startswith("Error: '2026-11-22#' is not a block id")
