"""Parsing notes into frontmatter and blocks, with Obsidian syntax read as written."""

from __future__ import annotations

import pytest

from vaultmem.notes.parse import (
    code_ranges,
    find_block_id,
    find_fields,
    find_links,
    find_tags,
    parse_document,
    risky_nesting,
)

NOTE = """---
title: Trip
tags: [travel, "#plans"]
created: 2026-03-01
---

# Trip

Intro paragraph
over two lines.

## Packing

- passport ^p1
  - nested detail
- tickets [due:: 2026-03-04]

```bash
echo "#not-a-tag"
```

| a | b |
|---|---|
| 1 | 2 |

> [!note] Callout title
> body with %%a comment%%
"""


def kinds(doc):  # type: ignore[no-untyped-def]
    return [(b.kind, b.line_start, b.line_end) for b in doc.blocks]


def test_blocks_have_one_based_inclusive_line_ranges() -> None:
    doc = parse_document(NOTE)
    assert kinds(doc) == [
        ("frontmatter", 2, 4),
        ("heading", 7, 7),
        ("paragraph", 9, 10),
        ("heading", 12, 12),
        ("item", 14, 15),
        ("item", 16, 16),
        ("code", 18, 20),
        ("table", 22, 24),
        ("quote", 26, 27),
    ]
    lines = NOTE.split("\n")
    for block in doc.blocks:
        assert block.text == "\n".join(lines[block.line_start - 1 : block.line_end])


def test_heading_path_and_frontmatter() -> None:
    doc = parse_document(NOTE)
    assert doc.frontmatter == {
        "title": "Trip",
        "tags": ["travel", "#plans"],
        "created": "2026-03-01",
    }
    assert doc.tags == ["travel", "plans"]
    items = [b for b in doc.blocks if b.kind == "item"]
    assert items[0].heading == "Trip > Packing"
    assert doc.warnings == []


def test_obsidian_syntax_is_kept_verbatim() -> None:
    doc = parse_document(NOTE)
    quote = doc.blocks[-1]
    assert quote.text == "> [!note] Callout title\n> body with %%a comment%%"


def test_a_block_anchor_in_a_link_is_no_tag() -> None:
    assert find_tags("[kind:: fact] [source:: [[memory/2026-11-22#^s1-1]]] ^f1") == []
    assert find_tags("[[memory/2026-11-22#^s1-1]] and #real, #^not") == ["real"]


def test_tags_links_fields_block_ids() -> None:
    text = (
        "Met [[Alice|Al]] and ![[diagram.png]] about [[Atlas#Plan]] #work/atlas #2026 `#code` x#y"
    )
    assert find_tags(text) == ["work/atlas"]
    assert find_links(text) == [("Alice", False), ("diagram.png", True), ("Atlas", False)]
    fact = "- Alice is allergic [importance:: 1.0] [source:: [[2026-02-04#^d1-3]]] ^f3a9c1"
    assert find_fields(fact) == [("importance", "1.0"), ("source", "[[2026-02-04#^d1-3]]")]
    assert find_block_id(fact) == "f3a9c1"
    assert find_fields("status:: done\nother") == [("status", "done")]
    assert find_tags("中文标签 #项目/预算 ok") == ["项目/预算"]
    assert find_tags("see https://x.org/page#frag and [[#Heading]]") == []


@pytest.mark.parametrize(
    "text, warning",
    [
        ("---\ntitle: [unclosed\n---\nbody words\n", "malformed YAML frontmatter"),
        ("---\n- a\n- b\n---\nbody words\n", "frontmatter is not a mapping"),
        ("---\ntitle: no end\nbody words\n", "no closing '---'"),
    ],
)
def test_bad_frontmatter_is_indexed_as_text_with_a_warning(text: str, warning: str) -> None:
    doc = parse_document(text)
    assert any(warning in w for w in doc.warnings)
    assert doc.frontmatter == {}
    assert any("body words" in b.text for b in doc.blocks)


def test_crlf_and_empty_and_frontmatter_only() -> None:
    doc = parse_document("# Title\r\n\r\n- one\r\n- two\r\n")
    assert kinds(doc) == [("heading", 1, 1), ("item", 3, 3), ("item", 4, 4)]
    assert all("\r" not in b.text for b in doc.blocks)
    assert parse_document("").blocks == []
    only = parse_document("---\ntitle: Lonely\naliases: [solo]\n---\n")
    assert kinds(only) == [("frontmatter", 2, 3)]
    assert only.frontmatter["aliases"] == ["solo"]


@pytest.mark.parametrize(
    "text",
    [
        ">" * 200_000,
        "> " * 5000,
        "> - " * 5000,
        "- " * 5000,
        "1. " * 5000,
        "".join(" " * (2 * i) + "- x\n" for i in range(400)),
    ],
)
def test_pathological_nesting_falls_back_to_plain_text(text: str) -> None:
    assert risky_nesting(text) is not None
    doc = parse_document("intro\n\n" + text + "\n\nlast words\n")
    assert any("parsed as plain text" in w for w in doc.warnings)
    assert doc.blocks[0].text == "intro"
    assert doc.blocks[-1].text == "last words"


