"""How text becomes search terms, shared by the indexer and the query side so both agree.

SQLite's ``unicode61`` tokenizer treats a whole run of Chinese or Japanese characters as one
token, so ``预算`` could never be found inside ``我们的预算``. vaultmem therefore splits every
chunk in two before it reaches FTS5:

* the text with each CJK run replaced by one placeholder token (a private-use character no
  query can contain), for ``unicode61`` word search; the placeholder keeps ``alpha 预算
  beta`` from matching the phrase ``"alpha beta"``;
* then each CJK run written as its single characters and its overlapping bigrams
  (``预算表`` -> ``预 算 表 预算 算表``).

Both go into the ``body`` column: a Latin word and a CJK gram can never be the same token,
so one column serves both kinds of query (a column of its own cost every CJK posting a
column marker).

A chunk's heading path is the ``heading`` column (its CJK runs' grams go into ``body``), so a
line is found by words split between it and its heading. A note's *names* (its file name,
its ``title`` property and its ``aliases``, see ``note_names``) are the ``name`` column of
every chunk of the note but its heading lines (``chunk_names``), so a note is found by its
name and a line by words split between it and the note's name; the names' CJK runs are
written into that column as unigrams and bigrams too. A heading that only repeats one of
the names (a daily note's ``# 2026-11-23``, a page's ``# Title``) is left out of the
``heading`` column of chunks that carry the names: the same words on every chunk twice.

A query word of one CJK character matches a unigram; a word of two or more becomes the
phrase of its bigrams, which matches exactly where the word occurs as a substring. Han,
kana and Hangul all count as CJK here.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Mapping

from vaultmem.notes.cjk import CJK_CHARACTERS


@functools.cache
def cjk_run() -> re.Pattern[str]:
    """The pattern of one run of CJK characters. Compiled on first use (its character
    ranges take milliseconds to compile): a search for English words never needs it."""
    return re.compile(f"[{CJK_CHARACTERS}]+")


CJK_PLACEHOLDER = " \ue000 "
# How a heading path joins its headings (``notes/parse.py``).
HEADING_SEPARATOR = " > "


def split_cjk(text: str) -> tuple[str, list[str]]:
    """Return ``text`` with each CJK run replaced by a placeholder token, and the runs."""
    if text.isascii():
        return text, []
    runs = cjk_run().findall(text)
    if not runs:
        return text, []
    return cjk_run().sub(CJK_PLACEHOLDER, text), runs


def bigrams(run: str) -> list[str]:
    """Overlapping two-character grams of one CJK run (the run itself if shorter)."""
    if len(run) < 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def cjk_terms(runs: list[str]) -> str:
    """The CJK terms of a chunk (written after its words in ``body``): unigrams and bigrams
    of every run, space-separated."""
    out: list[str] = []
    for run in runs:
        out.extend(run)
        if len(run) > 1:
            out.extend(run[i : i + 2] for i in range(len(run) - 1))
    return " ".join(out)


def fts_columns(text: str, heading: str, names: str) -> tuple[str, str, str]:
    """The ``body``, ``heading`` and ``name`` FTS columns of a chunk whose ``name`` column
    holds ``names`` (``chunk_names``: none on a heading line).

    The FTS table is contentless, so deleting a row means handing FTS5 these exact values
    again: this one function computes them for both insert and delete.
    """
    body, runs = split_cjk(text)
    if names:
        own = {name.casefold() for name in names.split("\n")}
        heading = HEADING_SEPARATOR.join(
            part for part in heading.split(HEADING_SEPARATOR) if part.casefold() not in own
        )
    heading_text, heading_runs = split_cjk(heading)
    grams = cjk_terms(runs + heading_runs)
    return f"{body} {grams}" if grams else body, heading_text, name_column(names)


def chunk_names(kind: str, names: str) -> str:
    """The names a chunk's ``name`` column holds: its note's, except on a heading line. A
    heading is a few words long, so bm25 would rank every heading of a note above the
    note's content whenever its name is asked for; the content carries the name instead."""
    return "" if kind == "heading" else names


def name_column(names: str) -> str:
    """The ``name`` FTS column of every chunk of a note with these ``names``."""
    latin, runs = split_cjk(names)
    return f"{latin} {cjk_terms(runs)}" if runs else latin


_DATE_NAME = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
# English, whatever the locale: the query side keeps capitalised month names (search/keyword.py).
_MONTH_NAMES = (
    "January February March April May June July August September October November December"
).split()


def note_names(path: str, frontmatter: Mapping[str, object]) -> str:
    """A note's names, one a line: its file name without ``.md``, its ``title`` property
    and its ``aliases`` (or ``alias``), as Obsidian shows and links them. A file named by a
    date (a daily note) is also named by that date in words (``2023-12-04``: ``December 4
    2023``), as people ask for it."""
    stem = path.rsplit("/", 1)[-1]
    stem = stem[:-3] if stem.lower().endswith(".md") else stem
    names = [stem]
    date = _DATE_NAME.fullmatch(stem)
    if date:
        try:
            day = dt.date(int(date[1]), int(date[2]), int(date[3]))
        except ValueError:
            pass
        else:
            names.append(f"{_MONTH_NAMES[day.month - 1]} {day.day} {day.year}")
    for key in ("title", "aliases", "alias"):
        value = frontmatter.get(key)
        values = value if isinstance(value, list) else [value]
        # A YAML alias may read as a number (2049) or a date; true/false is no name.
        names.extend(str(v).strip() for v in values if v is not None and not isinstance(v, bool))
    return "\n".join(dict.fromkeys(n for n in names if n))
