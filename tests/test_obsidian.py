"""vaultmem in a vault laid out as an Obsidian user lays one out (issue 15, Area O): the
person's own ``Daily/`` notes, ``Templates/`` with Templater syntax, ``.obsidian/`` settings,
and the Obsidian Help vault. vaultmem's own links must lead to vaultmem's notes, the
person's habits (links to notes not written yet, templates, pane layouts) are no errors."""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import copy_shared, run_cli, write

from vaultmem import Vault
from vaultmem.cli import cli
from vaultmem.errors import ConfigError

DAY = dt.date(2023, 9, 12)
WHEN = dt.datetime(2023, 9, 12, 9, 30)
TEMPLATE = """---
created: {{date}}
tags: [daily]
---
# <% tp.date.now("YYYY-MM-DD") %>

- [[{{yesterday}}]] · [[<% tp.date.tomorrow("YYYY-MM-DD") %>]]
"""


def obsidian_vault(root: Path, settings: dict[str, dict[str, object]] | None = None) -> Path:
    """A person's Obsidian vault before vaultmem: daily notes in ``Daily/``, templates,
    a half-written knowledge base, Obsidian's settings and pane layout."""
    write(root, "Daily/2023-09-12.md", "# 2023-09-12\n\n- Coffee with Sam ^m1\n")
    write(root, "Templates/Daily.md", TEMPLATE)
    meeting = "---\ndate: {{date:YYYY-MM-DD}}\n---\n<% tp.file.title %>\n"
    write(root, "Meta/Templater/Meeting.md", meeting)
    write(root, "Projects/Atlas.md", "# Atlas\n\nSee [[Atlas roadmap]] (not written yet).\n")
    default = {
        "daily-notes.json": {"folder": "Daily", "format": "YYYY-MM-DD", "template": "Templates/x"},
        "templates.json": {"folder": "Templates"},
        "plugins/templater-obsidian/data.json": {"templates_folder": "Meta/Templater"},
        "workspace.json": {"main": {"id": "a"}},
        "workspace-mobile.json": {"main": {"id": "b"}},
        "app.json": {"alwaysUpdateLinks": True},
    }
    for name, value in (settings or default).items():
        write(root, f".obsidian/{name}", json.dumps(value))
    write(root, ".trash/Old idea.md", "- an idea I deleted\n")
    return root


def resolve(root: Path, link: str) -> tuple[str, bool]:
    """Where Obsidian sends ``[[link]]``: the note at the path the link names, else the
    note of that name nearest the root; and whether that note holds the ``^block``."""
    target, _, block = link.partition("#^")
    notes = sorted(root.rglob("*.md"), key=lambda p: (len(p.relative_to(root).parts), str(p)))
    exact = root / f"{target}.md"
    note = exact if exact.is_file() else next(p for p in notes if p.stem == target)
    held = re.search(rf"\s\^{re.escape(block)}\s*$", note.read_text("utf-8"), re.M) is not None
    return note.relative_to(root).as_posix(), held


def one_memory(vault: Vault, query: str, places: set[str]) -> bool:
    """Whether search shows the lines of these notes as one hit, the others folded in (a
    MEMORY.md line that cites no fact, such as "Last days", is a memory of its own)."""
    groups = [{h.path, *(a.path for a in h.also_in)} for h in vault.search(query, track=False)]
    touching = [g for g in groups if g & (places - {"MEMORY.md"})]
    return len(touching) == 1 and touching[0] >= places


def source_links(root: Path) -> list[str]:
    text = "".join(p.read_text("utf-8") for p in sorted((root / "facts").rglob("*.md")))
    return re.findall(r"\[source:: \[\[([^\]]+)\]\]\]", text)


def test_a_fact_cites_vaultmems_daily_note_not_the_persons_of_the_same_date(tmp_path: Path) -> None:
    root = obsidian_vault(tmp_path / "vault")
    Vault.init(root)
    with Vault(root) as vault:
        vault.remember("Remember: I am allergic to shellfish", now=WHEN)
        vault.consolidate(today=DAY)
    links = source_links(root)
    assert len(links) == 1 and links[0].startswith("memory/2023-09-12#^")
    # Both notes have the name 2023-09-12; Obsidian follows the path to vaultmem's.
    assert resolve(root, links[0]) == ("memory/2023-09-12.md", True)
    assert "Coffee with Sam" in (root / "Daily/2023-09-12.md").read_text("utf-8")


