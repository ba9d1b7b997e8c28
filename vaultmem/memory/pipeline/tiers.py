"""Tiers and decay: how much a fact is worth today, and where it belongs.

    score = importance x decay(kind, age) x reinforcement(accesses)

Decay is a daily rate by kind (fact 0.8%, belief 7%, summary 2.5%), slowed for important
facts (x (1 - importance x 0.5)); a pinned fact never decays. Each access (a search or
context hit, read from the access log) reinforces: x (1 + 0.1 x ln(1 + accesses)).
Tiers: hot >= 0.7, warm >= 0.3, cold >= 0.05; below that the fact moves to ``archive/``.
What lasts (``DURABLE_KINDS``: who someone is, their health, their people, what they like,
what changed in their life, how a project is set up) fades to cold but is never archived
by age alone: consolidating years of old notes keeps them. Events and passing remarks
(``general fact``, ``temporary``) and facts without a kind decay as above.
Every number is a ``[memory]`` key (``docs/memory.md``). Search gives its hits their tier
with these (``search/results.py``, ``mark_hits``).
"""

from __future__ import annotations

import datetime as dt
import math

from vaultmem.config import MemoryConfig

TIERS = ("hot", "warm", "cold", "archive")
DURABLE_KINDS = frozenset(
    {"identity", "health", "safety", "preference", "relationship", "status change", "setup"}
)


def decay_rate(kind: str, config: MemoryConfig) -> float:
    """The daily decay of a kind of memory."""
    if kind == "belief":
        return config.decay_belief
    if kind == "summary":
        return config.decay_summary
    return config.decay_fact


def current_score(
    importance: float,
    kind: str,
    learnt: dt.date | None,
    today: dt.date,
    *,
    accesses: int = 0,
    pinned: bool = False,
    config: MemoryConfig,
) -> float:
    """A memory's worth today, 0..1. A memory with no date does not decay."""
    if pinned:
        return importance
    age = max(0, (today - learnt).days) if learnt else 0
    rate = decay_rate(kind, config) * (1 - importance * config.importance_slowdown)
    decay = (1 - min(1.0, max(0.0, rate))) ** age
    reinforcement = 1 + config.reinforcement * math.log1p(accesses)
    worth = min(1.0, importance * decay * reinforcement)
    return max(worth, config.tier_cold) if kind in DURABLE_KINDS else worth


def tier(score: float, config: MemoryConfig) -> str:
    """``hot``, ``warm``, ``cold`` or ``archive``."""
    if score >= config.tier_hot:
        return "hot"
    if score >= config.tier_warm:
        return "warm"
    if score >= config.tier_cold:
        return "cold"
    return "archive"
