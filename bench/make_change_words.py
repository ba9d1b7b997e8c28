"""Make the word table of ``memory/language/changes.py`` from the raw lists a helper wrote
blind.

    python bench/make_change_words.py

``bench/data/change_words_raw.json`` was written by a helper AI session from general
knowledge of English and Chinese, without reading any project code, data or test pairs:
the most frequent words of everyday chat (a word not among them is fairly specific), the
words that say a standing fact changed, and the words that say a line is no such change.
This folds them as ``conflicts.words`` reads a fact (English words without a plural "s";
Chinese as two-character pieces) and leaves out the cues too broad to say a change of
anything in particular (``BROAD``). A cue "not ... anymore" has one to three words in its
gap (``changes.Phrases``).
Writes ``vaultmem/memory/language/change_words.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

from vaultmem.index.stems import PLURAL, stem
from vaultmem.memory.language import state_words as w

ROOT = Path(__file__).resolve().parent.parent
RAW = ROOT / "bench" / "data" / "change_words_raw.json"
OUT = ROOT / "vaultmem" / "memory" / "language" / "change_words.json"

# "new brake pads", "not cheap but good", "into baking now": the cue names no change of
# the thing the two lines share. "Actually", "confirmed", "已经" (already), "最近"
# (lately), "后来" (later), "结果" (as it turned out): an event told or a fact affirmed,
# not a value replaced. "Decided to open-source Helios", "chose the blue one": a decision
# about a thing adds to what is known of it, and seldom ends any of it.
BROAD = frozenset(
    ["new", "not ... but", "into ... now", "from ... to", "actually", "eventually"]
    + ["confirmed", "accepted", "approved", "decided", "decided to", "chose", "chosen"]
    + ["已", "已经", "早就", "最近", "近来", "后来", "结果"]
)
# "too small", "flipped again", "eats fish again": no addition, no repeat. ``state_words``
# reads "too" as an addition only where it ends a clause ("a cat too").
BROAD_STAYS = frozenset(["too", "again"])


def phrases(raw: list[str], broad: frozenset[str]) -> list[str]:
    """The phrases but the ``broad``, trimmed (English in lower case), each once."""
    out = {
        phrase.strip() if w.HAS_CJK.search(phrase) else phrase.strip().casefold() for phrase in raw
    }
    return sorted(out - broad - {""})


def main() -> None:
    raw = json.loads(RAW.read_text(encoding="utf-8"))
    common_en = {stem(word.casefold(), PLURAL) for word in raw["common_en"] if word.isascii()}
    common_zh = {
        word[i : i + 2] for word in raw["common_zh"] if len(word) >= 2 for i in range(len(word) - 1)
    }
    table = {
        "common": sorted(common_en | common_zh),
        "change": phrases(raw["change_en"] + raw["change_zh"], BROAD),
        "stays": phrases(raw["stays_en"] + raw["stays_zh"], BROAD_STAYS),
    }
    OUT.write_text(json.dumps(table, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(OUT, {key: len(value) for key, value in table.items()})


if __name__ == "__main__":
    main()
