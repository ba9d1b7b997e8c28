"""LLM mode on the labelled conflict pairs (``tests/data/conflict_pairs.json``, the set the
rules are held to in ``test_conflict_pairs.py``), against the scripted server.

What is tested is the pass itself: only the pairs the rules call doubtful are sent, each
once; the model's verdicts are applied as given; every other decision stays the rules'; with
a model that answers nonsense, LLM mode is exactly rules mode. The scripted model has a rule
of its own, blind to the labels and to the rules' verdicts, so a pass that dropped, swapped
or ignored its answers could not pass by agreeing with either.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from llm_server import Script, base_url, llm_server

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


VERDICTS = ("conflict", "compatible", "duplicate", "subsumes")


def model_verdict(earlier: str, new: str) -> str:
    """The scripted model's own reading of a pair: one of the four verdicts, by a hash of
    the two facts (the same pair, the same verdict), never by the pair's label."""
    return VERDICTS[zlib.crc32(f"{earlier}\n{new}".encode()) % len(VERDICTS)]


def own_rule(facts: dict[str, Any]) -> str:
    verdict = model_verdict(facts["earlier fact"], facts["new fact"])
    return json.dumps({"same_slot": verdict != "compatible", "verdict": verdict})


def test_llm_mode_applies_the_models_verdicts_to_the_doubtful_pairs_only(tmp_path: Path) -> None:
    pairs = labelled_pairs()
    run = measure(pairs, tmp_path, own_rule)
    asked = {(p["old"], p["new"]) for p, d in zip(pairs, run.doubtful, strict=True) if d}
    assert asked and run.requests == len(asked)  # the doubtful pairs, each once (then cached)
    said = [model_verdict(p["old"], p["new"]) for p in pairs]
    for pair, rule, llm, model, doubtful in zip(
        pairs, run.rules, run.llm, said, run.doubtful, strict=True
    ):
        assert llm == (model if doubtful else rule), pair
    # The model overrules the rules on some doubtful pairs and agrees on others: a pass
    # that kept the rules' verdicts, or took every answer for one verdict, would fail.
    overruled = [r != m for r, m, d in zip(run.rules, said, run.doubtful, strict=True) if d]
    assert any(overruled) and not all(overruled)
    assert len({m for m, d in zip(said, run.doubtful, strict=True) if d}) > 2


def test_with_a_model_that_answers_nonsense_llm_mode_is_rules_mode(tmp_path: Path) -> None:
    pairs = labelled_pairs()
    run = measure(pairs, tmp_path, lambda facts: "I think they conflict.")
    assert run.llm == run.rules
    assert run.requests == sum(run.doubtful)  # asked, and every answer thrown away