def test_ordinary_nesting_uses_the_markdown_parser() -> None:
    text = "> quote\n> > nested\n\n- a\n  - b\n    - c\n"
    assert risky_nesting(text) is None
    assert parse_document(text).warnings == []


@pytest.mark.parametrize(
    "yaml_text, warning",
    [
        ("x: " + "9" * 5000, "unreadable YAML frontmatter"),
        ("a: &x [*x]", "nests too deep or is too large"),
        ("a: " + "[" * 3000 + "]" * 3000, "nests too deep or is too large"),
        (
            'a: &a ["x","x","x","x","x","x","x","x","x"]\n'
            + "".join(
                f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n"
                for i in range(8)
            ),
            "nests too deep or is too large",
        ),
    ],
    ids=["huge-int", "self-alias", "deep-list", "alias-bomb"],
)
def test_hostile_frontmatter_becomes_a_warning(yaml_text: str, warning: str) -> None:
    doc = parse_document(f"---\n{yaml_text}\n---\nbody words\n")
    assert any(warning in w for w in doc.warnings), doc.warnings
    assert doc.blocks[-1].text == "body words"


def test_frontmatter_values_stay_as_typed() -> None:
    doc = parse_document(
        "---\ndate: 2026-02-30\ncreated: 2026-01-01 25:61\nbig: 0x" + "f" * 40 + "\n---\n"
    )
    assert doc.warnings == []
    assert doc.frontmatter == {
        "date": "2026-02-30",
        "created": "2026-01-01 25:61",
        "big": "(integer too large)",
    }


def test_inline_fields_are_linear_on_long_blank_runs() -> None:
    text = "[a:: " + " " * 5000 + "\nkey:: value" + " " * 5000 + "x"
    assert find_fields(text) == [("key", "value" + " " * 5000 + "x")]
    assert find_fields("[a::    spaced value   ]") == [("a", "spaced value")]


def test_lone_cr_line_endings_and_heading_titles() -> None:
    doc = parse_document("# H\r\rpara one\r\r- item\r")
    assert kinds(doc) == [("heading", 1, 1), ("paragraph", 3, 3), ("item", 5, 5)]
    assert parse_document("# C#\n\ntext\n").blocks[1].heading == "C#"
    assert parse_document("# Title ##\n").blocks[0].heading == "Title"
    assert kinds(parse_document("---\na: 1\n\n\n---\nx\n"))[0] == ("frontmatter", 2, 2)


@pytest.mark.parametrize(
    "frontmatter",
    [
        '---\ntitle: "unclosed quote\n---',
        "---\ntitle:\tTabbed\n\tkey: value\n---",
        "---\n- a list\n- not a mapping\n---",
        "---\njust a sentence\n---",
        "---\n\x01\x02\x7f junk: : [\n---",
        '---\ntitle: "closed by too many dashes\n------',
        "---\ntitle: closed by equals signs\n===",
        "---\n# a YAML comment\ntitle: never closed",
        "---\ntitle: never closed\ntags: [a",
    ],
    ids=[
        "unclosed-quote",
        "tabs",
        "list",
        "scalar",
        "binary-junk",
        "dash-closer",
        "equals-closer",
        "unclosed-comment",
        "unclosed",
    ],
)
def test_malformed_frontmatter_never_becomes_a_heading(frontmatter: str) -> None:
    doc = parse_document(frontmatter + "\n\n- first item\n\nA paragraph.\n\n## Real\n\n- under\n")
    assert doc.warnings and "indexed as text" in doc.warnings[0]
    assert doc.frontmatter == {}
    headings = {b.text.split("\n")[0]: b.heading for b in doc.blocks}
    assert headings["- first item"] == headings["A paragraph."] == ""
    assert headings["- under"] == "Real"
    # The words of the broken block stay searchable, as one plain block.
    first = doc.blocks[0]
    assert first.kind in ("frontmatter", "paragraph") and first.line_start == 2
    assert first.text.split("\n")[0] == frontmatter.split("\n")[1]


def test_a_long_non_ascii_paragraph_has_its_code_spans_at_character_offsets() -> None:
    # The parser's source maps count UTF-8 bytes; thousands of spans in one paragraph are
    # converted in one pass (a 384 KB paragraph once took 14 s to validate).
    unit = "日本語 `код [[не ссылка]] #нет` ещё #тег [[ссылка]] "
    text = unit * 2000
    code = unit.index("`")
    span = (code, unit.index("`", code + 1) + 1)
    assert code_ranges(text) == [
        (i * len(unit) + span[0], i * len(unit) + span[1]) for i in range(2000)
    ]
    assert find_tags(text) == ["тег"] * 2000
    assert find_links(text) == [("ссылка", False)] * 2000
