"""Obsidian links read as Obsidian reads them: ``\\|`` in a table is the alias pipe, and
``[[...]]`` in code is text. Every reader agrees: the parser, the ``links`` table and
``validate``."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import copy_shared, write

from vaultmem import Vault
from vaultmem.memory.language.scoring import entities
from vaultmem.notes.parse import find_links, find_tags, iter_links, note_links

# -- the escaped pipe ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "target", "anchor", "embed"),
    [
        ("| [[Table view\\|Table]] | Display files as rows |", "Table view", "", False),
        (
            "| [[Social media link previews#Image\\|Image]] |",
            "Social media link previews",
            "#Image",
            False,
        ),
        ("| ![[Engelbart.jpg\\|100]] |", "Engelbart.jpg", "", True),
        ("| [[2026-11-20#^m3f9\\|the line]] |", "2026-11-20", "#^m3f9", False),
        ("| [[Projects/Atlas plan\\|Atlas]] | [[Bob]] |", "Projects/Atlas plan", "", False),
        ("[[Table view\\|Table]] outside a table too", "Table view", "", False),
        ("[[Table view|Table]] with a plain pipe", "Table view", "", False),
    ],
)
def test_a_backslash_before_the_alias_pipe_is_not_part_of_the_target(
    text: str, target: str, anchor: str, embed: bool
) -> None:
    link = iter_links(text)[0]
    assert (link.target, link.anchor, link.embed) == (target, anchor, embed)


def test_a_backslash_elsewhere_in_a_link_is_kept() -> None:
    # Obsidian allows no backslash in a file name, but what was typed is not rewritten.
    assert find_links("[[C:\\notes\\plan]]") == [("C:\\notes\\plan", False)]


# -- code is not links --------------------------------------------------------------------

NOT_LINKS = {
    "inline code": "Type `[[Three laws of motion]]` to link.",
    "embed in inline code": "For example, `![[Engelbart.jpg|100]]`.",
    "double backticks around a backtick": "Use ``a ` [[Quoted]]`` here.",
    "code span over two lines": "Write `the\n[[Wrapped]]` like so.",
    "fenced block in a list item": "- Example:\n  ```md\n  [[Fenced]]\n  ```",
    "tilde fence in a quote": "> ~~~\n> [[Quoted fence]]\n> ~~~",
    "indented code in a list item": "- Example:\n\n      [[Indented]]",
    "code in a table cell": "| syntax | shows |\n|---|---|\n| `[[Cell]]` | a link |",
    "chinese prose around code": "输入 `[[三大运动定律]]` 来链接。",
}


@pytest.mark.parametrize("text", NOT_LINKS.values(), ids=NOT_LINKS.keys())
def test_links_and_tags_inside_code_are_text(text: str) -> None:
    assert iter_links(text) == []
    assert find_tags(text.replace("[[", "#tag [[")) == []


@pytest.mark.parametrize(
    ("text", "links"),
    [
        ("`[[Example]]` displays as [[Example]]", [("Example", False)]),
        ("\\`[[Escaped]]\\` backticks are text", [("Escaped", False)]),
        ("an unclosed `` run and [[Open]]", [("Open", False)]),
        ("- item\n  ```\n  [[In fence]]\n  ```\n  [[After fence]]", [("After fence", False)]),
        ("- nested list\n    - [[Deeper]]", [("Deeper", False)]),
        ("输入 `代码` 和 [[笔记]]", [("笔记", False)]),
    ],
)
def test_links_next_to_code_still_count(text: str, links: list[tuple[str, bool]]) -> None:
    assert find_links(text) == links


def test_note_links_give_the_line_of_each_link() -> None:
    note = (
        "---\nup: '[[Home]]'\n---\n\n"
        "- first\n  then [[Alice]]\n\n```\n[[Code]]\n```\n\n| [[B\\|b]] |"
    )
    found = [(line, link.target) for line, link in note_links(note)]
    assert found == [(2, "Home"), (6, "Alice"), (12, "B")]


# -- every reader agrees ------------------------------------------------------------------

NOTE = """# Views

| View | Description |
| --- | --- |
| [[Table view\\|Table]] | Rows. Type `[[Cards view]]` for cards. |

- Link syntax:
  ```md
  [[Ghost]] and ![[ghost.png]]
  ```
- Indented example:

      [[Indented ghost]]

Real: [[Cards view#Layout\\|cards]] and `![[ghost.png]]`.
"""


def test_the_index_and_validate_read_the_same_links(vault: Vault) -> None:
    write(vault.root, "Views.md", NOTE)
    write(vault.root, "Table view.md", "# Table view\n")
    write(vault.root, "Cards view.md", "# Cards view\n")
    vault.index()
    rows = vault.db.conn.execute(
        "SELECT target, embed FROM links l JOIN chunks c ON c.id = l.chunk"
        " WHERE c.path = 'Views.md'"
    )
    assert sorted(rows) == [("Cards view", 0), ("Table view", 0)]
    assert [str(p) for p in vault.validate() if p.kind == "broken-link"] == []


def test_validate_still_reports_an_unresolved_link_in_a_table_at_its_line(vault: Vault) -> None:
    write(vault.root, "Views.md", NOTE.replace("Table view\\|", "Tabel view\\|"))
    write(vault.root, "Cards view.md", "# Cards view\n")
    found = [(str(p), p.severity) for p in vault.validate() if "link" in p.kind]
    assert found == [("Views.md:5: unresolved-link: [[Tabel view]]: no such note", "info")]


def test_the_obsidian_help_vault_links_as_obsidian_shows_them(tmp_path: Path) -> None:
    root = copy_shared("corpora/obsidian-help", tmp_path / "help")
    Vault.init(root)
    with Vault(root) as vault:
        vault.index()
        links = set(
            vault.db.conn.execute(
                "SELECT c.path, l.target FROM links l JOIN chunks c ON c.id = l.chunk"
            )
        )
        problems = [p for p in vault.validate() if "link" in p.kind]
    # en/Bases/Views.md:44 `| [[Table view\|Table]] | Display files as rows ...`
    assert ("en/Bases/Views.md", "Table view") in links
    assert ("zh/Bases/视图.md", "Table view") in links
    assert [t for _, t in links if t.endswith("\\")] == []
    # Internal links.md:23 "- Wikilink: `[[Three laws of motion]]` or `[[Three laws of
    # motion.md]]`": syntax shown as code, in English and in Chinese, nowhere a link.
    assert [p for p, t in links if t == "Three laws of motion.md"] == []
    assert [p for p, t in links if t == "UID"] == []
    assert not [p for p in problems if "\\" in p.message or "Three laws" in p.message]


def test_scoring_names_the_target_of_a_link_written_for_a_table() -> None:
    in_table = entities("| met [[Jane Doe\\|Jane]] at the fair |")
    assert in_table[0] == "Jane Doe"
    assert in_table == entities("met [[Jane Doe|Jane]] at the fair")
