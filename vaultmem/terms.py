"""How text becomes search terms, shared by the indexer and the query side so both agree.

SQLite's ``unicode61`` tokenizer treats a whole run of Chinese or Japanese characters as one
token, so ``预算`` could never be found inside ``我们的预算``. vaultmem therefore splits every
chunk in two before it reaches FTS5:

* ``body``: the text with each CJK run replaced by one placeholder token (a private-use
  character no query can contain), for ``unicode61`` word search; the placeholder keeps
  ``alpha 预算 beta`` from matching the phrase ``"alpha beta"``;
* ``cjk``: each CJK run written as its single characters and its overlapping bigrams
  (``预算表`` -> ``预 算 表 预算 算表``).

A query word of one CJK character matches a unigram; a word of two or more becomes the
phrase of its bigrams, which matches exactly where the word occurs as a substring. Han,
kana and Hangul all count as CJK here.
"""

from __future__ import annotations

import re

CJK_RUN = re.compile(
    "[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
    "\uf900-\ufaff\U00020000-\U0002ffff]+"
)


CJK_PLACEHOLDER = " \ue000 "


def split_cjk(text: str) -> tuple[str, list[str]]:
    """Return ``text`` with each CJK run replaced by a placeholder token, and the runs."""
    runs = CJK_RUN.findall(text)
    if not runs:
        return text, []
    return CJK_RUN.sub(CJK_PLACEHOLDER, text), runs


def bigrams(run: str) -> list[str]:
    """Overlapping two-character grams of one CJK run (the run itself if shorter)."""
    if len(run) < 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def cjk_terms(runs: list[str]) -> str:
    """The ``cjk`` column for a chunk: unigrams and bigrams of every run, space-separated."""
    out: list[str] = []
    for run in runs:
        out.extend(run)
        if len(run) > 1:
            out.extend(run[i : i + 2] for i in range(len(run) - 1))
    return " ".join(out)


def fts_columns(text: str, heading: str) -> tuple[str, str, str]:
    """The ``body``, ``heading`` and ``cjk`` FTS columns of a chunk.

    The FTS table is contentless, so deleting a row means handing FTS5 these exact values
    again: this one function computes them for both insert and delete.
    """
    body, runs = split_cjk(text)
    heading_text, heading_runs = split_cjk(heading)
    return body, heading_text, cjk_terms(runs + heading_runs)
