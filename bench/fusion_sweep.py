"""Choose hybrid search's fusion weight: LoCoMo scored for a grid of weights and seats.

    python bench/fusion_sweep.py ../shared/bench-data/locomo /tmp/loc-embedded

Each vault of the data set is copied once into the work folder, indexed and embedded with
the configured model (the default backend; a copy already embedded is reused). For every
question the keyword and the semantic lists are computed once and fused offline for
every (weight, seats, seats when the words missed) triple, as search fuses them
(``semantic.words_missed``; 0: no such rule), then scored like ``retrieval_eval.py
--max-span 5`` (whose ``score`` it imports from ``../shared/bench``): hits of more than
five lines are dropped from the top 10. Weight 0 with no seats is keyword search alone.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
from pathlib import Path

from vaultmem import Vault
from vaultmem.embeddings.floor import gate_for
from vaultmem.notes.cjk import mostly_cjk
from vaultmem.search.keyword import search as keyword_search
from vaultmem.search.semantic import fuse, open_vectors, semantic_hits, words_missed

EVAL_FILES = {"queries.jsonl", "adversarial.jsonl", "manifest.json", "README.md"}


def prepared(source: Path, work: Path) -> Path:
    """The vault copied (without the eval files), indexed and embedded."""
    target = work / source.name
    if not (target / ".vaultmem" / "vectors.db").exists():
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(source, target, ignore=lambda d, names: EVAL_FILES & set(names))
        Vault.init(target)
    with Vault(target) as vault:
        vault.embed()
    return target


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("data", type=Path, help="a folder of vaults with queries.jsonl")
    ap.add_argument("work", type=Path, help="where the embedded copies live")
    ap.add_argument("--weights", default="0,0.05,0.1,0.15,0.2,0.3,0.5,1")
    ap.add_argument("--seats", default="0,1,2,3")
    ap.add_argument("--seats-apart", default="0,5", help="seats when the words missed")
    ap.add_argument("--max-span", type=int, default=5)
    a = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "shared" / "bench"))
    from retrieval_eval import score  # the eval's own scoring

    grid = [
        (float(w), int(s), int(apart))
        for w in a.weights.split(",")
        for s in a.seats.split(",")
        for apart in a.seats_apart.split(",")
    ]
    results: dict[tuple[float, int, int], list[dict[str, float]]] = {g: [] for g in grid}
    for source in sorted(p.parent for p in a.data.glob("*/queries.jsonl")):
        lines = (source / "queries.jsonl").read_text(encoding="utf-8").splitlines()
        questions = [q for q in map(json.loads, filter(str.strip, lines)) if q.get("evidence")]
        with Vault(prepared(source, a.work)) as vault:
            conn = vault.db.conn
            vectors = open_vectors(conn, vault.root / ".vaultmem", vault.config.embeddings, [])
            assert vectors is not None, "nothing embedded"
            state = vault.root / ".vaultmem"
            for q in questions:
                text = q["question"]
                words = keyword_search(conn, text, limit=30, exclude_glob="archive/*")
                query = vectors.embedder.embed_query(text)
                gate = gate_for(state, vectors.embedder, query, vectors.matrix, [])  # as search
                language = int(mostly_cjk(text))
                meaning = semantic_hits(
                    conn, vectors.matrix, query, 30, gate, language, exclude_glob="archive/*"
                )
                missed = words_missed(text, words)  # as search does
                for weight, seats, apart in grid:
                    given = max(seats, apart) if missed else seats
                    fused = fuse(words, meaning, weight=weight, seats=given)[:10]
                    spans = [(h.path, h.line_start, h.line_end) for h in fused]
                    kept = [s for s in spans if s[2] - s[1] + 1 <= a.max_span]
                    results[(weight, seats, apart)].append(score(kept, q["evidence"], [5, 10]))
    print("weight seats apart recall@5 recall@10 mrr")
    for (weight, seats, apart), rows in results.items():
        means = [statistics.mean(r[m] for r in rows) for m in ("recall@5", "recall@10", "mrr")]
        print(f"{weight:<6} {seats:<5} {apart:<5} " + " ".join(f"{m:.4f}" for m in means))


if __name__ == "__main__":
    main()
