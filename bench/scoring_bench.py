"""How well the rule table separates what matters from chatter, on the LoCoMo vaults.

    python bench/scoring_bench.py ../shared/bench-data/locomo

Scores every turn of every conversation (the text after ``**Speaker**:``), then for
several admission thresholds prints the share of *evidence* turns (those that answer a
question) admitted against the share of *all* turns admitted; and the time per line.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

from vaultmem.memory.language.scoring import entities, score

TURN = re.compile(r"^- \*\*(?P<who>[^*]+)\*\*:?\s*(?P<text>.*?)\s*(?:\^(?P<id>[\w-]+))?\s*$")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vaults", type=Path)
    args = ap.parse_args()
    scores: list[float] = []
    evidence_scores: list[float] = []
    elapsed = 0.0
    for vault in sorted(p.parent for p in args.vaults.rglob("queries.jsonl")):
        gold = {
            (e["path"], e["line"])
            for line in (vault / "queries.jsonl").read_text(encoding="utf-8").splitlines()
            if line
            for e in json.loads(line)["evidence"]
        }
        known: set[str] = set()
        for note in sorted((vault / "memory").glob("*.md")):
            for number, line in enumerate(note.read_text(encoding="utf-8").splitlines(), 1):
                match = TURN.match(line)
                if not match:
                    continue
                text = match["text"]
                started = time.perf_counter()
                value = score(text, known=known).value
                elapsed += time.perf_counter() - started
                known.update(e.casefold() for e in entities(text))
                scores.append(value)
                if (f"memory/{note.name}", number) in gold:
                    evidence_scores.append(value)
    print(
        f"{len(scores)} turns, {len(evidence_scores)} evidence turns; "
        f"{elapsed / len(scores) * 1e6:.0f} µs a line"
    )
    print("threshold  evidence admitted  all admitted")
    for threshold in (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7):
        ev = sum(v >= threshold for v in evidence_scores) / len(evidence_scores)
        al = sum(v >= threshold for v in scores) / len(scores)
        print(f"{threshold:9.2f}  {ev:17.1%}  {al:12.1%}")


if __name__ == "__main__":
    main()
