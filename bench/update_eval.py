"""Does a later statement that updates an earlier one supersede it? Rules alone, on the
blind update pairs of ``bench/data/update_pairs_{en,zh}.json``.

    python bench/update_eval.py [--errors]

Each pair is judged as consolidation judges it: the older fact alone in a ``FactSet``
(written ``Name: words`` when a named speaker said it, as consolidation writes a
conversation's line), then ``best(newer)`` with the default thresholds. A pair is called
an update when the verdict is ``conflict`` (the newer supersedes the older). Prints
precision and recall of ``update`` per language, for the tuning pairs and for the frozen
third (every third pair, counting from the third: never looked at while tuning rules), for
all pairs and for each set: the first 90 pairs; the second set (pairs 90 to 209), written
blind after the first rules for changes were tuned on the first set's tuning pairs; the
third (pairs 210 on), written blind after they were tuned on both sets' tuning pairs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from vaultmem.config import MemoryConfig
from vaultmem.memory.pipeline.factset import FactSet

DATA = Path(__file__).resolve().parent / "data"
SETS = (("first set", 0, 90), ("second set", 90, 210), ("third set", 210, None))


def said(text: str, speaker: str) -> str:
    return text if speaker == "owner" else f"{speaker}: {text}"


def judged(language: str) -> list[tuple[int, dict[str, str], bool]]:
    """``(number, pair, called an update)`` for each pair of one language."""
    memory = MemoryConfig()
    pairs = json.loads((DATA / f"update_pairs_{language}.json").read_text(encoding="utf-8"))
    out = []
    for number, pair in enumerate(pairs["pairs"]):
        facts = FactSet()
        facts.add("old", said(pair["old"], pair["speaker_old"]))
        new = said(pair["new"], pair["speaker_new"])
        match = facts.best(new, memory.duplicate_similarity, memory.conflict_similarity)
        out.append((number, pair, match is not None and match.verdict == "conflict"))
    return out


def figures(rows: list[tuple[int, dict[str, str], bool]]) -> str:
    true_pos = sum(1 for _, p, called in rows if called and p["label"] == "update")
    called = sum(1 for _, _, c in rows if c)
    actual = sum(1 for _, p, _ in rows if p["label"] == "update")
    precision = true_pos / called if called else 1.0
    recall = true_pos / actual if actual else 1.0
    return (
        f"precision {precision:.2f} ({true_pos}/{called}), "
        f"recall {recall:.2f} ({true_pos}/{actual})"
    )


def main(argv: list[str]) -> None:
    for language in ("en", "zh"):
        rows = judged(language)
        tuning = [r for r in rows if r[0] % 3 != 2]
        frozen = [r for r in rows if r[0] % 3 == 2]
        print(f"{language}: tuning {figures(tuning)}; frozen {figures(frozen)}")
        for name, start, end in SETS:
            part = rows[start:end]
            tuned = [r for r in part if r[0] % 3 != 2]
            kept = [r for r in part if r[0] % 3 == 2]
            print(f"  {name}: tuning {figures(tuned)}; frozen {figures(kept)}")
        if "--errors" in argv:
            for _, pair, called in tuning:  # the frozen third is never printed
                if called != (pair["label"] == "update"):
                    print(f"  {pair['label']} called {called}: {pair['old']!r} / {pair['new']!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
