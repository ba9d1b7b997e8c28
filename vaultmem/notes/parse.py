"""Markdown notes -> a ``Document``: frontmatter, blocks with 1-based line ranges, and the
Obsidian syntax found in each block.

Parsing never raises on content. Malformed YAML frontmatter is kept as one plain-text
block, with a warning; it never becomes Markdown (see ``parse_document``). The block
structure comes from markdown-it-pyrs (the Rust build of markdown-it) with only its
*block* rules on: vaultmem needs where
paragraphs, list items, code, tables and quotes start and end, not inline HTML, and the
block-only parser is twice as fast. Obsidian syntax (wikilinks, ``#tags``, ``^ids``,
``[key:: value]`` fields, callouts, ``%%comments%%``) is found with regular expressions on
each block's raw source lines, which are kept byte for byte: nothing is rendered or mangled.

The native parser recurses per nesting level and crashes the whole process on a line
such as 200,000 ``>`` characters. ``risky_nesting`` finds such input first and the file is
then split into plain-text paragraphs instead, with a warning.
"""

from __future__ import annotations

import bisect
import functools
import re
from typing import Any, NamedTuple

MAX_NESTING = 48
_BLOCK_RULES: Any = [
    "blockquote",
    "code",
    "fence",
    "heading",
    "hr",
    "lheading",
    "list",
    "paragraph",
    "table",
    "html_block",
]


# The Markdown parsers are built on first use: reading a fact line (a search) calls
# ``find_fields`` and ``find_tags`` and seldom needs one.
@functools.cache
def _parser() -> Any:
    import markdown_it_pyrs

    return markdown_it_pyrs.MarkdownIt("zero").enable_many(_BLOCK_RULES)


@functools.cache
def _code_parser() -> Any:
    """Finds what is code in a block's text: the same block rules plus code spans (with
    backslash escapes, so "\\`" opens none), used only on text that holds "[[" or "#"."""
    import markdown_it_pyrs

    return markdown_it_pyrs.MarkdownIt("zero").enable_many([*_BLOCK_RULES, "backticks", "escape"])


_CODE_NODES = frozenset({"code_inline", "code_block", "fence"})
# Text without a backtick, a "~~~" fence or an indented line holds no code: no parse needed.
_INDENTED = re.compile(r"^[ \t>]*(?: {4}|\t)", re.M)
_KINDS = {
    "paragraph": "paragraph",
    "fence": "code",
    "code_block": "code",
    "table": "table",
    "blockquote": "quote",
    "html_block": "html",
    "heading": "heading",
    "lheading": "heading",
}

# A line whose container prefix (quote markers and list markers) is this deep, or whose
# indentation is this wide, can make the native parser recurse until it crashes.
_DEEP_PREFIX = re.compile(rf"^[ \t]*(?:(?:>|[-+*]|\d{{1,9}}[.)])[ \t]*){{{MAX_NESTING},}}", re.M)
_DEEP_INDENT = re.compile(rf"^[ \t]{{{MAX_NESTING * 4},}}\S", re.M)

