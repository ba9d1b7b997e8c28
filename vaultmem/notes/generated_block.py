"""The prompt block: ``MEMORY.md``'s generated part, within a token budget.

Only the text between ``<!-- vaultmem:begin -->`` and ``<!-- vaultmem:end -->`` is
vaultmem's; everything around it is the human's and is kept byte for byte. A file without
the markers gets them appended at its end; a file with one marker, or with them out of
order, is refused (``BlockError``) rather than guessed at.

Tokens are counted without a model's tokenizer (``count_tokens``): each CJK character is
one token, each run of letters or digits is one token per 4 characters (rounded up), and
every other visible character is one token. For English prose this lands within about 10%
of common BPE tokenizers and on the side of counting more, which is the safe side for a
budget.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from vaultmem.notes.cjk import CJK_CHARACTERS

BEGIN = "<!-- vaultmem:begin -->"
END = "<!-- vaultmem:end -->"
CONTEXT_MARKER = "<!-- vaultmem:context -->"  # opens the block ``vaultmem context`` prints
# Lines holding these are vaultmem's own output echoed back (a block pasted into a chat):
# never remembered, never recalled.
ECHO_MARKERS = (BEGIN, END, CONTEXT_MARKER)
# The smallest prompt block: the marker line, a heading and one cited line.
MIN_BUDGET = 40
_PIECES = re.compile(rf"([{CJK_CHARACTERS}]+)|([^\W_]+)|(\S)")


class BlockError(ValueError):
    """The markers of a generated block are missing one half or out of order."""


def count_tokens(text: str) -> int:
    """Tokens as this module's docstring counts them."""
    total = 0
    for cjk, word, other in _PIECES.findall(text):
        if cjk:
            total += len(cjk)
        elif word:
            total += math.ceil(len(word) / 4)
        elif other:
            total += 1
    return total


def replace_block(text: str, block: str) -> str:
    """``text`` with its generated block replaced by ``block`` (markers added if absent).

    Raises:
        BlockError: only one marker is present, or the end comes before the begin.
    """
    begin, end = text.find(BEGIN), text.find(END)
    body = f"{BEGIN}\n{block.strip()}\n{END}" if block.strip() else f"{BEGIN}\n{END}"
    if begin < 0 and end < 0:
        if text and not text.endswith("\n"):
            text += "\n"
        separator = "\n" if text.strip() and not text.endswith("\n\n") else ""
        return f"{text}{separator}{body}\n"
    if begin < 0 or end < 0 or end < begin or text.count(BEGIN) > 1 or text.count(END) > 1:
        raise BlockError(f"the {BEGIN} and {END} markers must appear once each, in that order")
    return text[:begin] + body + text[end + len(END) :]


def block_of(text: str) -> str | None:
    """The current generated block, without its markers."""
    begin, end = text.find(BEGIN), text.find(END)
    if begin < 0 or end < begin:
        return None
    return text[begin + len(BEGIN) : end].strip("\n")


@dataclass
class Section:
    """A heading and its lines, most important first; filled while the budget lasts."""

    title: str
    lines: list[str] = field(default_factory=list)
    priority: int = 0


def fit(sections: list[Section], budget: int) -> str:
    """Render sections in their order, giving lines to them by priority until the budget
    (counted with ``count_tokens``, headings and blank lines included) is spent."""
    kept: dict[int, list[str]] = {i: [] for i in range(len(sections))}
    spent = 0
    for index in sorted(range(len(sections)), key=lambda i: sections[i].priority):
        section = sections[index]
        heading_cost = count_tokens(f"## {section.title}")
        for line in section.lines:
            cost = count_tokens(line) + (0 if kept[index] else heading_cost)
            if spent + cost > budget:
                break
            kept[index].append(line)
            spent += cost
    parts = [
        f"## {section.title}\n" + "\n".join(kept[i])
        for i, section in enumerate(sections)
        if kept[i]
    ]
    return "\n\n".join(parts)
