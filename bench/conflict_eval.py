"""Precision and recall of conflict detection on the labelled pairs, rules alone.

    python bench/conflict_eval.py [tests/data/conflict_pairs.json] [--errors] [--cosines]

Each pair is judged as consolidation judges it: the older fact alone in a ``FactSet``,
then ``best(newer)`` with the default thresholds; no verdict counts as "compatible".
Prints one row per label (precision, recall, support) and, with ``--errors``, every pair
judged wrong. ``--cosines`` (needs ``vaultmem[embeddings]``) prints, per label, the
cosines of the default local model over the pairs the rules call compatible: whether an
embedding could tell what the rules miss (docs/scoring.md). The test
``tests/test_conflict_pairs.py`` asserts on the same figures.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from vaultmem.config import MemoryConfig
from vaultmem.memory.pipeline.factset import FactSet

PAIRS = Path(__file__).resolve().parents[1] / "tests" / "data" / "conflict_pairs.json"
LABELS = ("conflict", "subsumes", "duplicate", "compatible")


@dataclass(frozen=True)
class Judged:
    old: str
    new: str
    label: str
    predicted: str
    doubtful: bool


def judge_pairs(path: Path = PAIRS) -> list[Judged]:
    """Every labelled pair with the rules' verdict."""
    memory = MemoryConfig()
    judged = []
    for pair in json.loads(path.read_text(encoding="utf-8"))["pairs"]:
        facts = FactSet()
        facts.add("old", pair["old"])
        match = facts.best(pair["new"], memory.duplicate_similarity, memory.conflict_similarity)
        predicted = "compatible" if match is None or match.verdict == "similar" else match.verdict
        doubtful = match is not None and match.doubtful
        judged.append(Judged(pair["old"], pair["new"], pair["label"], predicted, doubtful))
    return judged


def scores(judged: list[Judged], label: str) -> tuple[float, float, int]:
    """Precision, recall and support of one label."""
    hits = Counter((j.label == label, j.predicted == label) for j in judged)
    predicted = hits[(True, True)] + hits[(False, True)]
    actual = hits[(True, True)] + hits[(True, False)]
    precision = hits[(True, True)] / predicted if predicted else 1.0
    recall = hits[(True, True)] / actual if actual else 1.0
    return precision, recall, actual


def table(judged: list[Judged]) -> str:
    rows = ["| label | precision | recall | pairs |", "|---|---|---|---|"]
    for label in LABELS:
        precision, recall, support = scores(judged, label)
        rows.append(f"| {label} | {precision:.2f} | {recall:.2f} | {support} |")
    return "\n".join(rows)


def main(argv: list[str]) -> None:
    paths = [a for a in argv if not a.startswith("--")]
    judged = judge_pairs(Path(paths[0]) if paths else PAIRS)
    print(f"{len(judged)} pairs, rules alone")
    print(table(judged))
    print(f"doubtful (sent to an LLM when enabled): {sum(j.doubtful for j in judged)}")
    if "--errors" in argv:
        for j in judged:
            if j.label != j.predicted:
                print(f"{j.label} -> {j.predicted}: {j.old!r} / {j.new!r}")
    if "--cosines" in argv:
        cosines(judged)


def cosines(judged: list[Judged]) -> None:
    from vaultmem.config import EmbeddingsConfig
    from vaultmem.embeddings.embedders import load_embedder

    embedder = load_embedder(EmbeddingsConfig())
    if embedder is None:
        raise SystemExit("no embedder: install vaultmem[embeddings]")
    missed = [j for j in judged if j.predicted == "compatible"]
    old = embedder.embed_passages([j.old for j in missed])
    new = embedder.embed_passages([j.new for j in missed])
    print(f"cosines ({embedder.name}) of the pairs the rules call compatible:")
    for label in LABELS:
        found = sorted(
            float(a @ b) for j, a, b in zip(missed, old, new, strict=True) if j.label == label
        )
        if found:
            print(f"  {label}: {len(found)} pairs, {found[0]:.3f} to {found[-1]:.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