CODE_SPAN = re.compile(r"`+[^`\n]*`+")
# Obsidian's ``%%comments%%`` and HTML comments: hidden in Obsidian's reading view.
COMMENT = re.compile(r"%%.*?%%|<!--.*?-->", re.S)
_SHOWN_COMMENT = re.compile(r"[ \t]*(?:%%.*?%%|<!--.*?-->)", re.S)
# Obsidian tags: letters, digits, _, -, / with at least one non-digit; not inside a word,
# a URL fragment (``page#x``) or a heading link (``[[#x]]``).
_TAG = re.compile(r"(?<![\w#&/\\\[\]`])#([\w/-]*[^\W\d][\w/-]*)")
# ``[[target#anchor|alias]]``. Inside a Markdown table the alias pipe is written ``\|`` so
# that it does not split the cell; Obsidian allows no backslash in a file name, so a
# backslash before the pipe is never part of the target or anchor.
_LINK = re.compile(
    r"(!?)\[\[((?:[^\[\]|#^\n\\]|\\(?!\|))*)"
    r"((?:[#^](?:[^\[\]|\n\\]|\\(?!\|))*)?)"
    r"(?:\\?\|[^\[\]\n]*)?\]\]"
)
# Dataview inline fields: ``[key:: value]``; the value may hold ``[[links]]``.
# Values are captured whole and stripped in Python: a lazy value followed by optional
# blanks backtracks quadratically on a long run of spaces.
_FIELD = re.compile(r"\[([^\W\d][\w \-/]{0,60}?)::((?:[^\[\]\n]|\[\[[^\]\n]*\]\])*)\]")
_LINE_FIELD = re.compile(r"^([^\W\d][\w\-/]{0,60})::(.*)$", re.M)
# Tried where a run of spaces starts, not from each of its spaces (quadratic on a long run).
_CLOSING_HASHES = re.compile(r"(?:^|(?<!\s)\s+)#+\s*$")
_BLOCK_ID = re.compile(r"(?:^|\s)\^([A-Za-z0-9-]+)[ \t]*$", re.M)


class Block(NamedTuple):
    """One structural block: its kind, 1-based inclusive line range, heading path, raw text."""

    kind: str
    line_start: int
    line_end: int
    heading: str
    text: str


class Document:
    """What a note holds, as read from its text."""

    __slots__ = ("frontmatter", "blocks", "warnings")

    def __init__(
        self,
        frontmatter: dict[str, Any] | None = None,
        blocks: list[Block] | None = None,
        warnings: list[str] | None = None,
    ) -> None:
        self.frontmatter: dict[str, Any] = {} if frontmatter is None else frontmatter
        self.blocks: list[Block] = [] if blocks is None else blocks
        self.warnings: list[str] = [] if warnings is None else warnings

    @property
    def tags(self) -> list[str]:
        """Tags from the ``tags`` (or ``tag``) frontmatter property."""
        raw = self.frontmatter.get("tags", self.frontmatter.get("tag"))
        if isinstance(raw, str):
            raw = re.split(r"[,\s]+", raw)
        if not isinstance(raw, list):
            return []
        return [str(t).lstrip("#") for t in raw if t is not None and str(t).strip("# ")]


def split_lines(text: str) -> list[str]:
    """A note's lines, for CRLF, LF and old-Mac lone-CR line endings alike."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def parse_document(text: str) -> Document:
    """Parse a note's full text into frontmatter and blocks. Never raises on content."""
    lines = split_lines(text)
    doc = Document()
    body_start = 0  # index into ``lines`` of the first body line
    if lines and lines[0].rstrip() == "---":
        end = _frontmatter_end(lines)
        if end is None:
            # What would have been frontmatter (up to the first blank line) is plain text,
            # so a YAML comment in it does not become a heading of the whole note.
            blank = next((i for i in range(1, len(lines)) if not lines[i].strip()), len(lines))
            doc.warnings.append("frontmatter has no closing '---'; its lines are indexed as text")
            if blank > 1:
                doc.blocks.append(Block("paragraph", 2, blank, "", "\n".join(lines[1:blank])))
            body_start = blank
        else:
            if lines[end].rstrip() not in ("---", "..."):
                doc.warnings.append(
                    f"frontmatter is closed by {lines[end].strip()!r} instead of '---'; "
                    "its lines are indexed as text"
                )
            else:
                doc.frontmatter = _load_frontmatter(lines[1:end], doc.warnings)
            # Even unreadable, the block is not Markdown: under its text, the closing line
            # would be a setext underline, making the YAML the heading of every later chunk.
            body_start = end + 1
            last = end - 1
            while last >= 1 and not lines[last].strip():
                last -= 1
            if last >= 1:
                doc.blocks.append(
                    Block("frontmatter", 2, last + 1, "", "\n".join(lines[1 : last + 1]))
                )
    body = "\n".join(lines[body_start:])
    reason = risky_nesting(body)
    if reason:
        doc.warnings.append(f"{reason}; parsed as plain text")
        doc.blocks.extend(_plain_blocks(lines, body_start))
    else:
        doc.blocks.extend(_markdown_blocks(body, lines, body_start))
    return doc