def test_old_links_by_bare_date_are_still_read(vault: Vault) -> None:
    """A fact written before links named the folder still marks its line as distilled,
    still counts as one memory with it in search, and validates."""
    write(vault.root, "memory/2023-09-12.md", "- Remember: I am allergic to shellfish ^m1\n")
    old = "- I am allergic to shellfish [kind:: health] [source:: [[2023-09-12#^m1]]] ^fold1\n"
    write(vault.root, "facts/health.md", old)
    vault.index()
    report = vault.consolidate(today=DAY)
    assert report.new_facts == 0 and source_links(vault.root) == ["2023-09-12#^m1"]
    assert one_memory(vault, "shellfish", {"memory/2023-09-12.md", "facts/health.md"})
    assert [p for p in vault.validate() if p.severity == "error"] == []


@pytest.mark.parametrize("folder", ["Journal/agent", "Daily"])
def test_the_daily_folder_is_configurable_end_to_end(vault_path: Path, folder: str) -> None:
    config = vault_path / ".vaultmem/config.toml"
    config.write_text(config.read_text("utf-8") + f'\n[vault]\ndaily_folder = "{folder}"\n')
    with Vault(vault_path) as vault:
        stored = vault.remember("I am allergic to shellfish, remember that", now=WHEN)
        assert stored.path == f"{folder}/2023-09-12.md"
        report = vault.consolidate(today=DAY)
        assert report.new_facts == 1
        assert source_links(vault_path) == [f"{folder}/2023-09-12#^{stored.block_id}"]
        assert vault.get(f"2023-09-12#{stored.block_id}").path == f"{folder}/2023-09-12.md"
        vault.forget(f"2023-09-12#{stored.block_id}", today=DAY)  # the fact goes with it
        facts = (vault_path / "facts/health.md").read_text("utf-8")
        assert "~~I am allergic to shellfish~~" in facts  # the fact drops the request
        assert [p for p in vault.validate() if p.severity == "error"] == []
    assert not (vault_path / "memory/2023-09-12.md").exists()


def test_daily_folder_obsidian_follows_obsidians_daily_notes_setting(tmp_path: Path) -> None:
    root = obsidian_vault(tmp_path / "vault")
    Vault.init(root)
    config = root / ".vaultmem/config.toml"
    config.write_text(config.read_text("utf-8") + '\n[vault]\ndaily_folder = "obsidian"\n')
    with Vault(root) as vault:
        stored = vault.remember("I am allergic to shellfish, remember that", now=WHEN)
    # The person's own note of the day gets the line: their words stay, above it.
    assert stored.path == "Daily/2023-09-12.md"
    text = (root / "Daily/2023-09-12.md").read_text("utf-8")
    assert text.startswith("# 2023-09-12\n\n- Coffee with Sam ^m1\n") and "shellfish" in text


def test_an_obsidian_date_format_vaultmem_cannot_key_is_one_clear_error(tmp_path: Path) -> None:
    root = obsidian_vault(tmp_path / "vault", {"daily-notes.json": {"format": "DD.MM.YYYY"}})
    Vault.init(root)
    config = root / ".vaultmem/config.toml"
    config.write_text(config.read_text("utf-8") + '\n[vault]\ndaily_folder = "obsidian"\n')
    with pytest.raises(ConfigError):
        Vault(root)
    done = run_cli(root, "remember", "hello there")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("Error: .vaultmem/config.toml: vault.daily_folder")
    assert "'DD.MM.YYYY'" in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("bad", ["../elsewhere", "/etc", "facts", ".hidden", ""])
def test_a_daily_folder_outside_vaultmems_reach_is_refused(vault_path: Path, bad: str) -> None:
    config = vault_path / ".vaultmem/config.toml"
    config.write_text(config.read_text("utf-8") + f'\n[vault]\ndaily_folder = "{bad}"\n')
    with pytest.raises(ConfigError, match="vault.daily_folder"):
        Vault(vault_path)


