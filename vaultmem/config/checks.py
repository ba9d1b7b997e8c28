"""The checks of the values a settings file gives: each of the type of its key's default
(a TOML integer is taken for a float), within its allowed range (``_RANGE``), and the
thresholds that only mean something in order. Every error names the key and the file that
set it, so a typo never silently does nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vaultmem.config.sections import MAX_CONTEXT, MemoryConfig
from vaultmem.errors import ConfigError


def section_values(cls: type[Any], name: str, raw: object, source: str) -> dict[str, Any]:
    """One section of one file (``source``, named in errors), its values checked."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: [{name}] must be a table")
    known = cls._fields
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in known:
            raise ConfigError(f"{source}: unknown key {name}.{key} (known: {', '.join(known)})")
        default = getattr(cls(), key)
        if isinstance(value, bool) and not isinstance(default, bool):
            raise ConfigError(
                f"{source}: {name}.{key} must be {type(default).__name__}, got {value!r}"
            )
        if isinstance(default, tuple):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{source}: {name}.{key} must be a list of strings")
            value = tuple(value)
        elif isinstance(default, float) and isinstance(value, int):
            value = float(value)  # TOML writes 1 for 1.0
        elif not isinstance(value, type(default)):
            raise ConfigError(
                f"{source}: {name}.{key} must be {type(default).__name__}, got {value!r}"
            )
        _check_range(f"{name}.{key}", value, source)
        values[key] = value
    return values


def _check_range(key: str, value: object, source: str) -> None:
    bounds = _RANGE.get(key)
    if bounds is None or not isinstance(value, int | float):
        return
    low, high = bounds
    if value != value:  # TOML allows nan, which every comparison would let through
        raise ConfigError(f"{source}: {key} must be a number, got nan")
    if high is None and value < low:
        raise ConfigError(f"{source}: {key} must be at least {low}, got {value!r}")
    if high is not None and not low <= value <= high:
        raise ConfigError(f"{source}: {key} must be between {low} and {high}, got {value!r}")


def check_order(memory: MemoryConfig, source: Callable[[str], str]) -> None:
    """Thresholds that only mean something in order; ``source`` names the file that set
    a key (for the error)."""
    for higher, lower, rule in (
        ("tier_hot", "tier_warm", "tiers go hot > warm > cold"),
        ("tier_warm", "tier_cold", "tiers go hot > warm > cold"),
        ("topic_active", "topic_dormant", "a topic is active above dormant"),
    ):
        high, low = getattr(memory, higher), getattr(memory, lower)
        if not high > low:
            raise ConfigError(
                f"{source(lower)}: memory.{lower} ({low!r}) must be below memory.{higher} "
                f"({high!r}): {rule}"
            )


# Allowed values: (minimum, maximum or None for no maximum), both inclusive.
_RANGE: dict[str, tuple[float, float | None]] = {
    "index.max_file_bytes": (1, None),
    "index.chunk_max_chars": (100, None),
    "index.busy_timeout_ms": (0, None),
    "search.default_limit": (1, None),
    "search.context_lines": (0, MAX_CONTEXT),
    "memory.admit_threshold": (0, 1),
    "memory.duplicate_similarity": (0, 1),
    "memory.conflict_similarity": (0, 1),
    # A day's decay is at most half a memory's score, so one day can never archive
    # everything (a rate of 1 or more would zero every score on its first day).
    "memory.decay_fact": (0, 0.5),
    "memory.decay_belief": (0, 0.5),
    "memory.decay_summary": (0, 0.5),
    "memory.importance_slowdown": (0, 1),  # above 1 an important memory would grow
    "memory.reinforcement": (0, 1),
    "memory.tier_hot": (0, 1),
    "memory.tier_warm": (0, 1),
    "memory.tier_cold": (0, 1),
    "memory.hotness_mention": (0, 1),
    "memory.hotness_daily": (0, 1),
    "memory.topic_active": (0, 1),
    "memory.topic_dormant": (0, 1),
    "memory.budget_tokens": (50, None),
    "memory.topic_min_facts": (1, None),
    "memory.summary_min_facts": (1, None),
    "memory.lessons": (0, None),
    "memory.highlight_days": (0, None),
    "git.timeout_seconds": (0.1, None),
    # The marker line, a heading and one cited line need about this much (recall/context_block.py).
    "context.budget": (40, None),
    "embeddings.batch": (1, 4096),
    "embeddings.timeout_seconds": (0.1, None),
    "embeddings.retries": (0, 20),
    "embeddings.weight": (0, 1),
    "embeddings.seats": (0, 5),
    "embeddings.seats_apart": (0, 5),
    "llm.budget": (0, None),
    "llm.timeout": (0.1, None),
    "llm.retries": (0, 20),
}