_SETEXT_UNDERLINE = re.compile(r"(?:-+|=+)[ \t]*")


def _frontmatter_end(lines: list[str]) -> int | None:
    """The index of the line closing the frontmatter that ``lines[0]`` opens: ``---`` or
    ``...``; else a line of only ``-`` or ``=`` right under the opening lines (a closing
    line typed as ``----``, say), which Markdown would read as a setext heading's
    underline."""
    closers = (i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "..."))
    end = next(closers, None)
    if end is not None:
        return end
    for i in range(1, len(lines)):
        if not lines[i].strip():
            return None
        if _SETEXT_UNDERLINE.fullmatch(lines[i]):
            return i
    return None


_TOO_DEEP = "frontmatter nests too deep or is too large; its lines are indexed as text"


def _load_frontmatter(yaml_lines: list[str], warnings: list[str]) -> dict[str, Any]:
    """The frontmatter as plain data, or ``{}`` with a warning when it is not a readable
    YAML mapping."""
    import yaml  # loaded by ``_frontmatter_loader``, the first time frontmatter is read

    yaml_text = "\n".join(yaml_lines)
    try:
        loaded = yaml.load(yaml_text, Loader=_frontmatter_loader()) if yaml_text.strip() else {}
        plain = _plain(loaded, [0], 0)
    except yaml.YAMLError as exc:
        if "nesting depth" in str(getattr(exc, "problem", "")):
            # libyaml from 0.2.6 (PyYAML 6.0.4) stops at its own depth limit where the
            # pure-Python loader overflows the stack: the same frontmatter, the same verdict.
            warnings.append(_TOO_DEEP)
            return {}
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        warnings.append(f"malformed YAML frontmatter{where}; its lines are indexed as text")
        return {}
    except (_TooComplex, RecursionError):
        warnings.append(_TOO_DEEP)
        return {}
    except Exception as exc:  # PyYAML's constructors raise plain ValueErrors too
        warnings.append(f"unreadable YAML frontmatter ({exc}); its lines are indexed as text")
        return {}
    if plain is not None and not isinstance(plain, dict):
        warnings.append("frontmatter is not a mapping; its lines are indexed as text")
        return {}
    return plain or {}


def risky_nesting(body: str) -> str | None:
    """Say why ``body`` could crash the native parser, or ``None`` when it is safe."""
    if _DEEP_PREFIX.search(body):
        return f"a line nests quotes or lists more than {MAX_NESTING} deep"
    if _DEEP_INDENT.search(body):
        return f"a line is indented more than {MAX_NESTING * 4} columns"
    return None


def _markdown_blocks(body: str, lines: list[str], offset: int) -> list[Block]:
    data = body.encode("utf-8")
    # markdown-it-pyrs source maps are byte offsets into the UTF-8 text.
    line_starts = [0]
    pos = data.find(b"\n")
    while pos != -1:
        line_starts.append(pos + 1)
        pos = data.find(b"\n", pos + 1)

    def line_range(srcmap: tuple[int, int]) -> tuple[int, int]:
        start = bisect.bisect_right(line_starts, srcmap[0])
        end = bisect.bisect_right(line_starts, max(srcmap[0], srcmap[1] - 1))
        while end > start and not lines[offset + end - 1].strip():
            end -= 1
        return start + offset, end + offset

    blocks: list[Block] = []
    headings: list[tuple[int, str]] = []
    for node in _parser().tree(body).children:
        srcmap = node.srcmap
        if srcmap is None:
            continue
        first, last = line_range(srcmap)
        name = node.name
        if name in ("heading", "lheading"):
            level = int(node.meta.get("level", 1))
            title = _heading_title(lines[first - 1 : last])
            headings = [h for h in headings if h[0] < level] + [(level, title)]
            blocks.append(
                Block("heading", first, last, _path(headings), "\n".join(lines[first - 1 : last]))
            )
        elif name in ("bullet_list", "ordered_list"):
            for item in node.children:
                if item.srcmap is not None:
                    s, e = line_range(item.srcmap)
                    blocks.append(Block("item", s, e, _path(headings), "\n".join(lines[s - 1 : e])))
        elif name in _KINDS:
            blocks.append(
                Block(
                    _KINDS[name], first, last, _path(headings), "\n".join(lines[first - 1 : last])
                )
            )
    return blocks


