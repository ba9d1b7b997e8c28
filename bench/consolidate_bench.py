"""Consolidation: how well admission keeps what matters, and how long a run takes.

    python bench/consolidate_bench.py quality ../shared/bench-data/locomo
    python bench/consolidate_bench.py day --runs 5
    python bench/consolidate_bench.py full /tmp/v10k --runs 3

``quality`` runs the real consolidation on a copy of every LoCoMo conversation (turned
into daily notes) at several admission thresholds, as of the day after its last note, and
counts the turns that answer a question (the gold evidence) found distilled, against all
turns distilled: a turn counts when a fact cites it as its source or the memory log has
it as a repeat of a fact.
``day`` times ``consolidate`` of one daily note of 500 lines (LoCoMo turns, in a vault
with git, so the time includes the commit). ``full`` times ``consolidate --mode full`` on
a copy of a generated vault (no git: the commit of a whole vault is ``git_bench``'s).
Each timing is a fresh process on a fresh copy; medians and peak RSS are printed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

THRESHOLDS = (0.5, 0.55, 0.6, 0.65, 0.7)
TURN = re.compile(r"^- \*\*[^*]+\*\*:?\s*(?P<text>.*?)\s*\^(?P<id>[\w-]+)\s*$")
RUN = """
import datetime as dt, json, resource, sys, time
from vaultmem import Vault
root, mode, today = sys.argv[1], sys.argv[2], dt.date.fromisoformat(sys.argv[3])
started = time.perf_counter()
with Vault(root) as vault:
    report = vault.consolidate(mode, today=today)
elapsed = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": elapsed, "peak_mb": peak, "new_facts": report.new_facts,
                  "collected": report.collected, "admitted": report.admitted}))
"""


def timed(root: Path, mode: str, today: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", RUN, str(root), mode, today],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def distilled_keys(root: Path) -> set[str]:
    from vaultmem.memory.pipeline.facts import Fact, parse_entries
    from vaultmem.memory.pipeline.ledger import Ledger

    keys = set(Ledger.read(root).distilled)
    for folder in ("facts", "archive"):
        for note in (root / folder).rglob("*.md"):
            for entry in parse_entries(note.read_text(encoding="utf-8")):
                keys.update(Fact(str(note), entry).sources)
    return keys


def quality(locomo: Path) -> None:
    from vaultmem import Vault

    conversations = sorted(p.parent for p in locomo.rglob("queries.jsonl"))
    evidence: dict[str, set[str]] = {}
    turns: dict[str, set[str]] = {}
    for conv in conversations:
        keys_by_line: dict[tuple[str, int], str] = {}
        for note in (conv / "memory").glob("*.md"):
            for number, line in enumerate(note.read_text(encoding="utf-8").splitlines(), 1):
                match = TURN.match(line)
                if match:
                    keys_by_line[(f"memory/{note.name}", number)] = f"{note.stem}#{match['id']}"
        turns[conv.name] = set(keys_by_line.values())
        evidence[conv.name] = {
            keys_by_line[(e["path"], e["line"])]
            for line in (conv / "queries.jsonl").read_text(encoding="utf-8").splitlines()
            if line
            for e in json.loads(line)["evidence"]
            if (e["path"], e["line"]) in keys_by_line
        }
    total_evidence = sum(len(v) for v in evidence.values())
    total_turns = sum(len(v) for v in turns.values())
    print(f"{len(conversations)} conversations, {total_turns} turns, {total_evidence} evidence")
    print("threshold  evidence admitted  all admitted  facts")
    with tempfile.TemporaryDirectory() as tmp:
        for threshold in THRESHOLDS:
            kept_evidence = kept_turns = facts = 0
            for conv in conversations:
                root = Path(tmp) / f"{conv.name}-{threshold}"
                shutil.copytree(conv / "memory", root / "memory")
                (root / ".vaultmem").mkdir()
                (root / ".vaultmem/config.toml").write_text(
                    f"[memory]\nadmit_threshold = {threshold}\n"
                )
                last = max(p.stem for p in (root / "memory").glob("*.md"))
                with Vault(root) as vault:
                    report = vault.consolidate(
                        "full", today=dt.date.fromisoformat(last) + dt.timedelta(days=1)
                    )
                facts += report.new_facts
                keys = distilled_keys(root)
                kept_evidence += len(evidence[conv.name] & keys)
                kept_turns += len(turns[conv.name] & keys)
            print(
                f"{threshold:9.2f}  {kept_evidence / total_evidence:17.1%}"
                f"  {kept_turns / total_turns:12.1%}  {facts:5d}"
            )


def day(runs: int, locomo: Path) -> None:
    texts = [
        m["text"]
        for note in sorted(locomo.rglob("memory/*.md"))
        for line in note.read_text(encoding="utf-8").splitlines()
        if (m := TURN.match(line))
    ][:500]
    lines = [f"- {9 + i // 60:02d}:{i % 60:02d} **user** {t} ^d{i}" for i, t in enumerate(texts)]
    with tempfile.TemporaryDirectory() as tmp:
        template = Path(tmp) / "template"
        subprocess.run(
            [sys.executable, "-m", "vaultmem", "init", str(template)],
            check=True,
            capture_output=True,
        )
        note = template / "memory/2026-11-22.md"
        note.write_text(
            "---\ndate: 2026-11-22\ntype: daily\n---\n\n# 2026-11-22\n\n" + "\n".join(lines) + "\n"
        )
        results = []
        for run in range(runs):
            root = Path(tmp) / f"run{run}"
            shutil.copytree(template, root, symlinks=True)
            results.append(timed(root, "daily", "2026-11-22"))
    report("a day of 500 lines", results)


def full(vault: Path, runs: int) -> None:
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(runs):
            root = Path(tmp) / f"run{run}"
            shutil.copytree(vault, root, ignore=shutil.ignore_patterns(".git", ".vaultmem"))
            (root / ".vaultmem").mkdir()
            results.append(timed(root, "full", "2026-11-22"))
            shutil.rmtree(root)
    report(f"full run on {vault}", results)


def report(what: str, results: list[dict[str, float]]) -> None:
    seconds = statistics.median(r["seconds"] for r in results)
    peak = max(r["peak_mb"] for r in results)
    first = results[0]
    print(
        f"{what}: median {seconds:.2f} s over {len(results)} runs "
        f"(min {min(r['seconds'] for r in results):.2f}, max "
        f"{max(r['seconds'] for r in results):.2f}); peak RSS {peak:.0f} MB; "
        f"{first['collected']:.0f} lines collected, {first['admitted']:.0f} admitted, "
        f"{first['new_facts']:.0f} new facts"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    q = sub.add_parser("quality")
    q.add_argument("locomo", type=Path)
    d = sub.add_parser("day")
    d.add_argument("--runs", type=int, default=5)
    d.add_argument("--locomo", type=Path, default=Path("../shared/bench-data/locomo"))
    f = sub.add_parser("full")
    f.add_argument("vault", type=Path)
    f.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    if args.what == "quality":
        quality(args.locomo)
    elif args.what == "day":
        day(args.runs, args.locomo)
    else:
        full(args.vault, args.runs)


if __name__ == "__main__":
    main()
