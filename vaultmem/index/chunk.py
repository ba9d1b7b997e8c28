"""Blocks -> chunks with deterministic ids. No IO.

One block is one chunk: a paragraph, a list item (with its nested items), a code block, a
table, a quote or callout, a heading line, the frontmatter. So in daily notes and fact files
one list item, one memory, is one hit. A block longer than ``chunk_max_chars`` is split at
line boundaries (a single line longer than that, by characters), every part keeping the
block's line range.

A chunk's id is a digest of its kind, heading path and text, plus ``-2``, ``-3`` ... for
repeats within the file. It does not depend on the path or the line numbers, so an
unchanged block keeps its id when other parts of the file change or the file is renamed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import NamedTuple

from vaultmem.index.terms import chunk_names, fts_columns
from vaultmem.notes.parse import Block, find_block_id, find_fields, find_links, find_tags


class Chunk(NamedTuple):
    """One searchable unit, with the Obsidian syntax found in it and its FTS columns
    (computed here, in the worker process that parsed the note).

    A named tuple, not a dataclass: chunks cross process boundaries by the hundred thousand
    when the indexer parses in worker processes, and tuples pickle several times faster.
    """

    chunk_id: str
    kind: str
    line_start: int
    line_end: int
    heading: str
    text: str
    block_id: str | None
    tags: tuple[str, ...]
    links: tuple[tuple[str, bool], ...]
    fields: tuple[tuple[str, str], ...]
    fts_body: str
    fts_heading: str
    fts_name: str
    # The text as the index stores it (``text.py``), when the worker that chunked it
    # had the index's dictionary; else the writer packs it.
    stored: str | bytes | None = None


def make_chunks(blocks: Iterable[Block], max_chars: int, names: str = "") -> list[Chunk]:
    """Turn a document's blocks into chunks with ids that are stable across edits (the
    note's ``names`` shape their FTS columns: ``terms.fts_columns``)."""
    chunks: list[Chunk] = []
    seen: dict[str, int] = {}
    for block in blocks:
        for text in _split(block.text, max_chars):
            digest = hashlib.blake2b(
                f"{block.kind}\0{block.heading}\0{text}".encode(), digest_size=8
            ).hexdigest()
            seen[digest] = seen.get(digest, 0) + 1
            chunk_id = digest if seen[digest] == 1 else f"{digest}-{seen[digest]}"
            is_code = block.kind == "code"
            own_names = chunk_names(block.kind, names)
            fts_body, fts_heading, fts_name = fts_columns(text, block.heading, own_names)
            chunks.append(
                Chunk(
                    chunk_id=chunk_id,
                    kind=block.kind,
                    line_start=block.line_start,
                    line_end=block.line_end,
                    heading=block.heading,
                    text=text,
                    block_id=find_block_id(text),
                    tags=() if is_code else tuple(dict.fromkeys(find_tags(text))),
                    links=() if is_code else tuple(find_links(text)),
                    fields=() if is_code else tuple(find_fields(text)),
                    fts_body=fts_body,
                    fts_heading=fts_heading,
                    fts_name=fts_name,
                )
            )
    return chunks


def _split(text: str, max_chars: int) -> list[str]:
    if len(text) <= max_chars:
        return [text]
    parts: list[str] = []
    current: list[str] = []
    size = 0
    for line in text.split("\n"):
        if len(line) > max_chars:
            if current:
                parts.append("\n".join(current))
                current, size = [], 0
            cut = len(line) - (len(line) % max_chars or max_chars)
            parts.extend(line[i : i + max_chars] for i in range(0, cut, max_chars))
            line = line[cut:]
        if size + len(line) + 1 > max_chars and current:
            parts.append("\n".join(current))
            current, size = [], 0
        current.append(line)
        size += len(line) + 1
    if current:
        parts.append("\n".join(current))
    return parts