def _plain_blocks(lines: list[str], offset: int) -> list[Block]:
    """Fallback: every run of non-blank lines is one paragraph."""
    blocks: list[Block] = []
    start: int | None = None
    for i in range(offset, len(lines) + 1):
        blank = i == len(lines) or not lines[i].strip()
        if start is None and not blank:
            start = i
        elif start is not None and blank:
            blocks.append(Block("paragraph", start + 1, i, "", "\n".join(lines[start:i])))
            start = None
    return blocks


def _heading_title(heading_lines: list[str]) -> str:
    if len(heading_lines) > 1:  # setext: text lines, then the underline
        return " ".join(line.strip() for line in heading_lines[:-1])
    # A closing run of # counts only after a space: "# C#" is the title "C#".
    return _CLOSING_HASHES.sub("", heading_lines[0].strip().lstrip("#")).strip()


def _path(headings: list[tuple[int, str]]) -> str:
    return " > ".join(title for _, title in headings)


def _plain(value: Any, budget: list[int], depth: int) -> Any:
    """Frontmatter values as JSON-ready data, refusing structures no person typed."""
    budget[0] += 1
    if depth > _MAX_DEPTH or budget[0] > _MAX_NODES:
        raise _TooComplex
    if isinstance(value, dict):
        return {str(k): _plain(v, budget, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, budget, depth + 1) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**63:
        return "(integer too large)"  # neither JSON nor SQLite can hold it
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


@functools.cache
def _frontmatter_loader() -> type[Any]:
    """PyYAML's safe (C) loader, with timestamps left as the strings a person typed:
    ``date: 2026-02-30`` must not stop a note from being indexed.

    Built on first use: PyYAML takes longer to import than a whole search of a built index
    runs, and only reading notes needs it (``docs/cli.md``, "Start-up time")."""
    import yaml

    class FrontmatterLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        pass

    FrontmatterLoader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    return FrontmatterLoader


# A frontmatter deeper or bigger than this (an alias bomb, a self-referencing anchor) is
# not data anyone typed: the note is indexed as text instead.
_MAX_DEPTH = 32
_MAX_NODES = 20_000


class _TooComplex(Exception):
    pass


class Link(NamedTuple):
    """One ``[[wikilink]]`` or ``![[embed]]``: the note or file it names (may be empty for
    a link within the note, ``[[#Heading]]``), its ``#heading`` or ``#^block`` part as
    written, and where it starts in the text searched."""

    target: str
    anchor: str
    embed: bool
    start: int


def code_ranges(text: str) -> list[tuple[int, int]]:
    """Character ranges of ``text`` that are code, where Obsidian syntax is not syntax:
    inline code spans, fenced and indented code blocks, also inside list items, quotes and
    table cells. Read by the Markdown parser, so backtick runs pair as CommonMark pairs them:
    a run of two backticks closes only at the next run of two, an unclosed run is text, and
    a backslash-escaped backtick opens nothing."""
    if "`" not in text and "~~~" not in text and not _INDENTED.search(text):
        return []
    if risky_nesting(text):  # the native parser could crash: code spans on one line only
        return [m.span() for m in CODE_SPAN.finditer(text)]
    spans: list[tuple[int, int]] = []
    nodes = [_code_parser().tree(text)]
    while nodes:
        node = nodes.pop()
        if node.name in _CODE_NODES and node.srcmap is not None:
            spans.append(node.srcmap)
        else:
            nodes.extend(node.children)
    if spans and not text.isascii():  # source maps count UTF-8 bytes
        chars = _char_offsets(text.encode(), {offset for span in spans for offset in span})
        spans = [(chars[a], chars[b]) for a, b in spans]
    return sorted(spans)


def _char_offsets(data: bytes, offsets: set[int]) -> dict[int, int]:
    """The character offset of each byte offset in ``offsets`` (all on character
    boundaries) in one pass over ``data``: counting from the start for each offset would
    make a long paragraph with many code spans quadratic."""
    found: dict[int, int] = {}
    byte = char = 0
    for offset in sorted(offsets):
        char += len(data[byte:offset].decode())
        byte = offset
        found[offset] = char
    return found


def _in_code(start: int, end: int, code: list[tuple[int, int]]) -> bool:
    """Whether ``start``..``end`` overlaps a range of ``code`` (sorted and disjoint, as
    ``code_ranges`` returns them): a binary search, as a paragraph may hold thousands."""
    i = bisect.bisect_left(code, (end,)) - 1  # the last range starting before ``end``
    return i >= 0 and start < code[i][1]


def find_tags(text: str) -> list[str]:
    """Inline ``#tags`` in a block's text (not inside code), in order, without ``#``."""
    # A "#" before "^" starts no tag: a fact's source link (``[[memory/2026-11-22#^s1]]``)
    # makes most lines of a vault's facts hold one.
    if "#" not in text or text.count("#") == text.count("#^"):
        return []
    code = code_ranges(text)
    return [m.group(1) for m in _TAG.finditer(text) if not _in_code(*m.span(), code)]


def iter_links(text: str) -> list[Link]:
    """Every wikilink and embed in a block's text, in order, except those in code (a link
    that a code span cuts through is no link either)."""
    if "[[" not in text:
        return []
    code = code_ranges(text)
    return [
        Link(m.group(2).strip(), m.group(3), m.group(1) == "!", m.start())
        for m in _LINK.finditer(text)
        if not _in_code(*m.span(), code)
    ]


def find_links(text: str) -> list[tuple[str, bool]]:
    """``[[wikilinks]]`` and ``![[embeds]]`` as ``(target, is_embed)``; target without alias
    or anchor; links within the note (``[[#Heading]]``) and links in code left out."""
    return [(link.target, link.embed) for link in iter_links(text) if link.target]


def note_links(text: str) -> list[tuple[int, Link]]:
    """``(line, link)`` for every link in a note, found as the index finds them: block by
    block, code blocks skipped."""
    found: list[tuple[int, Link]] = []
    for block in parse_document(text).blocks:
        if block.kind != "code":
            for link in iter_links(block.text):
                found.append((block.line_start + block.text.count("\n", 0, link.start), link))
    return found


def find_fields(text: str) -> list[tuple[str, str]]:
    """Dataview inline fields: ``[key:: value]`` anywhere and ``key:: value`` lines."""
    if "::" not in text:
        return []
    found = [(k.strip(), v.strip()) for k, v in _FIELD.findall(text)]
    found += [(k, v.strip()) for k, v in _LINE_FIELD.findall(text) if v.strip()]
    return found


def find_block_id(text: str) -> str | None:
    """The block id ``^id`` that ends the block's first line (or its last line)."""
    if "^" not in text:
        return None
    first = text.split("\n", 1)[0]
    match = _BLOCK_ID.search(first) or _BLOCK_ID.search(text.rsplit("\n", 1)[-1])
    return match.group(1) if match else None


def reader_text(text: str) -> str:
    """``text`` as Obsidian's reading view shows it, as far as words go: without its
    comments (``%%...%%``, ``<!-- ... -->``) and the blank lines they leave. Text that is
    all comment stays as written: it was found for those words, so they are shown."""
    if "%%" not in text and "<!--" not in text:
        return text
    marked = _SHOWN_COMMENT.sub("\0", text)  # a line left with only marks held only comments
    kept = [
        line.replace("\0", "") for line in marked.split("\n") if line.strip("\0 \t") or not line
    ]
    shown = re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip("\n")
    return shown if shown.strip() else text