def test_unresolved_links_are_info_and_vaultmems_own_broken_links_errors(tmp_path: Path) -> None:
    root = obsidian_vault(tmp_path / "vault")
    Vault.init(root)
    runner = CliRunner()
    clean = runner.invoke(cli, ["validate", "--vault", str(root)])
    assert clean.exit_code == 0, clean.output
    assert clean.stdout.startswith("0 error(s), ") and "  unresolved-link: " in clean.stdout
    assert "Projects/Atlas.md:3:" not in clean.stdout  # a summary; the lines on request
    assert "info line(s) not listed: vaultmem validate --all" in clean.stderr
    clean = runner.invoke(cli, ["validate", "--all", "--vault", str(root)])
    assert "Projects/Atlas.md:3: unresolved-link: [[Atlas roadmap]]: no such note" in clean.output
    # Templates are not notes: their placeholders are neither links nor problems.
    assert "Templates/" not in clean.output and "Templater/" not in clean.output
    write(root, "facts/health.md", "- I am allergic [source:: [[memory/2023-09-13#^m9]]] ^f1\n")
    broken = runner.invoke(cli, ["validate", "--vault", str(root), "--json"])
    assert broken.exit_code == 1
    found = {(p["path"], p["kind"], p["severity"]) for p in json.loads(broken.stdout)}
    assert ("facts/health.md", "broken-link", "error") in found
    assert ("Projects/Atlas.md", "unresolved-link", "info") in found


def test_init_leaves_obsidians_pane_layout_and_trash_out_of_git(tmp_path: Path) -> None:
    root = obsidian_vault(tmp_path / "vault")
    Vault.init(root)
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert ".obsidian/app.json" in tracked and "Daily/2023-09-12.md" in tracked
    assert [p for p in tracked if "workspace" in p or p.startswith(".trash")] == []


def test_template_folders_are_not_indexed_nor_warned_about(tmp_path: Path) -> None:
    root = obsidian_vault(tmp_path / "vault")
    Vault.init(root)
    with Vault(root) as vault:
        report = vault.index()
        paths = {row[0] for row in vault.db.conn.execute("SELECT path FROM files")}
    assert "Daily/2023-09-12.md" in paths and "Projects/Atlas.md" in paths
    assert [p for p in paths if p.startswith(("Templates/", "Meta/Templater/"))] == []
    assert [n for n in report.notices if "frontmatter" in n] == []
    # A folder named Templates deeper down is a person's notes, not Obsidian's templates.
    write(root, "Projects/Templates/Kickoff.md", "# Kickoff checklist\n")
    with Vault(root) as vault:
        vault.index()
        assert vault.search("Kickoff checklist", track=False)


def test_memory_md_cites_each_fact_by_a_link_to_its_line(tmp_path: Path) -> None:
    root = obsidian_vault(tmp_path / "vault")
    Vault.init(root)
    with Vault(root) as vault:
        vault.remember("Remember: I am allergic to shellfish", now=WHEN)
        vault.consolidate(today=DAY)
        # Shown as the day the fact was learnt: the date and the link in one.
        cited = re.findall(
            r"\[\[([^\]|]+#\^f[0-9a-f]+)\|2023-09-12\]\]$", (root / "MEMORY.md").read_text(), re.M
        )
        assert cited, (root / "MEMORY.md").read_text()
        for link in cited:
            assert resolve(root, link) == ("facts/health.md", True)
        # One memory in search and in the prompt block: the MEMORY.md line and its fact
        # meet through the id the link names.
        assert one_memory(vault, "shellfish", {"MEMORY.md", "facts/health.md"})
        block = vault.context("shellfish", today=DAY).text
    assert block.count("allergic to shellfish") == 1, block  # one memory, shown once


def test_the_obsidian_help_vault_validates_without_errors(tmp_path: Path) -> None:
    root = copy_shared("corpora/obsidian-help", tmp_path / "help")
    Vault.init(root)
    with Vault(root) as vault:
        problems = vault.validate()
    errors = [str(p) for p in problems if p.severity == "error" and "link" in p.kind]
    assert errors == []
    assert any(p.kind == "unresolved-link" for p in problems)  # the help links ahead too


def test_hits_show_a_note_as_obsidians_reading_view_does_without_comments(vault: Vault) -> None:
    """Obsidian hides ``%%comments%%`` when it shows a note, so a hit leaves them out of its
    text; words found only in a comment are still found, and shown."""
    write(
        vault.root,
        "Projects/Atlas.md",
        "# Atlas\n\nThe release is on Thursday. %%ask Dana first%% Two approvals per deploy.\n"
        "\n%%\nDraft: the release might slip to Friday\n%%\n",
    )
    vault.index()

    shown = {hit.line_start: hit.text for hit in vault.search("release", mode="keyword")}

    assert shown[3] == "The release is on Thursday. Two approvals per deploy."
    assert shown[5] == "%%\nDraft: the release might slip to Friday\n%%"  # only a comment
    assert vault.search("ask Dana first", mode="keyword")  # still found by its words
    with_context = vault.search("Thursday", mode="keyword", context=5)
    assert "Draft" not in with_context[0].text and "ask Dana" not in with_context[0].text
