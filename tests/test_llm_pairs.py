"""LLM mode measured on the labelled conflict pairs (``tests/data/conflict_pairs.json``, the
set the rules are held to in ``test_conflict_pairs.py``), against the scripted server.

The scripted model answers each pair's label, so what is measured is the pass itself: only
the pairs the rules call doubtful are sent, each once; its verdicts are applied as given;
every other decision stays the rules'; with a model that answers nonsense, LLM mode is
exactly rules mode. ``-s`` prints the precision and recall of "conflict" both ways.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from llm_server import Script, base_url, llm_server, pair_answers

from vaultmem.config import LLMConfig, MemoryConfig
from vaultmem.memory.language.conflicts import Match
from vaultmem.memory.pipeline.factset import FactSet
from vaultmem.memory.pipeline.judge import Judge, open_judge

PAIRS = Path(__file__).parent / "data" / "conflict_pairs.json"
# The rules' verdicts as labels: "similar" facts are both kept, which is "compatible".
_LABEL = {"similar": "compatible"}


def labelled_pairs() -> list[dict[str, str]]:
    if not PAIRS.exists():
        pytest.skip(f"{PAIRS.name} (the labelled conflict pairs) is not in this checkout")
    data = json.loads(PAIRS.read_text(encoding="utf-8"))
    pairs = data["pairs"] if isinstance(data, dict) else data
    return [{"old": p["old"], "new": p["new"], "label": p["label"]} for p in pairs]


def rules_match(old: str, new: str) -> Match | None:
    facts = FactSet()
    facts.add("old", old)
    memory = MemoryConfig()
    return facts.best(new, memory.duplicate_similarity, memory.conflict_similarity)


def decide(pair: dict[str, str], judge: Judge | None) -> tuple[str, bool]:
    """The verdict on a pair as consolidation reaches it, and whether it was doubtful."""
    match = rules_match(pair["old"], pair["new"])
    if match is None:
        return "compatible", False
    doubtful = match.doubtful
    if doubtful and judge is not None:
        match = judge.settle(pair["new"], pair["old"], match)
    return _LABEL.get(match.verdict, match.verdict), doubtful


def precision_recall(
    gold: list[str], said: list[str], label: str = "conflict"
) -> tuple[float, ...]:
    hits = sum(g == s == label for g, s in zip(gold, said, strict=True))
    claimed, actual = said.count(label), gold.count(label)
    return (hits / claimed if claimed else 1.0, hits / actual if actual else 1.0)


@dataclass
class Run:
    """Each pair's verdict by the rules alone and with the LLM pass, and what was asked."""

    rules: list[str]
    llm: list[str]
    doubtful: list[bool]
    requests: int


def measure(pairs: list[dict[str, str]], tmp_path: Path, script: Script) -> Run:
    rules = [decide(pair, None)[0] for pair in pairs]
    with llm_server(script) as server:
        judge = open_judge(tmp_path, LLMConfig(url=base_url(server), model="scripted", retries=0))
        decided = [decide(pair, judge) for pair in pairs]
        judge.close()
    return Run(rules, [v for v, _ in decided], [d for _, d in decided], len(server.requests))


def test_llm_mode_applies_the_models_verdicts_to_the_doubtful_pairs_only(tmp_path: Path) -> None:
    pairs = labelled_pairs()
    labels = [p["label"] for p in pairs]
    run = measure(pairs, tmp_path, pair_answers({(p["old"], p["new"]): p["label"] for p in pairs}))
    asked = {(p["old"], p["new"]) for p, d in zip(pairs, run.doubtful, strict=True) if d}
    assert run.requests == len(asked)  # the doubtful pairs, each once (then cached)
    for pair, rule, llm, doubtful in zip(pairs, run.rules, run.llm, run.doubtful, strict=True):
        assert llm == (pair["label"] if doubtful else rule), pair
    rules_p, rules_r = precision_recall(labels, run.rules)
    llm_p, llm_r = precision_recall(labels, run.llm)
    print(
        f"\n{len(pairs)} pairs, {len(asked)} doubtful to the rules\n"
        f"conflict  rules: P {rules_p:.2f} R {rules_r:.2f}   "
        f"rules + LLM: P {llm_p:.2f} R {llm_r:.2f}"
    )
    assert llm_p >= rules_p and llm_r >= rules_r


def test_with_a_model_that_answers_nonsense_llm_mode_is_rules_mode(tmp_path: Path) -> None:
    pairs = labelled_pairs()
    run = measure(pairs, tmp_path, lambda facts: "I think they conflict.")
    assert run.llm == run.rules
    assert run.requests == sum(run.doubtful)  # asked, and every answer thrown away
